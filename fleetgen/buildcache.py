"""What ``build`` and ``build --check`` keep in the cache (`fleetgen.cache`), and how they trust it.

Two kinds of entry, each under its own folder of ``<output>/.fleetgen/cache/``:

- ``compile/``: the result of one compile (the digest of every output file, the warnings, the
  number of placements), keyed by the hash of the compile's complete inputs: the loaded spec
  and workspace as `canonical` serializes them — every field, which fields were set explicitly,
  every private attribute (the ``fleet.py`` line each object was built at) — plus the fleetgen
  version. A spec that serializes to the same bytes compiles to the same output, so a hit skips
  resolve, emit and serialization.
- ``source/``: what each file of a build was rendered from, keyed like ``tree/`` by the
  manifest: path -> source key (`source_key`: the file's complete data as ``marshal`` writes
  it, `serialize`, plus `code_identity`; for a file made of units, `fleetgen.unitcache`'s). A
  rebuild renders only the files whose source key changed or whose bytes on disk are not
  proven; the others keep their bytes on disk.
- ``emitted/``: the files of a compile emitted whole (a Flux hub's; other compiles are stored
  as their units, `fleetgen.unitcache`), as data (what ``diff`` compares), keyed by the
  compile's input key: every build stores its compile, and ``diff`` stores each ref it compiles,
  so ``diff`` of a ref whose spec was compiled before (by a build in the working tree or an
  earlier diff) reads the files back instead of emitting them. Each file's path and bytes as
  `serialize` wrote them, in a ``marshal`` list compressed with zlib; the cache's header checks
  the bytes, and data of another shape is a miss. A file is decoded only when asked for
  (`StoredFiles`).
- ``tree/``: proof that the output tree still holds what a build left, without reading it:
  the ``lstat`` (mode, inode, size, mtime, ctime) of every owned file right after the build,
  keyed by the manifest (version and file digests). A file whose stat changed is read and
  hashed again; so is a file changed in the same clock tick as the record was taken (Git's
  "racily clean" rule), because a later edit in that tick would leave its stat as recorded.

An entry that cannot be read back as written counts as a miss (`fleetgen.cache`); any doubt
sends the build down the full path, which is always correct.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import operator
import os
import time
import zlib
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import Any

import pydantic

from fleetgen import collector
from fleetgen.cache import Cache, code_identity, key
from fleetgen.errors import Problem
from fleetgen.journal import Manifest
from fleetgen.output import OutputFile

COMPILE = "compile"
TREE = "tree"
SOURCE = "source"
EMITTED = "emitted"
# Lookups of stored compiles by outcome ("hit", "miss"), for tests and debugging (`api`).
LOOKUPS: Counter[str] = Counter()
# A file whose ctime is this close to when its stat was recorded may have changed unseen since.
_RACY_NS = 50_000_000


class Uncacheable(TypeError):
    """The inputs hold a value `canonical` cannot serialize faithfully; compile without cache."""


def canonical(value: Any) -> Any:
    """``value`` as builtin data (lists, tuples, str, int, float, bool, None) for ``marshal``,
    that differs whenever anything a compile could read differs.

    Models and dataclasses carry their class name and field names; pydantic models also their
    explicitly set fields and private attributes; mappings keep their order (emitters may
    depend on it); sets are sorted. Raises Uncacheable for any other type, never guessing.
    """
    if type(value) in _SCALARS:
        return value
    encode = _ENCODERS.get(type(value))
    if encode is None:
        encode = _ENCODERS[type(value)] = _encoder(type(value))
    return encode(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})
# How `canonical` writes an instance of each type met, chosen once per type (exact type: a
# subclass of a scalar gets its own, which checks what it is).
_ENCODERS: dict[type, Callable[[Any], Any]] = {}


def _encoder(kind: type) -> Callable[[Any], Any]:
    """How `canonical` writes instances of ``kind``."""
    if issubclass(kind, pydantic.BaseModel):
        return _model_encoder(kind)
    if dataclasses.is_dataclass(kind):
        names = tuple(field.name for field in dataclasses.fields(kind))
        return _fields_encoder("$dataclass", kind.__qualname__, names)
    if issubclass(kind, Mapping):
        return lambda value: (
            "$map",
            [
                (
                    k if type(k) in _SCALARS else canonical(k),
                    v if type(v) in _SCALARS else canonical(v),
                )
                for k, v in value.items()
            ],
        )
    if issubclass(kind, list | tuple):
        return lambda value: [item if type(item) in _SCALARS else canonical(item) for item in value]
    if issubclass(kind, set | frozenset):
        return lambda value: (
            "$set",
            sorted((canonical(item) for item in value), key=lambda item: marshal.dumps(item, 2)),
        )
    if issubclass(kind, str | bool | int | float):  # a subclass: as the value it stands for
        return lambda value: _plain(value)
    raise Uncacheable(f"cannot serialize a {kind.__qualname__} for a cache key")


def _model_encoder(kind: type[pydantic.BaseModel]) -> Callable[[Any], Any]:
    fields = _fields_encoder("$model", kind.__qualname__, tuple(kind.model_fields))
    return lambda value: (
        fields(value),
        sorted(value.model_fields_set),
        canonical(value.__pydantic_private__ or {}),
    )


def _fields_encoder(tag: str, name: str, names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The class and field names, then each field's value, read by one getter."""
    get = operator.attrgetter(*names) if names else (lambda _: ())
    single = len(names) == 1  # attrgetter of one name returns the value, not a tuple
    return lambda value: (
        tag,
        name,
        names,
        [
            item if type(item) in _SCALARS else canonical(item)
            for item in ((get(value),) if single else get(value))
        ],
    )


