"""The public Python API of the pipeline: compile a spec, build output/, check it.

The command line reaches it through `fleetgen.commands`; features (diff, validate, scaffold,
explain) compile through `compile_spec`, `compile_loaded` or `emit_loaded`, never around them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fleetgen import buildcache, collector, unitcache, wholecache, writer
from fleetgen import emit as emitters
from fleetgen.cache import Cache
from fleetgen.emit import units
from fleetgen.errors import Problem, SpecError
from fleetgen.interface import project
from fleetgen.journal import Manifest
from fleetgen.load import Loaded, load
from fleetgen.output import OutputFile
from fleetgen.placements import Placements, save_dumped
from fleetgen.plan import Plan
from fleetgen.resolve import resolve
from fleetgen.version import VERSION


@dataclass(frozen=True)
class Compiled:
    """A compiled spec: the rendered output files, where they belong, warnings and the Plan.

    When the compile came from the cache, ``rendered`` reads the (proven unchanged) files from
    the output tree and ``plan`` is resolved on first use.
    """

    loaded: Loaded
    rendered: Mapping[str, bytes]
    out_dir: Path
    warnings: list[Problem]
    placements: int
    _plan: Plan | None = field(default=None, repr=False, compare=False)

    @property
    def plan(self) -> Plan:
        """The Plan the output was emitted from."""
        if self._plan is None:
            object.__setattr__(self, "_plan", resolve(self.loaded.fleet, self.loaded.workspace))
        assert self._plan is not None
        return self._plan


class _TreeFiles(Mapping[str, bytes]):
    """The bytes of output files read from the tree, where a cached compile proved them."""

    def __init__(self, out_dir: Path, digests: Mapping[str, str]) -> None:
        self._out_dir, self._digests = out_dir, digests

    def __getitem__(self, path: str) -> bytes:
        if path not in self._digests:
            raise KeyError(path)
        return (self._out_dir / path).read_bytes()

    def __iter__(self) -> Iterator[str]:
        return iter(self._digests)

    def __len__(self) -> int:
        return len(self._digests)


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What ``build`` did.

    Attributes:
        compiled: The compiled spec: its Plan, output files, warnings and output folder.
        report: What the writer did: files written, unchanged and deleted.
    """

    compiled: Compiled
    report: writer.WriteReport


@collector.pausing
def compile_spec(spec: Path, out: Path | None = None) -> Compiled:
    """Load, resolve and emit ``spec``; ``out`` overrides the Fleet's output_dir. Writes nothing."""
    return compile_loaded(spec, load(spec), out)


def compile_loaded(spec: Path, loaded: Loaded, out: Path | None = None) -> Compiled:
    """Resolve and emit a spec already loaded (e.g. an edited source, before it is written)."""
    plan, projected, emitted = _emit_each(loaded, ())
    return Compiled(
        loaded,
        writer.render(_flat(emitted)),
        _out_dir(spec, loaded, out),
        emitters.warnings(projected),
        len(plan.placements),
        plan,
    )


def emit_loaded(
    loaded: Loaded, without: Collection[emitters.Emitter] = ()
) -> tuple[Plan, list[OutputFile]]:
    """The one compile every command goes through: resolve, the emitters' checks, emit (all
    but the emitters ``without``, whose checks still run).

    Raises SpecError with every problem found. The files are data, not yet serialized (``diff``
    compares them as such).
    """
    plan, _, emitted = _emit_each(loaded, without)
    return plan, _flat(emitted)


def _emit_each(
    loaded: Loaded, without: Collection[emitters.Emitter]
) -> tuple[Plan, Plan, buildcache.Emitted]:
    """The Plan of ``loaded``, its projection (`_checked`) and its files by emitter."""
    plan, projected = _checked(loaded)
    return plan, projected, emitters.emit_each(plan, without, projected)


def _checked(loaded: Loaded) -> tuple[Plan, Plan]:
    """The Plan of ``loaded`` and its projection (`interface.project`: what the emitters' checks
    and warnings and the files of the whole Plan read); raises SpecError with every problem of
    resolve or the emitters."""
    plan = resolve(loaded.fleet, loaded.workspace)
    projected = project(plan)
    problems = emitters.check(projected)
    if problems:
        raise SpecError(problems)
    return plan, projected


