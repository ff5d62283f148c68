"""Per-app units across builds: each app's `Unit` kept in the cache under the hash of what it is
computed from, so a build after a one-app edit computes that app's unit and reads the others.

A unit (`fleetgen.emit.units`) is computed from `Plan.only`: the app, the base or chart it reads
from the workspace and the fleet without its apps. Its key hashes exactly these (as
`buildcache.canonical` writes them: every field, which were set, the ``fleet.py`` lines) and the
code identity; a changed environment, cluster or project changes every key.

Two entries per unit: ``unit/`` the index a build reads for every app (each file the app alone
writes with its source key; a digest of its objects in each shared file; the kinds of its Argo
CD documents; its fleet-map rows), and ``unitdata/`` the data (those files as
`buildcache.serialize` writes them, its objects in each shared file), read only for a file that
must be made. A shared file's source key is the hash of the shared key, its path and the digest
of each app's objects in it, so it is made again only when one of them changed. An entry that
cannot be read back as written is a miss: the unit is computed again.

A compile's output (`Output`) is made of the units (`units_of`) and of what the whole Plan adds
(`Whole`): made from the Plan (`output`), or read back under the apps' interfaces
(`fleetgen.wholecache`).

A compile is stored (``unitemitted/``, under the compile's key) as what its files are made of:
the files of the whole Plan as data, and for every other file the units it comes from (`Files`).
`load` checks every unit it names is still stored, so ``diff`` reading it back never misses one.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from fleetgen.buildcache import (
    Uncacheable,
    canonical,
    inputs_key,
    serialize,
    source_key_of,
)
from fleetgen.cache import Cache, code_identity
from fleetgen.emit import flux, units
from fleetgen.emit.fleetmap import AppRows
from fleetgen.emit.flux.objects import Order, kustomization_file
from fleetgen.emit.units import Docs, Unit, Units
from fleetgen.fields import repo_path
from fleetgen.interface import interface_form
from fleetgen.load import Loaded
from fleetgen.model import App
from fleetgen.output import OutputFile
from fleetgen.plan import Plan
from fleetgen.workspace import Workspace
from fleetgen.writer import render_file, yaml_bytes
from fleetgen.yamlio import document_text

INDEX = "unit"
DATA = "unitdata"
ENTRIES = "unitemitted"  # a compile's files by the units they are made of, keyed like ``emitted/``
# Units computed (not read back) by this process, by app name: for tests and debugging.
COMPUTED: Counter[str] = Counter()


@dataclass(frozen=True)
class Keys:
    """The cache keys of a compile: of the compile (all its inputs), of the inputs its apps
    share (the fleet without apps), of each app's unit, and of each app's interface."""

    compile: str
    shared: str
    apps: Mapping[str, str]
    _loaded: Loaded = field(repr=False, compare=False)
    _shared: Any = field(repr=False, compare=False)  # the shared inputs' running hash

    @functools.cached_property
    def interfaces(self) -> dict[str, str]:
        """app -> its interface key (its unit's inputs without the fields only its own files
        show: `fleetgen.interface`), in spec order; computed when first asked for (a build
        that finds its compile stored never needs them)."""
        workspace = self._loaded.workspace
        return {
            app.name: _digest(self._shared, (interface_form(app), canonical(_dirs(app, workspace))))
            for app in self._loaded.fleet.apps
        }


def keys(loaded: Loaded) -> Keys | None:
    """The keys of a compile of ``loaded``; None when its inputs cannot be keyed."""
    fleet = loaded.fleet
    try:
        shared = hashlib.sha256(
            marshal.dumps((code_identity(), canonical(fleet.model_copy(update={"apps": []}))), 2)
        )
        # (name, key) of every app in spec order, a name given twice (an error) too
        each = [
            (app.name, _digest(shared, canonical(_inputs(app, loaded.workspace))))
            for app in fleet.apps
        ]
    except (Uncacheable, ValueError):
        return None
    compile = inputs_key(
        shared.hexdigest(), each, "apps" in fleet.model_fields_set, loaded.workspace
    )
    return (
        Keys(compile, shared.hexdigest(), dict(each), loaded, shared)
        if compile is not None
        else None
    )


def _digest(shared: Any, form: Any) -> str:
    """The hash of the shared inputs' running hash (``hashlib``) followed by ``form`` (builtin
    data: `canonical`)."""
    digest = shared.copy()
    digest.update(marshal.dumps(form, 2))
    return str(digest.hexdigest())


def _inputs(app: App, workspace: Workspace) -> tuple[Any, ...]:
    """What the unit of ``app`` reads besides the fleet without apps: the app, and the workspace
    inventory of the directories it names (`_dirs`)."""
    return (app, _dirs(app, workspace))


def _dirs(app: App, workspace: Workspace) -> list[tuple[str, Any, Any]]:
    """The workspace inventory of the directories ``app`` names (its base, a chart kept in the
    repository)."""
    paths = sorted(
        {
            repo_path(path)
            for path in (app.path, app.chart.path if app.chart else None)
            if path is not None
        }
    )
    return [(path, workspace.bases.get(path), workspace.charts.get(path)) for path in paths]


@dataclass(frozen=True, slots=True)
class Index:
    """What a build reads of every unit.

    Attributes:
        files: (emitter, path, source key or None) of each file the app alone writes.
        docs: shared file path -> digest of the app's objects in it.
        kinds: (group, kind) of its Argo CD documents.
        rows: its rows of the fleet map.
    """

    files: tuple[tuple[str, str, str | None], ...]
    docs: Mapping[str, str]
    kinds: tuple[tuple[str, str], ...]
    rows: AppRows


Texts = list[tuple[Order, str]]  # a unit's documents in a shared file: (order, YAML text)


class Data:
    """A unit's files and objects as stored: ``marshal`` blobs, each decoded when first read
    (``diff`` reads the ApplicationSets of every unit, seldom its Flux objects; a build reads
    only the texts of the objects of the shared files it makes again)."""

    def __init__(self, files: bytes, docs: bytes, texts: bytes) -> None:
        self._files, self._docs, self._texts = files, docs, texts

    @functools.cached_property
    def files(self) -> dict[str, bytes | None]:
        """path -> `serialize` of each file the app alone writes."""
        return _decoded(self._files)

    @functools.cached_property
    def docs(self) -> dict[str, bytes]:
        """shared file path -> the app's objects there, marshalled."""
        return _decoded(self._docs)

    @functools.cached_property
    def texts(self) -> dict[str, Texts | None]:
        """shared file path -> the YAML text of the app's objects there (`texts`; none for a
        unit ``diff`` stored: the file is then rendered from the objects)."""
        return _decoded(self._texts)


