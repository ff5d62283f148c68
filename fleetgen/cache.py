"""One content-addressed cache under ``<output>/.fleetgen/cache/``, which ignores itself in Git.

A key is the hash of a unit's complete serialized inputs plus the code that computes it (the
fleetgen version and the content of every file fleetgen ships: a changed emitter in a development
checkout, whose version did not move, must not reuse what the old one wrote), so an entry never
goes stale: changed inputs or code make another key. Entries are JSON, or bytes behind a header that
names their key and their SHA-256, written atomically; one that cannot be read back as written
(truncated, edited, another format) counts as a miss and is rewritten. A cache that cannot be
written (read-only checkout) only costs time.

The cache is bounded: an entry read is touched (its mtime), and the first write of a command
first evicts the least recently used entries while the cache holds more than ``MAX_BYTES``
(``FLEETGEN_CACHE_MAX_MB`` overrides it), down to three quarters of it. Only files named as
entries are evicted (and a write's temporary file left by a killed run, after an hour); a miss
only costs time, so an entry evicted under another command's feet is recompiled there.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import os
import re
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from fleetgen.version import VERSION

CACHE_DIR = ".fleetgen/cache"
MAX_BYTES = 512 * 2**20  # a 1,000-cluster x 100-app fleet stores ~3 MB per compile
_ENTRY = re.compile(r"[0-9a-f]{64}\.(json|bin)")
_STALE_TEMPORARY_S = 3600  # a write's temporary file this old was left by a killed run
_MAGIC = b"fleetgen-cache-bytes\n"
# In the cache itself, so it holds whichever fleetgen wrote ``.fleetgen/.gitignore``.
_GITIGNORE = b"# fleetgen's content-addressed cache\n*\n"
_WRITES = itertools.count()  # numbers this process's temporary files


def tree_digest(roots: list[Path]) -> str:
    """The hash of every file's path and bytes under ``roots`` (compiled bytecode aside)."""
    digest = hashlib.sha256()
    for number, root in enumerate(roots):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(f"\0{number}/{path.relative_to(root).as_posix()}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def code_identity() -> str:
    """This fleetgen: its version and every file of its code, schemas and templates."""
    roots = [Path(str(resources.files(package))) for package in ("fleetgen", "fleetgen.templates")]
    return f"{VERSION}:{tree_digest(roots)}"


def key(inputs: Any) -> str:
    """The hash of ``inputs`` (JSON-serializable, serialized canonically) and this fleetgen."""
    text = json.dumps([code_identity(), inputs], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Cache:
    """Entries by (namespace, key), each namespace a directory of ``<key>.json`` files."""

    def __init__(self, out_dir: Path) -> None:
        self.directory = out_dir / CACHE_DIR
        self._pruned = False
        self._made: set[Path] = set()  # directories this cache created or found
        self._held: dict[Path, bytes] | None = None  # writes held back (`deferred`)

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Hold this cache's writes in memory inside the block (reads see them) and make them
        at its end. A build holds them until its output tree is written: the writer waits for
        the file system to flush what it wrote, which then leaves out the tens of megabytes of
        cache (derived data a lost write only costs time)."""
        self._held = {}
        try:
            yield
        finally:
            held, self._held = self._held, None
            for path, data in held.items():
                self._write(path, data)

    def _read(self, path: Path) -> bytes:
        """The bytes of the entry at ``path`` (held back or on disk); OSError when absent."""
        if self._held is not None and path in self._held:
            return self._held[path]
        return path.read_bytes()

    def _path(self, namespace: str, entry: str, suffix: str = "json") -> Path:
        return self.directory / namespace / entry[:2] / f"{entry}.{suffix}"

    def get(self, namespace: str, entry: str) -> Any | None:
        """The value stored under ``entry``, None when absent or unreadable."""
        path = self._path(namespace, entry)
        try:
            stored = json.loads(self._read(path))
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("key") != entry or "value" not in stored:
            return None
        _touch(path)
        return stored["value"]

    def put(self, namespace: str, entry: str, value: Any) -> None:
        """Store ``value`` (JSON-serializable) under ``entry``; a write failure is ignored."""
        data = json.dumps({"key": entry, "value": value}, separators=(",", ":")).encode()
        self._write(self._path(namespace, entry), data)

    def get_bytes(self, namespace: str, entry: str) -> bytes | None:
        """The bytes stored under ``entry``, None when absent, damaged or foreign."""
        path = self._path(namespace, entry, "bin")
        try:
            stored = self._read(path)
        except OSError:
            return None
        header = _header(entry, stored[len(_MAGIC) + len(entry) + 66 :])
        if not stored.startswith(header):
            return None
        _touch(path)
        return stored[len(header) :]

    def touch(self, namespace: str, entry: str) -> bool:
        """Mark the bytes entry ``entry`` as just used; whether it exists (not that it is
        intact: `get_bytes` checks that)."""
        path = self._path(namespace, entry, "bin")
        if self._held is not None and path in self._held:
            return True
        _touch(path)
        return path.is_file()

    def put_bytes(self, namespace: str, entry: str, data: bytes) -> None:
        """Store ``data`` under ``entry``; a write failure is ignored."""
        self._write(self._path(namespace, entry, "bin"), _header(entry, data) + data)

    def _write(self, path: Path, data: bytes) -> None:
        """Write ``data`` to ``path`` atomically (a reader sees the old file or the new one), or
        hold it back (`deferred`)."""
        if self._held is not None:
            self._held[path] = data
            return
        if not self._pruned:
            self._pruned = True
            self.prune(max_bytes())
        try:
            if path.parent not in self._made:  # a build writes hundreds of entries: ask once
                path.parent.mkdir(parents=True, exist_ok=True)
                ignore = self.directory / ".gitignore"
                if not ignore.is_file():
                    ignore.write_bytes(_GITIGNORE)
                self._made.add(path.parent)
            temporary = f"{path}.{os.getpid()}.{next(_WRITES)}.tmp"  # this process's alone
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view) :]
            finally:
                os.close(handle)
            os.replace(temporary, path)
        except OSError:
            return

    def prune(self, limit: int) -> None:
        """Evict the least recently used entries while the cache holds more than ``limit``
        bytes, down to three quarters of it, and temporary files left by killed writes."""
        entries, now = [], time.time()
        for path, stat in _files(self.directory):
            if _ENTRY.fullmatch(path.name):
                entries.append((stat.st_mtime, stat.st_size, path))
            elif path.suffix == ".tmp" and now - stat.st_mtime > _STALE_TEMPORARY_S:
                _remove(path)
        total = sum(size for _, size, _ in entries)
        if total <= limit:
            return
        for _, size, path in sorted(entries, key=lambda found: found[0]):
            if total <= limit * 3 // 4:
                break
            if _remove(path):
                total -= size


def max_bytes() -> int:
    """How large the cache may grow: ``FLEETGEN_CACHE_MAX_MB`` (mebibytes), else MAX_BYTES."""
    given = os.environ.get("FLEETGEN_CACHE_MAX_MB", "")
    return int(given) * 2**20 if given.isdigit() else MAX_BYTES


def _files(directory: Path) -> list[tuple[Path, os.stat_result]]:
    """The files two levels below each namespace of ``directory`` (``<ns>/<xx>/<file>``)."""
    found = []
    for shard in directory.glob("*/*"):
        try:
            with os.scandir(shard) as listing:
                found += [
                    (Path(item.path), item.stat(follow_symlinks=False))
                    for item in listing
                    if item.is_file(follow_symlinks=False)
                ]
        except OSError:
            continue
    return found


def _touch(path: Path) -> None:
    """Mark an entry as just used (eviction goes by mtime)."""
    try:
        os.utime(path)
    except OSError:
        return


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True


def _header(entry: str, payload: bytes) -> bytes:
    """What precedes ``payload`` stored under ``entry``: the format, the key and the payload's
    SHA-256, so that a truncated, edited or misplaced entry never reads as valid."""
    return b"%s%s\n%s\n" % (_MAGIC, entry.encode(), hashlib.sha256(payload).hexdigest().encode())