def _flat(emitted: buildcache.Emitted) -> list[OutputFile]:
    return [file for _, files in emitted for file in files]


@collector.pausing
def emit_cached(
    loaded: Loaded, cache: Cache, without: Collection[emitters.Emitter] = ()
) -> tuple[str | None, Plan | None, Mapping[str, OutputFile]]:
    """`emit_loaded` through the cache: the files of a compile of the same inputs (by a build,
    ``build --check`` or an earlier call) are read back instead of emitted, else made of the
    units of its apps (those compiled before read back: `fleetgen.unitcache`) and of the whole
    part kept under its apps' interfaces (`fleetgen.wholecache`), else compiled, and stored.
    Returns the compile's cache key (None: inputs the cache cannot key), the Plan — None when
    the whole fleet was not resolved (the caller resolves it if it needs it; what was read back
    passed resolve and the emitters' checks) — and the files by path, each made or decoded when
    asked for."""
    keys, left_out = unitcache.keys(loaded), [emitters.name_of(e) for e in without]
    entry = keys.compile if keys is not None else None
    stored = _stored(cache, entry, left_out) if entry is not None else None
    buildcache.LOOKUPS["miss" if stored is None else "hit"] += 1
    if stored is None and keys is not None:
        stored = _of_whole(cache, loaded, keys, left_out)
    if stored is not None:
        return entry, None, stored
    plan, projected = _checked(loaded)
    names = [name for name in emitters.names(plan) if name not in left_out]
    output = _output(cache, plan, projected, keys, names, rendered=False)  # never written
    if entry is not None:
        output.save(cache, entry, left_out)
    return entry, plan, output.files


def _of_whole(
    cache: Cache, loaded: Loaded, keys: unitcache.Keys, left_out: list[str]
) -> Mapping[str, OutputFile] | None:
    """The files of ``loaded`` (but the emitters ``left_out``) made of its units and the whole
    part kept under its apps' interfaces (`wholecache.output`), stored as its compile; None
    without such a part. Compared, never written: the units computed keep no texts."""
    fast = wholecache.output(cache, loaded, keys, left_out, rendered=False)
    if fast is None:
        return None
    output, whole = fast
    _save_compile(cache, keys.compile, output, left_out, whole.dumped)
    return output.files


def _save_compile(
    cache: Cache,
    entry: str,
    output: unitcache.Output | _Emitted,
    left_out: Collection[str],
    dumped: bytes,
) -> None:
    """Store a compile under ``entry``: its files (but those of the emitters ``left_out``) and
    the placements ``diff`` reads, as `Placements.dump` wrote them."""
    output.save(cache, entry, left_out)
    save_dumped(cache, entry, dumped)


def _stored(cache: Cache, entry: str, left_out: list[str]) -> Mapping[str, OutputFile] | None:
    """The files of the compile stored under ``entry`` (made of units or emitted whole)."""
    return unitcache.load(cache, entry, left_out) or buildcache.load_emitted(cache, entry, left_out)


def _output(
    cache: Cache,
    plan: Plan,
    projected: Plan,
    keys: unitcache.Keys | None,
    names: Collection[str],
    rendered: bool = True,
) -> unitcache.Output | _Emitted:
    """The output of the emitters ``names`` for ``plan`` (``projected``: `_checked`): of per-app
    units through the cache (keyed by ``keys``; ``rendered``: as `unitcache.output`) where the
    fleet's layout allows, else emitted whole."""
    if keys is None or not units.supported(plan):
        return _Emitted(plan, names)
    return unitcache.output(cache, plan, projected, keys, names, rendered)