def _decoded(blob: bytes) -> dict[str, Any]:
    """A dict stored by `store` (its entry's header proved the bytes are those written)."""
    found = marshal.loads(blob)
    if not isinstance(found, dict):
        raise LookupError("a unit's data is not as this fleetgen writes it")
    return found


def store(
    cache: Cache, key: str, unit: Unit, rendered: bool = True
) -> tuple[Index, dict[str, Texts | None]]:
    """Store ``unit`` under ``key``; its index and the `texts` of its objects per shared file
    (none unless ``rendered``: what only compares files, ``diff``, renders nothing)."""
    serialized = {file.path: serialize(file) for _, file in unit.files}
    docs = {path: marshal.dumps(list(found), 2) for path, found in unit.docs.items()}
    index = Index(
        tuple(
            (emitter, file.path, source_key_of(serialized[file.path]))
            for emitter, file in unit.files
        ),
        {path: hashlib.sha256(data).hexdigest() for path, data in docs.items()},
        unit.kinds,
        unit.rows,
    )
    joined = {path: texts(found) for path, found in unit.docs.items()} if rendered else {}
    if all(found is not None for found in serialized.values()):
        cache.put_bytes(
            DATA,
            key,
            marshal.dumps(tuple(marshal.dumps(part, 2) for part in (serialized, docs, joined)), 2),
        )
        cache.put_bytes(
            INDEX,
            key,
            marshal.dumps((index.files, dict(index.docs), index.kinds, dict(index.rows)), 2),
        )
    return index, joined


