"""What a build may skip, behind one seam: `fleetgen.pipeline.api` calls it; load, resolve and emit
import nothing of it.

A compile's inputs are a digest per input (`Inputs`): ``fleet.py`` (the loaded spec as
`canonical` writes it: every field, which were set, the line each object was built at), each
base and chart directory, CA certificate file and Helm values file it reads (the workspace
inventory: a values file by its values), ``record`` (the committed record, `fleetgen.inputs.record`,
with the drains a build is told are done), ``fleetgen`` (the code), and where the files land
relative to the repository (`fleetgen.inputs.landing.Landing`: the overlays' paths to the bases
depend on
it, so a folder copied elsewhere, cache and all, or a repository moved away from its ``--out``
folder, never passes for up to date). Their hash keys the kinds of entry in the cache
(`fleetgen.util.cache`), all derived data a miss only costs time:

- ``compile/``, the compile record: the digest of every file the compile wrote, its warnings,
  its number of placements, and the input digests (what ``--check`` compares).
- ``tree/``, the tree proof, keyed by the manifest: the ``lstat`` (mode, inode, size, mtime,
  ctime) of every owned file right after a build. A no-op build and ``build --check`` load the
  spec, hash its inputs, find the record and prove by ``lstat`` alone that the tree still holds
  it. A file whose stat changed is read and hashed again; so is one changed in the clock tick the
  stat was recorded in (Git's "racily clean" rule). The writer skips reading proven files.
- ``built/``, keyed by the manifest: the input digests of the build that wrote it, which
  ``--check`` compares with the current ones to say which input changed since (`changed`).
- ``stored/``, the stored compile: the files as data (by emitter) and the placements, which
  ``diff`` reads for a ref compiled before (by a build or an earlier diff) instead of resolving
  and emitting it again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import operator
import os
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import Any, TypeVar

import pydantic

from fleetgen.errors import Problem
from fleetgen.inputs.landing import Landing
from fleetgen.inputs.load import Loaded
from fleetgen.inputs.record import Record
from fleetgen.resolver.placements import Placements
from fleetgen.util.cache import Cache, code_identity, key
from fleetgen.version import VERSION
from fleetgen.write import writer
from fleetgen.write.journal import Manifest
from fleetgen.write.output import OutputFile

COMPILE, TREE, STORED, BUILT = "compile", "tree", "stored", "built"
OUTPUT = "output folder"  # the input that says where the files land (`Landing`)
# A file whose ctime is this close to when its stat was recorded may have changed unseen since.
_RACY_NS = 50_000_000
Emitted = list[tuple[str, list[OutputFile]]]  # emitter name, its files (`emit.emit_each`)
Stat = list[int]  # (mode, inode, size, mtime, ctime) of a file itself
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Inputs:
    """A compile's inputs: input name -> digest, and the key they make together."""

    digests: dict[str, str]
    key: str


def inputs(loaded: Loaded, landing: Landing | None = None) -> Inputs | None:
    """The inputs of a compile of ``loaded`` whose files land as ``landing`` says (default: in
    the fleet's output_dir; the overlays' paths to the bases depend on it); None when a value
    cannot be serialized faithfully (the compile then runs without the cache)."""
    try:
        digests = {
            "fleet.py": _hash(loaded.fleet),
            "record": _hash(loaded.record.data()),
            "fleetgen": code_identity(),
            OUTPUT: _hash(landing or Landing.of(loaded.fleet)),
        }
        workspace = loaded.workspace
        for kind, found in (
            ("base", workspace.bases),
            ("chart", workspace.charts),
            ("ca", workspace.certificates),
            ("values", workspace.values_files),
        ):
            digests |= {f"{kind}:{path}": _hash(item) for path, item in sorted(found.items())}
    except (Uncacheable, ValueError):
        return None
    return Inputs(digests, key(sorted(digests.items())))


def shown_input(name: str) -> str:
    """An input as a message names it (`inputs`: ``fleet.py``, ``base:apps/web/base`` ...)."""
    kind, _, path = name.partition(":")
    named = {"record": "the record (.fleetgen/record.json)", "fleetgen": "fleetgen itself"}
    return f"{kind} {path}" if path else named.get(name, name)


def _hash(value: Any) -> str:
    return hashlib.sha256(marshal.dumps(canonical(value), 2)).hexdigest()