def _plain(value: str | bool | int | float) -> str | bool | int | float:
    """The builtin value a subclass instance (an enum member, say) stands for."""
    for kind in (bool, str, int, float):
        if isinstance(value, kind):
            return kind(value)
    raise Uncacheable(f"cannot serialize a {type(value).__qualname__} for a cache key")


def inputs_key(*inputs: Any) -> str | None:
    """The cache key of a unit whose complete inputs are ``inputs``; None if uncacheable.

    ``marshal`` format 2 (no back-references) writes exact builtin types only, tagged by type
    and in order, so different data never share a key and equal data always do.
    """
    try:
        data = marshal.dumps((code_identity(), canonical(list(inputs))), 2)
    except (Uncacheable, ValueError):
        return None
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class CompileRecord:
    """What a compile produced, without the bytes: they are in the output tree."""

    files: dict[str, str]  # path -> sha256 of the rendered bytes
    warnings: list[Problem]
    placements: int

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "placements": self.placements,
            "warnings": [[w.message, w.file, w.line] for w in self.warnings],
        }

    @classmethod
    def from_json(cls, data: Any) -> CompileRecord | None:
        """The record, or None when ``data`` is not one (a foreign or damaged entry)."""
        try:
            files, placements = data["files"], data["placements"]
            warnings = [Problem(str(m), str(f), int(n)) for m, f, n in data["warnings"]]
        except (KeyError, TypeError, ValueError):
            return None
        valid = (
            isinstance(files, dict)
            and isinstance(placements, int)
            and all(isinstance(p, str) and isinstance(d, str) for p, d in files.items())
        )
        return cls(files, warnings, placements) if valid else None


def load_compile(cache: Cache, entry: str) -> CompileRecord | None:
    """The compile recorded under ``entry``, if any."""
    return CompileRecord.from_json(cache.get(COMPILE, entry))


def save_compile(cache: Cache, entry: str, record: CompileRecord) -> None:
    """Record a compile under ``entry``."""
    cache.put(COMPILE, entry, record.to_json())


Emitted = list[tuple[str, list[OutputFile]]]  # emitter name, its files (`emit.emit_each`)


def save_emitted(
    cache: Cache,
    entry: str,
    emitted: Emitted,
    left_out: Collection[str],
    serialized: Mapping[str, bytes | None] | None = None,
) -> None:
    """Store the files of one compile under ``entry``: ``emitted`` by emitter, the emitters
    ``left_out`` named (a later lookup that needs one of them misses). ``serialized``: the
    files' `serialize` by path, when the caller has them already (for their source keys)."""
    known = serialized or {}
    with collector.paused():
        files = [
            (name, [(f.path, known[f.path] if f.path in known else serialize(f)) for f in group])
            for name, group in emitted
        ]
        if any(data is None for _, group in files for _, data in group):
            return  # a type marshal cannot write: not stored
        payload = marshal.dumps([sorted(left_out), files], 4)
    cache.put_bytes(EMITTED, entry, zlib.compress(payload, 1))


class StoredFiles(Mapping[str, OutputFile]):
    """Emitted files read back from the cache by path, each decoded when first asked for.

    Their stored bytes (`serialize`) are the same exactly when their data are, so two of them
    are compared without decoding either (`serialized`): ``diff`` decodes only the files that
    differ between its refs.
    """

    def __init__(self, serialized: dict[str, bytes]) -> None:
        self._serialized, self._decoded = serialized, dict[str, OutputFile]()

    def __getitem__(self, path: str) -> OutputFile:
        found = self._decoded.get(path)
        if found is None:
            with collector.paused():
                found = self._decoded[path] = OutputFile(*marshal.loads(self._serialized[path]))
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._serialized)

    def __len__(self) -> int:
        return len(self._serialized)

    def serialized(self, path: str) -> bytes | None:
        """The stored bytes of the file at ``path`` (None: no such file)."""
        return self._serialized.get(path)