def texts(docs: Docs) -> Texts | None:
    """(order, YAML text) of each of ``docs``, as `writer.render_file` writes them; None when one
    is written only with its whole file (`yamlio.document_text`)."""
    found = []
    for order, doc in docs:
        text = document_text(doc)
        if text is None:
            return None
        found.append((order, text))
    return found


def load_index(cache: Cache, key: str) -> Index | None:
    """The index stored under ``key``; None when absent or not as this code writes it."""
    stored = cache.get_bytes(INDEX, key)
    if stored is None:
        return None
    try:
        files, docs, kinds, rows = marshal.loads(stored)
    except (ValueError, TypeError, EOFError):
        return None
    valid = (
        isinstance(files, tuple)
        and isinstance(docs, dict)
        and isinstance(kinds, tuple)
        and isinstance(rows, dict)
        and all(isinstance(entry, tuple) and len(entry) == 3 for entry in files)
    )
    return Index(files, docs, kinds, rows) if valid else None


def load_data(cache: Cache, key: str) -> Data | None:
    """The data stored under ``key``; None when absent or damaged."""
    stored = cache.get_bytes(DATA, key)
    if stored is None:
        return None
    try:
        parts = marshal.loads(stored)
    except (ValueError, TypeError, EOFError):
        return None
    valid = (
        isinstance(parts, tuple)
        and len(parts) == 3
        and all(isinstance(part, bytes) for part in parts)
    )
    return Data(*parts) if valid else None


def shared_source(shared: str, path: str, apps: list[str], digests: list[str]) -> str:
    """The source key of a shared file: the shared inputs, its path, the apps with objects in
    it (in app order) and the digest of each one's objects there (64 hex digits each)."""
    found = hashlib.sha256(f"{code_identity()}\0{shared}\0{path}\0".encode())
    found.update("\0".join(apps).encode())  # an app name holds no NUL
    found.update("".join(digests).encode())
    return found.hexdigest()


def decode_file(serialized: bytes) -> OutputFile:
    """A file from its `serialize`."""
    return OutputFile(*marshal.loads(serialized))


def decode_docs(data: bytes) -> list[tuple[Order, Any]]:
    """A unit's objects in one shared file from their stored bytes."""
    found: list[tuple[Order, Any]] = marshal.loads(data)
    return found


class _Compute:
    """Computes a unit now and stores it (again): what `_Units` falls back to. It holds nothing
    that refers back to it, so a compile's Plan goes with its last reference instead of waiting
    for the cyclic garbage collector."""

    def __init__(
        self, cache: Cache, keys: Keys, make: Callable[[str], Unit], rendered: bool
    ) -> None:
        """Units keyed by ``keys``, made by ``make`` (app -> its unit); ``rendered``: store
        their texts (`store`)."""
        self._cache, self._make, self._rendered = cache, make, rendered
        self._apps = {key: app for app, key in keys.apps.items()}

    def __call__(self, key: str) -> tuple[Unit, Index, dict[str, Texts | None]]:
        """The unit ``key``, its index and texts."""
        app = self._apps[key]
        COMPUTED[app] += 1
        unit = self._make(app)
        return (unit, *store(self._cache, key, unit, self._rendered))