@dataclass(frozen=True, slots=True)
class CompileRecord:
    """What a compile wrote, without the bytes (they are in the output tree)."""

    inputs: dict[str, str]  # input name -> digest
    files: dict[str, str]  # path -> sha256 of the bytes
    warnings: list[Problem]
    placements: int

    def data(self) -> tuple[Any, ...]:
        warnings = [(w.message, w.file, w.line) for w in self.warnings]
        return (self.inputs, self.files, warnings, self.placements)

    @classmethod
    def of(cls, data: Any) -> CompileRecord:
        found, files, warnings, placements = data
        return cls(found, files, [Problem(*w) for w in warnings], placements)


class Memo:
    """What one output folder keeps of its builds, for one compile's inputs (``landing``: where
    the folder is, `inputs`).

    A build reads the committed record and writes the next one (`fleetgen.inputs.record`); compiling
    again with the record it wrote gives the same files (the record is a fixpoint of
    `fleetgen.settle.draining.settle`), so what it remembers holds for those inputs too
    (`followed`).
    """

    def __init__(self, out_dir: Path, loaded: Loaded, landing: Landing | None = None) -> None:
        self.out_dir, self.cache = out_dir, Cache(out_dir)
        self.inputs = inputs(loaded, landing)
        self._keys = [self.inputs] if self.inputs is not None else []

    def followed(self, record: Record) -> None:
        """Remember and store what follows for the inputs with ``record`` as well."""
        if self.inputs is not None:
            digests = {**self.inputs.digests, "record": _hash(record.data())}
            if digests != self.inputs.digests:
                self._keys.append(Inputs(digests, key(sorted(digests.items()))))

    def record(self) -> CompileRecord | None:
        """This compile's record, when one was kept."""
        return _read(self.cache, COMPILE, self.inputs, CompileRecord.of)

    def up_to_date(self) -> CompileRecord | None:
        """This compile's record, when the output tree provably still holds what it wrote
        (completing an interrupted build first)."""
        found = self.record()
        if found is None or not writer.holds(self.out_dir, found.files, VERSION, self._prove):
            return None
        self._built(Manifest(VERSION, found.files))
        return found

    def _built(self, manifest: Manifest) -> None:
        """Remember that the tree's ``manifest`` was written by a compile of these inputs."""
        entry = _tree_key(manifest)
        if self.inputs is not None and self.cache.get(BUILT, entry) != self.inputs.digests:
            self.cache.put(BUILT, entry, self.inputs.digests)

    def _prove(self, out_dir: Path, manifest: Manifest) -> Collection[str]:
        return unchanged_files(self.cache, out_dir, manifest)

    def proven(self) -> dict[str, Stat]:
        """The owned files proven to hold the bytes the manifest records (completing an
        interrupted build first), with the stat they were proven with."""
        writer.settle(self.out_dir)
        manifest = writer.current_manifest(self.out_dir)
        return unchanged_files(self.cache, self.out_dir, manifest) if manifest else {}

    def remember(
        self,
        digests: dict[str, str],
        warnings: list[Problem],
        placements: int,
        known: Mapping[str, Stat] = {},
    ) -> None:
        """Record that the tree now holds a compile of these inputs that wrote ``digests``;
        ``known``: the stat of files proven and not written (`record_tree`)."""
        for found_inputs in self._keys:
            found = CompileRecord(found_inputs.digests, digests, warnings, placements)
            self.cache.put(COMPILE, found_inputs.key, found.data())
        manifest = Manifest(VERSION, digests)
        record_tree(self.cache, self.out_dir, manifest, known)
        self._built(manifest)

    def changed(self) -> list[str] | None:
        """The inputs that changed since the build that wrote the output tree's manifest, as
        `shown_input` names them; None where this cache does not know that build."""
        manifest = writer.current_manifest(self.out_dir)
        before = self.cache.get(BUILT, _tree_key(manifest)) if manifest else None
        if self.inputs is None or not isinstance(before, dict):
            return None
        now = self.inputs.digests
        return [shown_input(n) for n in sorted({*before, *now}) if before.get(n) != now.get(n)]

    def stored(self, without: Collection[str] = ()) -> StoredCompile | None:
        """The files (but those of the emitters ``without``) and placements of a compile of
        these inputs stored before."""
        found = _read(self.cache, STORED, self.inputs, StoredCompile.of)
        if found is None or not set(found.left_out) <= set(without):
            return None
        return found.without(without)

    def store(
        self, emitted: Emitted, placements: Placements, left_out: Collection[str] = ()
    ) -> None:
        """Keep a compile's files (of every emitter but those ``left_out``) and placements."""
        if not self._keys:
            return
        try:
            files = [(name, [(f.path, serialize(f)) for f in group]) for name, group in emitted]
        except ValueError:
            return  # a type marshal cannot write: not stored
        data = (sorted(left_out), files, placements.rows, dict(placements.builds_on))
        for found_inputs in self._keys:
            self.cache.put(STORED, found_inputs.key, data)


