"""The writer's state under ``<out>/.fleetgen/``: ownership manifest, staging area and journal.

A build changes the output tree in one transaction. New contents are staged, then a journal
(moves from staging, deletions, the new manifest) is committed by one atomic rename. Applying a
journal is idempotent, so ``recover`` can finish an interrupted build, however often it is
itself interrupted. Before the commit the tree is untouched; the manifest is only ever written
while applying a journal, so tree and manifest always change together.

Durability fits derived data: output/ is reproducible from fleet.py and Git, so what must hold is
consistency (the old tree, the new tree, or a journal the next run completes), not the
durability of each file. A killed process needs no sync at all (the kernel keeps what was
written). An OS crash or power loss needs exactly two orderings, each one ``syncfs`` of the
output's file system instead of an fsync per file and per directory: the staged files must be
on disk before the journal that moves them (`_sync_filesystem` before the commit point), and the
moves before the journal is removed (again before the unlink). The journal and the manifest are
written atomically (write, fsync, rename). The per-file fsyncs bought power-loss durability of
each file, which derived output does not need; their cost is in benchmarks/README.md.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import json
import os
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fleetgen.errors import FleetgenError

if TYPE_CHECKING:
    import ctypes

STATE_DIR = ".fleetgen"
MANIFEST = f"{STATE_DIR}/manifest.json"
RECORD = (
    f"{STATE_DIR}/record.json"  # the committed record (`fleetgen.inputs.record`), an owned file
)
_JOURNAL = "journal.json"
_STAGING = "staging"
# Scratch space of an interrupted build must never reach Git: a clone would then hide a
# half-applied tree from `build --check` (which completes journals) instead of failing it.
_GITIGNORE = (
    b"# fleetgen's crash-recovery scratch space\n/staging/\n/journal.json\n/journal.json.tmp\n"
)

T = TypeVar("T")


class WriteError(FleetgenError):
    """The output directory cannot be written as asked."""


class StateError(WriteError):
    """A file under ``.fleetgen/`` is not in the format fleetgen writes."""


def check_path(path: str) -> None:
    """Raise ValueError unless ``path`` is an output path that fleetgen may own."""
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or {"", ".", ".."} & set(parts):
        raise ValueError(
            f"invalid output path {path!r}: it must be relative, '/'-separated, "
            "with no empty, '.' or '..' components and no backslashes"
        )
    if "flux-system" in parts:
        raise ValueError(f"invalid output path {path!r}: flux-system/ belongs to `flux bootstrap`")
    if parts[0] == STATE_DIR and path != RECORD:
        raise ValueError(f"invalid output path {path!r}: {STATE_DIR}/ holds the writer's state")


@dataclass(frozen=True, slots=True)
class Manifest:
    """The files fleetgen owns in an output tree (path -> sha256 hex) and who wrote them."""

    version: str
    files: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"fleetgen_version": self.version, "files": self.files}

    def to_bytes(self) -> bytes:
        """Deterministic bytes: sorted keys, one entry a line, trailing newline."""
        return _json_bytes(self.to_json())

    @classmethod
    def from_json(cls, data: Any) -> Manifest:
        _expect(isinstance(data, dict) and set(data) == {"fleetgen_version", "files"}, data)
        version, files = data["fleetgen_version"], data["files"]
        _expect(isinstance(version, str) and isinstance(files, dict), data)
        _expect(all(isinstance(digest, str) for digest in files.values()), files)
        _check_paths(list(files))
        return cls(version, files)


@dataclass(frozen=True, slots=True)
class Journal:
    """One committed build: what to move from staging, what to delete, the manifest after."""

    moves: list[tuple[str, str]]  # (staged file name, output path)
    deletions: list[str]
    manifest: Manifest

    def to_bytes(self) -> bytes:
        """Compact JSON (the C encoder: a build's journal lists every file twice)."""
        data = {
            "moves": self.moves,
            "deletions": self.deletions,
            "manifest": self.manifest.to_json(),
        }
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: Any) -> Journal:
        _expect(isinstance(data, dict) and set(data) == {"moves", "deletions", "manifest"}, data)
        moves, deletions = data["moves"], data["deletions"]
        _expect(isinstance(moves, list) and all(_is_move(move) for move in moves), moves)
        _check_paths([target for _, target in moves])
        _check_paths(deletions)
        manifest = Manifest.from_json(data["manifest"])
        return cls([(name, target) for name, target in moves], deletions, manifest)


def _is_move(move: Any) -> bool:
    return (
        isinstance(move, list)
        and len(move) == 2
        and isinstance(move[0], str)
        and move[0].isascii()
        and move[0].isdigit()
    )


def _check_paths(value: Any) -> None:
    """Raise ValueError unless ``value`` is a list of output paths."""
    _expect(isinstance(value, list) and all(isinstance(path, str) for path in value), value)
    for path in value:
        check_path(path)


def _expect(condition: bool, value: Any) -> None:
    if not condition:
        raise ValueError(f"unexpected value {value!r:.80}")


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()


def load_manifest(out_dir: Path) -> Manifest | None:
    """The manifest of ``out_dir``, or None when fleetgen has not written there yet."""
    return _load(out_dir / MANIFEST, Manifest.from_json, "restore it from Git")