class _Units:
    """The files units make, read from their data in the cache (each unit's once) or from the
    units computed now; ``compute`` makes a unit whose data is gone or damaged (without it,
    all data must have been checked: `load`)."""

    def __init__(self, cache: Cache, compute: _Compute | None = None) -> None:
        self._cache, self._compute = cache, compute
        self.computed: dict[str, Unit] = {}  # unit key -> unit computed now
        self.texts: dict[str, dict[str, Texts | None]] = {}  # of the units computed and stored
        self._data: dict[str, Data | None] = {}

    def data(self, key: str) -> Data | None:
        """The stored data of the unit ``key`` (None: absent or damaged)."""
        if key not in self._data:
            self._data[key] = load_data(self._cache, key)
        return self._data[key]

    def owned(self, key: str, path: str) -> OutputFile:
        """The file at ``path`` that the app of unit ``key`` alone writes."""
        found = self._unit_or_data(key)
        if isinstance(found, Unit):
            return next(file for _, file in found.files if file.path == path)
        serialized = found.files[path]
        assert serialized is not None  # a unit with unserializable files is not stored
        return decode_file(serialized)

    def shared(self, path: str, keys: Iterable[str], comment: str) -> OutputFile:
        """The shared file at ``path`` from the objects of the units ``keys`` (in app order)."""
        docs: list[tuple[Order, Any]] = []
        for key in keys:
            found = self._unit_or_data(key)
            docs += found.docs[path] if isinstance(found, Unit) else decode_docs(found.docs[path])
        return kustomization_file(path, docs, comment)

    def shared_bytes(self, path: str, keys: Iterable[str], comment: str) -> bytes | None:
        """The bytes of the shared file at ``path`` (as `shared` makes it) joined from the texts
        of the units ``keys`` (in app order); None when a unit has none for it."""
        found: Texts = []
        for key in keys:
            part = self._texts(key).get(path)
            if part is None:
                return None
            found += part
        return yaml_bytes(comment, [text for _, text in sorted(found, key=itemgetter(0))])

    def _texts(self, key: str) -> Mapping[str, Texts | None]:
        if key in self.texts:
            return self.texts[key]
        found = self._unit_or_data(key)
        return found.texts if isinstance(found, Data) else {}

    def _unit_or_data(self, key: str) -> Unit | Data:
        if key in self.computed:
            return self.computed[key]
        stored = self.data(key)
        if stored is not None:
            return stored
        return self.compute(key)[0]

    def compute(self, key: str) -> tuple[Unit, Index]:
        """The unit ``key`` computed now (and stored) and its index."""
        if self._compute is None:
            raise LookupError(f"unit {key} is no longer in the cache")
        unit, index, self.texts[key] = self._compute(key)
        self.computed[key] = unit
        return unit, index


class Files(Mapping[str, OutputFile]):
    """A compile's files by path, each made when first asked for: decoded from its stored data,
    or made of the units it names. Two of them with equal source keys at a path hold the same
    file there (``diff`` makes only the files that differ)."""

    def __init__(
        self,
        units: _Units,
        sources: dict[str, str | None],
        made: dict[str, OutputFile],
        serialized: dict[str, bytes],
        keys: Mapping[str, str],
        owned: dict[str, str],
        docs: dict[str, tuple[str, list[str]]],
    ) -> None:
        """``sources``: path -> source key of every file; ``made``: files already made;
        ``serialized``: others' `serialize`; ``keys``: app -> its unit key; ``owned``: path of
        a file an app alone writes -> the app; ``docs``: path of a shared file -> (its comment,
        the apps with objects in it, in app order)."""
        self._units, self._sources, self._made = units, sources, made
        self._serialized, self.unit_keys, self.owned, self.docs = serialized, keys, owned, docs

    def __getitem__(self, path: str) -> OutputFile:
        found = self._made.get(path)
        if found is None:
            found = self._made[path] = self._make(path)
        return found

    def _make(self, path: str) -> OutputFile:
        if path in self._serialized:
            return decode_file(self._serialized[path])
        if path in self.owned:
            return self._units.owned(self.unit_keys[self.owned[path]], path)
        if path in self.docs:
            comment, apps = self.docs[path]
            return self._units.shared(path, [self.unit_keys[app] for app in apps], comment)
        raise KeyError(path)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._sources))

    def __len__(self) -> int:
        return len(self._sources)

    def source(self, path: str) -> str | None:
        """The source key of the file at ``path`` (None: unknown or no such file)."""
        return self._sources.get(path)

    def bytes_of(self, path: str) -> bytes:
        """The rendered bytes of the file at ``path``: a shared file joined from its units' texts
        of their objects where they have them, any other rendered from its data."""
        if path in self.docs and path not in self._made:
            comment, apps = self.docs[path]
            joined = self._units.shared_bytes(path, [self.unit_keys[app] for app in apps], comment)
            if joined is not None:
                return joined
        return render_file(self[path])