def _read(
    cache: Cache, namespace: str, found: Inputs | None, decode: Callable[[Any], R]
) -> R | None:
    """The record of ``found`` inputs in ``namespace``, decoded; None when absent or not of the
    shape this code writes."""
    data = cache.get(namespace, found.key) if found is not None else None
    if data is None:
        return None
    try:
        return decode(data)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class StoredCompile:
    """A compile's files by emitter (each as `serialize` wrote it) and its placements."""

    left_out: list[str]
    groups: list[tuple[str, list[tuple[str, bytes]]]]
    placements: Placements

    @classmethod
    def of(cls, data: Any) -> StoredCompile:
        left_out, groups, rows, builds_on = data
        return cls(left_out, groups, Placements(rows, builds_on))

    def without(self, names: Collection[str]) -> StoredCompile:
        kept = [(name, group) for name, group in self.groups if name not in names]
        return StoredCompile(sorted(names), kept, self.placements)

    @property
    def files(self) -> StoredFiles:
        """Every file by path, decoded when first read."""
        return StoredFiles({path: data for _, group in self.groups for path, data in group})


class StoredFiles(Mapping[str, OutputFile]):
    """Stored files by path, each decoded when first asked for. Their stored bytes are equal
    exactly when their data are, so ``diff`` compares two of them without decoding either
    (`serialized`) and decodes only the files that differ between its refs."""

    def __init__(self, serialized: dict[str, bytes]) -> None:
        self._serialized, self._decoded = serialized, dict[str, OutputFile]()

    def __getitem__(self, path: str) -> OutputFile:
        found = self._decoded.get(path)
        if found is None:
            found = self._decoded[path] = OutputFile(*marshal.loads(self._serialized[path]))
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._serialized)

    def __len__(self) -> int:
        return len(self._serialized)

    def serialized(self, path: str) -> bytes | None:
        """The stored bytes of the file at ``path`` (None: no such file)."""
        return self._serialized.get(path)


def serialize(file: OutputFile) -> bytes:
    """``file``'s data as ``marshal`` bytes, format 2: exact builtin types only, tagged by type
    and in order, so different files never have the same bytes, and no back-references (formats
    3 and 4 make the bytes of equal data depend on what else references it). Raises ValueError
    for a type marshal cannot write."""
    return marshal.dumps((file.path, file.documents, file.text, file.comment, file.drains), 2)


class Uncacheable(TypeError):
    """The inputs hold a value `canonical` cannot serialize faithfully."""


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
        return _plain
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


def _stat(path: str) -> Stat | None:
    """(mode, inode, size, mtime, ctime) of ``path`` itself (a symlink is not followed)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def record_tree(
    cache: Cache, out_dir: Path, manifest: Manifest, known: Mapping[str, Stat] = {}
) -> None:
    """Remember the stat of every file ``manifest`` owns, as the build just left them:
    ``known`` gives the stat of files the build proved (`unchanged_files`) and did not write
    (the stat they were proven with: one taken now could be of an edit made meanwhile)."""
    fence = time.time_ns() - _RACY_NS
    stats = {
        path: stat
        for path in manifest.files
        if (stat := known.get(path) or _stat(f"{out_dir}/{path}")) is not None and stat[4] < fence
    }
    cache.put(TREE, _tree_key(manifest), stats)


def unchanged_files(cache: Cache, out_dir: Path, manifest: Manifest) -> dict[str, Stat]:
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


def _tree_key(manifest: Manifest) -> str:
    return key(manifest.to_json())


def _is_plain_file(out_dir: Path, path: str, stat: Stat) -> bool:
    """A regular file reached through real directories, as the writer requires."""
    target = out_dir / path
    return S_ISREG(stat[0]) and target.parent.resolve() == out_dir.resolve() / Path(path).parent


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