class _Made:
    """The output of a build or ``build --check`` and what else it keeps: its warnings, its
    number of placements, its Plan (None when the whole fleet was not resolved), and how to
    store the compile."""

    def __init__(self, cache: Cache, loaded: Loaded, keys: unitcache.Keys | None) -> None:
        """Made from the units and the whole part of the compile stored under ``keys``
        (`wholecache.output`), else compiled; ``keys`` None: compiled, its units not cached."""
        fast = wholecache.output(cache, loaded, keys) if keys is not None else None
        self.plan: Plan | None = None
        self._projected: Plan | None = None
        self._stored: wholecache.Stored | None = None
        self.output: unitcache.Output | _Emitted
        if fast is not None:
            self.output, self._stored = fast
            self.warnings, self.placements = self._stored.warnings, self._stored.placements
        else:
            self.plan, self._projected = _checked(loaded)
            self.output = _output(
                cache, self.plan, self._projected, keys, emitters.names(self.plan)
            )
            self.warnings = emitters.warnings(self._projected)
            self.placements = len(self.plan.placements)

    def save(self, cache: Cache, entry: str, keys: unitcache.Keys) -> None:
        """Store the compile under ``entry``: its files, its placements for ``diff``, and the
        part of the whole Plan under its apps' interfaces (`wholecache`)."""
        if self._stored is not None:
            _save_compile(cache, entry, self.output, (), self._stored.dumped)
            return
        assert self._projected is not None
        dumped = Placements.of(self._projected).dump()
        _save_compile(cache, entry, self.output, (), dumped)
        if isinstance(self.output, unitcache.Output):
            wholecache.save(
                cache,
                wholecache.key(keys, self.output.kinds),
                self.output.whole,
                self.warnings,
                self.placements,
                dumped,
            )


def by_path(files: list[OutputFile]) -> dict[str, OutputFile]:
    """Emitted files by path (no two share one: an emitter bug otherwise)."""
    found = {file.path: file for file in files}
    if len(found) != len(files):
        raise ValueError("an output path is generated twice")
    return found


def _out_dir(spec: Path, loaded: Loaded, out: Path | None) -> Path:
    return out if out is not None else spec.resolve().parent / loaded.fleet.output_dir


@collector.pausing
def build(spec: Path, out: Path | None = None, *, use_cache: bool = True) -> BuildResult:
    """Compile ``spec`` and write the output tree (only files that changed).

    With ``use_cache`` (the default) a spec compiled before into an output tree that still holds
    that build is recognised without compiling or reading the tree (`fleetgen.buildcache`); a
    spec whose apps' interfaces were compiled before resolves only the apps edited
    (`fleetgen.wholecache`); either way the cache is brought up to date.
    """
    loaded = load(spec)
    out_dir, keys = _out_dir(spec, loaded, out), unitcache.keys(loaded)
    entry = keys.compile if keys is not None else None
    cache = Cache(out_dir)
    cached = _cached(loaded, out_dir, cache, entry) if use_cache else None
    if cached is not None:
        return BuildResult(cached, writer.WriteReport([], len(cached.rendered), [], []))
    with cache.deferred():  # the cache's writes after the tree's, outside its flush
        return _build(loaded, out_dir, cache, keys, use_cache)


def _build(
    loaded: Loaded, out_dir: Path, cache: Cache, keys: unitcache.Keys | None, use_cache: bool
) -> BuildResult:
    made = _Made(cache, loaded, keys if use_cache else None)
    output = made.output
    proven, kept = _kept(cache, out_dir, output.sources) if use_cache else ({}, {})
    paths = sorted(output.sources)
    rendered = writer.render_lazily(paths, output.bytes_of, out_dir, kept)
    try:
        report = writer.write(out_dir, rendered, VERSION, proven=proven)
    except writer.KeptChanged:  # another build changed the tree meanwhile: render everything
        rendered = writer.render_lazily(paths, output.bytes_of, out_dir, {})
        report, proven = writer.write(out_dir, rendered, VERSION), {}
    compiled = Compiled(loaded, rendered, out_dir, made.warnings, made.placements, made.plan)
    digests = {path: writer.digest(rendered, path) for path in rendered}
    _remember(cache, keys.compile if keys is not None else None, compiled, digests)
    if keys is not None:
        made.save(cache, keys.compile, keys)
    manifest = Manifest(VERSION, digests)
    written = set(report.written)
    buildcache.record_tree(
        cache,
        out_dir,
        manifest,
        {path: stat for path, stat in proven.items() if path not in written},
    )
    buildcache.record_sources(cache, manifest, output.sources)
    return BuildResult(compiled, report)