@dataclass(frozen=True, slots=True)
class Whole:
    """What the whole Plan adds to the units of a compile: its files (registrations, AppProjects,
    Namespaces, tenants, the bootstrap, the fleet map), serialized, and the comment of each
    shared Flux file."""

    files: Mapping[str, tuple[str, bytes | None]]  # path -> (emitter, `serialize`)
    made: Mapping[str, OutputFile]  # those of them at hand as data
    comments: Mapping[str, str]

    @classmethod
    def of(
        cls,
        projected: Plan,
        names: Collection[str],
        kinds: Iterable[tuple[str, str]],
        rows: Mapping[str, AppRows],
    ) -> Whole:
        """The files of the emitters ``names`` made of the whole Plan (`units.shared_files`),
        as `fleetgen.interface.project` leaves it."""
        made = units.shared_files(projected, names, kinds, rows)
        return cls(
            {file.path: (emitter, serialize(file)) for emitter, file in made},
            {file.path: file for _, file in made},
            flux.comments(projected) if "flux" in names else {},
        )


class Output:
    """The output files of one compile, made of units computed now or read from the cache and
    of the whole Plan's files: each file's emitter and source key, and its data when asked for
    (`file`)."""

    def __init__(
        self,
        keys: Keys,
        names: Collection[str],
        made: _Units,
        indexes: Mapping[str, Index],
        whole: Whole,
    ) -> None:
        """The output of the emitters ``names``: of the units (``made``, keyed by ``keys``)
        whose ``indexes`` are given by app, in name order, and of ``whole``."""
        self.whole, self.kinds = whole, kinds_and_rows(indexes)[0]
        self.sources: dict[str, str | None] = {}
        self.emitters: dict[str, str] = {}
        owned: dict[str, str] = {}
        for app, index in indexes.items():
            for emitter, path, source in index.files:
                if emitter in names:
                    self.sources[path], self.emitters[path] = source, emitter
                    owned[path] = app
        shared: dict[str, tuple[list[str], list[str]]] = {}  # shared path -> apps, digests
        for app, index in indexes.items():
            for path, digest in index.docs.items() if "flux" in names else ():
                apps, digests = shared.get(path) or shared.setdefault(path, ([], []))
                apps.append(app)
                digests.append(digest)
        for path, (apps, digests) in shared.items():
            self.sources[path] = shared_source(keys.shared, path, apps, digests)
            self.emitters[path] = "flux"
        self.serialized: dict[str, bytes | None] = {}  # files made of the whole Plan
        for path, (emitter, data) in whole.files.items():
            self.serialized[path], self.sources[path] = data, source_key_of(data)
            self.emitters[path] = emitter
        docs = {path: (whole.comments[path], apps) for path, (apps, _) in shared.items()}
        stored = {
            path: data
            for path, data in self.serialized.items()
            if path not in whole.made and data is not None
        }
        self.files = Files(made, self.sources, dict(whole.made), stored, keys.apps, owned, docs)

    def file(self, path: str) -> OutputFile:
        """The output file at ``path``."""
        return self.files[path]

    def bytes_of(self, path: str) -> bytes:
        """The rendered bytes of the file at ``path`` (`Files.bytes_of`)."""
        return self.files.bytes_of(path)

    def save(self, cache: Cache, entry: str, left_out: Collection[str]) -> None:
        """Store what this compile made under ``entry`` (`load`): the files made of the whole
        Plan as data, and the units each other file is made of."""
        if all(data is not None for data in self.serialized.values()):
            cache.put_bytes(
                ENTRIES,
                entry,
                marshal.dumps(
                    (
                        sorted(left_out),
                        self.emitters,
                        self.serialized,
                        dict(self.files.unit_keys),
                        self.files.owned,
                        self.files.docs,
                        self.sources,
                    ),
                    2,
                ),
            )