def load_emitted(cache: Cache, entry: str, left_out: Collection[str]) -> StoredFiles | None:
    """The files stored under ``entry`` but those of the emitters ``left_out``; None when
    absent, damaged (the entry's header checks its bytes: `fleetgen.cache`), or missing an
    emitter this lookup needs."""
    return _read_emitted(cache.get_bytes(EMITTED, entry), set(left_out))


def _read_emitted(stored: bytes | None, left_out: set[str]) -> StoredFiles | None:
    if stored is None:
        return None
    try:
        with collector.paused():
            skipped, groups = marshal.loads(zlib.decompress(stored))
            if not set(skipped) <= left_out:
                return None
            files = {
                path: data for name, group in groups if name not in left_out for path, data in group
            }
    except (ValueError, TypeError, EOFError, zlib.error):
        return None
    valid = all(isinstance(path, str) and isinstance(data, bytes) for path, data in files.items())
    return StoredFiles(files) if valid else None


def serialize(file: OutputFile) -> bytes | None:
    """``file``'s data as ``marshal`` bytes (format 2), or None when it holds a type marshal
    cannot write. ``marshal`` writes exact builtin types only, tagged by type and in order, and
    reads its bytes back as the same data: different files never have the same bytes. Format 2,
    not 3 or 4: those write an object referenced elsewhere once with a flag and then by index,
    so their bytes depend on reference counts — on what other code (memos, an earlier build in
    the same process) holds — and equal files got other keys (a one-app change of the
    benchmark fleet re-rendered 111 files instead of 5)."""
    try:
        return marshal.dumps((file.path, file.documents, file.text, file.comment), 2)
    except ValueError:
        return None


def source_key(file: OutputFile) -> str | None:
    """The hash of everything ``file``'s bytes are rendered from: its `serialize` and
    `code_identity`; None when it cannot be serialized."""
    return source_key_of(serialize(file))


def source_key_of(serialized: bytes | None) -> str | None:
    """`source_key` of a file from its `serialize`."""
    if serialized is None:
        return None
    digest = hashlib.sha256(code_identity().encode() + b"\0")
    digest.update(serialized)
    return digest.hexdigest()


def load_sources(cache: Cache, manifest: Manifest) -> dict[str, str]:
    """path -> source key of the build that left ``manifest``; {} when not recorded."""
    recorded = cache.get(SOURCE, _tree_key(manifest))
    if not isinstance(recorded, dict):
        return {}
    return {
        path: key
        for path, key in recorded.items()
        if isinstance(path, str) and isinstance(key, str)
    }


def record_sources(cache: Cache, manifest: Manifest, sources: Mapping[str, str | None]) -> None:
    """Remember what the files of the build that left ``manifest`` were rendered from."""
    cache.put(
        SOURCE, _tree_key(manifest), {path: key for path, key in sources.items() if key is not None}
    )


def _tree_key(manifest: Manifest) -> str:
    return key(manifest.to_json())  # compact JSON: the C encoder, unlike the manifest's layout


def _stat(path: str | Path) -> list[int] | None:
    """(mode, inode, size, mtime, ctime) of ``path`` itself (a symlink is not followed)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def record_tree(
    cache: Cache, out_dir: Path, manifest: Manifest, known: Mapping[str, list[int]] = {}
) -> None:
    """Remember the stat of every file ``manifest`` owns, as the build just left them:
    ``known`` gives the stat of files the build proved (`unchanged_files`) and did not write
    (the stat they were proven with: one taken now could be of an edit made meanwhile)."""
    fence = time.time_ns() - _RACY_NS
    stats = {
        path: stat
        for path in manifest.files  # string paths: cheaper than a Path each
        if (stat := known.get(path) or _stat(f"{out_dir}/{path}")) is not None and stat[4] < fence
    }
    cache.put(TREE, _tree_key(manifest), stats)


def unchanged_files(cache: Cache, out_dir: Path, manifest: Manifest) -> dict[str, list[int]]:
    """The owned files proven to hold the bytes ``manifest`` records, with the stat they were
    proven with: stat as recorded, or (for the few whose stat is unknown) read and hashed."""
    recorded = cache.get(TREE, _tree_key(manifest))
    if not isinstance(recorded, dict):
        recorded = {}
    return {
        path: stat
        for path, digest in manifest.files.items()
        if (stat := _stat(f"{out_dir}/{path}")) is not None
        and (
            stat == recorded.get(path)
            or (_is_plain_file(out_dir, path, stat) and _digest(out_dir / path) == digest)
        )
    }


def _is_plain_file(out_dir: Path, path: str, stat: list[int]) -> bool:
    """A regular file reached through real directories, as the writer requires."""
    target = out_dir / path
    return S_ISREG(stat[0]) and target.parent.resolve() == out_dir.resolve() / Path(path).parent


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