def _load(path: Path, parse: Callable[[Any], T], remedy: str) -> T | None:
    """``path`` parsed from JSON by ``parse``; None if it does not exist."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return parse(json.loads(text))
    except ValueError as exc:
        raise StateError(f"{path} is not a file fleetgen wrote ({exc}); {remedy}") from None


@contextlib.contextmanager
def exclusive(out_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``out_dir`` (when it exists) so runs never interleave."""
    if not out_dir.is_dir():
        yield
        return
    fd = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def commit(
    out_dir: Path, writes: Mapping[str, bytes], deletions: Iterable[str], manifest: Manifest
) -> None:
    """Replace the files in ``writes``, delete ``deletions`` and record ``manifest``, atomically."""
    state = out_dir / STATE_DIR
    os.makedirs(state, exist_ok=True)
    gitignore = state / ".gitignore"
    if not gitignore.is_file() or gitignore.read_bytes() != _GITIGNORE:
        atomic_write(gitignore, _GITIGNORE)
    staging = state / _STAGING
    os.mkdir(staging)
    moves = []
    for index, (path, data) in enumerate(sorted(writes.items())):
        _write_file(f"{staging}/{index}", data, os.O_EXCL, sync=False)
        moves.append((str(index), path))
    journal = Journal(moves, sorted(deletions), manifest)
    _sync_filesystem(staging)  # staged bytes reach the disk before the journal that moves them
    atomic_write(state / _JOURNAL, journal.to_bytes())  # the commit point
    _apply(out_dir, journal)


def recover(out_dir: Path) -> bool:
    """Finish a committed but interrupted build (True), or discard an uncommitted one (False)."""
    state = out_dir / STATE_DIR
    remedy = "delete it, restore the output directory from Git and build again"
    journal = _load(state / _JOURNAL, Journal.from_json, remedy)
    if journal is None:
        if (state / _STAGING).exists():
            shutil.rmtree(state / _STAGING)
        _unlink(state / f"{_JOURNAL}.tmp")
        return False
    _apply(out_dir, journal)
    return True


def _apply(out_dir: Path, journal: Journal) -> None:
    """Carry out ``journal``; running it again, whole or after any prefix, changes nothing."""
    state = out_dir / STATE_DIR
    for path in journal.deletions:
        _delete_file(out_dir / path)
    _remove_empty_dirs(out_dir, journal.deletions)
    _make_dirs(out_dir, [path for _, path in journal.moves])
    staging = state / _STAGING
    for name, path in journal.moves:  # string paths: a Path per file costs more than the move
        _move(f"{staging}/{name}", f"{out_dir}/{path}")
    atomic_write(out_dir / MANIFEST, journal.manifest.to_bytes())
    _sync_filesystem(state)  # the moves and deletions reach the disk before the journal goes
    if (state / _STAGING).exists():
        shutil.rmtree(state / _STAGING)
    os.unlink(state / _JOURNAL)
    _fsync_dir(state)


def _make_dirs(out_dir: Path, paths: Iterable[str]) -> None:
    """Create the missing directories above ``paths``, shallowest first: one ``mkdir`` each,
    an existing one refusing it."""
    for directory in reversed(parent_dirs(paths)):
        with contextlib.suppress(FileExistsError):
            os.mkdir(f"{out_dir}/{directory}")


def _move(staged: str, target: str) -> None:
    """Move a staged file into place, unless an earlier, interrupted run moved it already."""
    try:
        os.replace(staged, target)
    except FileNotFoundError:
        if os.path.lexists(staged):
            raise


def parent_dirs(paths: Iterable[str]) -> list[str]:
    """Every directory above ``paths`` and below the output directory, deepest first."""
    dirs = {path.rsplit("/", depth)[0] for path in paths for depth in range(1, path.count("/") + 1)}
    return sorted(dirs, key=lambda d: (-d.count("/"), d))


def _remove_empty_dirs(out_dir: Path, deleted: Iterable[str]) -> None:
    """Remove the directories above ``deleted`` that are empty now, deepest first."""
    for directory in parent_dirs(deleted):
        try:
            os.rmdir(out_dir / directory)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise


def _delete_file(path: Path) -> None:
    """Delete ``path`` unless it is gone or a directory (a replay may find one there)."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            return
    except (FileNotFoundError, NotADirectoryError):
        return
    os.unlink(path)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _write_file(path: str | Path, data: bytes, flags: int, sync: bool = True) -> None:
    """Create ``path`` with ``data`` (and fsync it unless ``sync`` is False)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | flags, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` by ``data`` so that a reader sees the old bytes or the new, never a mix,
    also after a crash; ``mode`` sets the permissions of the new file."""
    temp = path.with_name(f"{path.name}.tmp")
    _write_file(temp, data, os.O_TRUNC)
    if mode is not None:
        os.chmod(temp, mode)
    os.replace(temp, path)
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, looked up on first use (``find_library`` runs ldconfig or a compiler)."""
    import ctypes.util

    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _sync_filesystem(path: Path) -> None:
    """Flush the whole file system holding ``path`` (Linux ``syncfs``; ``sync`` elsewhere)."""
    syncfs = getattr(_libc(), "syncfs", None)
    if syncfs is None:
        os.sync()
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if syncfs(fd) != 0:
            import ctypes

            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), str(path))
    finally:
        os.close(fd)