def stored_indexes(cache: Cache, keys: Keys) -> dict[str, Index | None]:
    """The index of every app's unit keyed by ``keys``, by app in name order; None for a unit
    not stored whole (its index or data absent or damaged)."""
    found: dict[str, Index | None] = {}
    for app in sorted(keys.apps):
        key = keys.apps[app]
        index = load_index(cache, key)
        found[app] = index if index is not None and cache.touch(DATA, key) else None
    return found


def units_of(
    cache: Cache,
    keys: Keys,
    make: Callable[[str], Unit],
    rendered: bool = True,
    stored: Mapping[str, Index | None] | None = None,
) -> tuple[_Units, dict[str, Index]]:
    """The units of every app keyed by ``keys``, with their indexes by app in name order: read
    from the cache (``stored``: `stored_indexes`, read already), or where missing or damaged made
    now by ``make`` (app -> its unit) and stored, with the YAML texts of their objects when
    ``rendered`` (`store`)."""
    made = _Units(cache, _Compute(cache, keys, make, rendered))
    found = stored_indexes(cache, keys) if stored is None else stored
    return made, {
        app: index if index is not None else made.compute(keys.apps[app])[1]
        for app, index in found.items()
    }


def kinds_and_rows(
    indexes: Mapping[str, Index],
) -> tuple[list[tuple[str, str]], dict[str, AppRows]]:
    """The kinds of the units' Argo CD documents (sorted, distinct) and their fleet-map rows."""
    kinds = sorted({kind for index in indexes.values() for kind in index.kinds})
    return kinds, {app: index.rows for app, index in indexes.items()}


def output(
    cache: Cache,
    plan: Plan,
    projected: Plan,
    keys: Keys,
    names: Collection[str],
    rendered: bool = True,
) -> Output:
    """The output of ``plan`` of the emitters ``names``, its units keyed by ``keys``
    (`units_of`), the files of the whole Plan made from ``projected``
    (`fleetgen.interface.project` of it)."""
    made, indexes = units_of(cache, keys, Units(plan).of, rendered)
    kinds, rows = kinds_and_rows(indexes)
    return Output(keys, names, made, indexes, Whole.of(projected, names, kinds, rows))


def load(cache: Cache, entry: str, left_out: Collection[str]) -> Files | None:
    """The files stored under ``entry`` but those of the emitters ``left_out``; None when absent,
    damaged, missing an emitter this lookup needs, or made of a unit no longer stored."""
    stored = cache.get_bytes(ENTRIES, entry)
    if stored is None:
        return None
    try:
        skipped, emitters, serialized, keys, owned, docs, sources = marshal.loads(stored)
    except (ValueError, TypeError, EOFError):
        return None
    if not set(skipped) <= set(left_out) or not all(
        isinstance(found, dict) for found in (emitters, serialized, keys, owned, docs, sources)
    ):
        return None
    kept = {path for path, emitter in emitters.items() if emitter not in left_out}
    needed = {*owned.values(), *(app for _, apps in docs.values() for app in apps)}
    stored_units = _Units(cache)
    if not all(app in keys and stored_units.data(keys[app]) is not None for app in needed):
        return None  # checked now: read anyway
    return Files(
        stored_units,
        {path: key for path, key in sources.items() if path in kept},
        {},
        {path: data for path, data in serialized.items() if path in kept},
        keys,
        {path: key for path, key in owned.items() if path in kept},
        {path: found for path, found in docs.items() if path in kept},
    )