class _Emitted:
    """The output of a compile emitted whole (not of units): its files, source keys and
    emitters."""

    def __init__(self, plan: Plan, names: Collection[str]) -> None:
        self._emitted = emitters.emit_each(
            plan, [emitters.by_name(name) for name in emitters.names(plan) if name not in names]
        )
        self._files = by_path(_flat(self._emitted))
        self._serialized = {path: buildcache.serialize(file) for path, file in self._files.items()}
        self.sources = {
            path: buildcache.source_key_of(data) for path, data in self._serialized.items()
        }

    def bytes_of(self, path: str) -> bytes:
        """The rendered bytes of the file at ``path``."""
        return writer.render_file(self._files[path])

    @property
    def files(self) -> Mapping[str, OutputFile]:
        """Every file by path."""
        return self._files

    def save(self, cache: Cache, entry: str, left_out: Collection[str]) -> None:
        """Store the files under ``entry`` (`buildcache.save_emitted`)."""
        buildcache.save_emitted(cache, entry, self._emitted, left_out, self._serialized)


def _kept(
    cache: Cache, out_dir: Path, sources: Mapping[str, str | None]
) -> tuple[dict[str, list[int]], dict[str, str]]:
    """The owned files proven unchanged since the last build (`buildcache.unchanged_files`),
    and of those the ones rendered from the same source as now (path -> digest): their bytes
    on disk need no rendering."""
    writer.settle(out_dir)
    manifest = writer.current_manifest(out_dir)
    if manifest is None:
        return {}, {}
    proven = buildcache.unchanged_files(cache, out_dir, manifest)
    before = buildcache.load_sources(cache, manifest)
    return proven, {
        path: manifest.files[path]
        for path in proven
        if path in sources and sources[path] is not None and before.get(path) == sources[path]
    }


def _cached(loaded: Loaded, out_dir: Path, cache: Cache, entry: str | None) -> Compiled | None:
    """The compile recorded under ``entry``, if the output tree provably still holds it."""
    record = buildcache.load_compile(cache, entry) if entry is not None else None
    if record is None or not writer.holds(out_dir, record.files, VERSION, _prover(cache)):
        return None
    return Compiled(
        loaded, _TreeFiles(out_dir, record.files), out_dir, record.warnings, record.placements
    )


def _prover(cache: Cache) -> writer.Prover:
    return lambda out_dir, manifest: buildcache.unchanged_files(cache, out_dir, manifest)


def _remember(cache: Cache, entry: str | None, compiled: Compiled, digests: dict[str, str]) -> None:
    if entry is not None:
        record = buildcache.CompileRecord(digests, compiled.warnings, compiled.placements)
        buildcache.save_compile(cache, entry, record)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What ``check`` found: no findings means output/ is up to date.

    Attributes:
        compiled: The compiled spec: its Plan, output files, warnings and output folder.
        findings: Every stale, missing, extra or hand-edited file.
    """

    compiled: Compiled
    findings: list[writer.Finding]


@collector.pausing
def check(spec: Path, out: Path | None = None, *, use_cache: bool = True) -> CheckResult:
    """Compare the output tree with a fresh build; writes nothing but the cache (and finishes a
    crashed build). A spec compiled before into a tree that provably still holds it is up to
    date without compiling."""
    loaded = load(spec)
    out_dir, keys = _out_dir(spec, loaded, out), unitcache.keys(loaded)
    entry = keys.compile if keys is not None else None
    cache = Cache(out_dir)
    cached = _cached(loaded, out_dir, cache, entry) if use_cache else None
    if cached is not None:
        return CheckResult(cached, [])
    stores = use_cache and out_dir.is_dir()  # no output folder: nothing written
    made = _Made(cache, loaded, keys if stores else None)
    output = made.output
    if keys is not None and stores:
        made.save(cache, keys.compile, keys)
    proven, kept = _kept(cache, out_dir, output.sources) if stores else ({}, {})
    rendered = writer.render_lazily(sorted(output.sources), output.bytes_of, out_dir, kept)
    compiled = Compiled(loaded, rendered, out_dir, made.warnings, made.placements, made.plan)
    findings = writer.check(out_dir, rendered, version=VERSION, proven=proven)
    if not findings:
        digests = {path: writer.digest(rendered, path) for path in rendered}
        _remember(cache, entry, compiled, digests)
        buildcache.record_tree(cache, out_dir, Manifest(VERSION, digests))
    return CheckResult(compiled, findings)
