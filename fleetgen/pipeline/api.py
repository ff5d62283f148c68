"""The public Python API of the pipeline: compile a spec, build output/, check it.

``build`` is the whole pipeline: load (`fleetgen.inputs.load`), the compile's stages
(`fleetgen.pipeline.stages`: resolve → stamp charts → check → emit → settle), then write
(`fleetgen.write.writer`); ``check`` compares instead of writing. Around both sits the
incremental check (`fleetgen.pipeline.incremental`): a spec whose inputs were built before into a
tree that provably still holds that build is done without compiling. The command line calls
``build`` and ``check``; features (diff, validate, scaffold, explain) compile through
`compile_spec`, `compile_loaded`, `emit_loaded` or `emit_stored`, never around them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from fleetgen.errors import Problem
from fleetgen.inputs import record
from fleetgen.inputs.landing import Landing
from fleetgen.inputs.load import Loaded, load
from fleetgen.pipeline.incremental import CompileRecord, Emitted, Memo
from fleetgen.pipeline.stages import compile_stages
from fleetgen.resolver.placements import Placements
from fleetgen.version import VERSION
from fleetgen.write import writer
from fleetgen.write.journal import RECORD

if TYPE_CHECKING:
    from fleetgen.resolver.plan import Plan
    from fleetgen.write.output import OutputFile


@dataclass(frozen=True)
class Compiled:
    """A compiled spec: its Plan, the rendered output files, where they belong, and warnings."""

    loaded: Loaded
    plan: Plan
    rendered: dict[str, bytes]
    out_dir: Path
    warnings: list[Problem]

    @property
    def placements(self) -> int:
        """How many (app, cluster) placements the spec has."""
        return len(self.plan.placements)


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What ``build`` did.

    Attributes:
        out_dir: The output folder.
        warnings: What the spec asks for that an engine cannot fully honour.
        placements: How many (app, cluster) placements the spec has.
        report: What the writer did: files written, unchanged and deleted.
        applied: The manifests a controller applies from the output folder that fleetgen did
            not write (`fleetgen.write.applied`), as ``check`` names them.
    """

    out_dir: Path
    warnings: list[Problem]
    placements: int
    report: writer.WriteReport
    applied: list[writer.Finding] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What ``check`` found: no findings means output/ is up to date.

    Attributes:
        out_dir: The output folder.
        warnings: What the spec asks for that an engine cannot fully honour.
        placements: How many (app, cluster) placements the spec has.
        findings: Every stale, missing, extra or hand-edited file.
        changed: The inputs that changed since the build the tree holds, where the cache knows
            that build (None: unknown, e.g. on a fresh clone).
    """

    out_dir: Path
    warnings: list[Problem]
    placements: int
    findings: list[writer.Finding]
    changed: list[str] | None = None


def compile_spec(spec: Path, out: Path | None = None) -> Compiled:
    """Load, resolve and emit ``spec``; ``out`` overrides the Fleet's output_dir (where the
    files would land: the overlays reach the bases from there). Writes nothing."""
    return compile_loaded(spec, load(spec), out)


def compile_loaded(spec: Path, loaded: Loaded, out: Path | None = None) -> Compiled:
    """Resolve and emit a spec already loaded (e.g. an edited source, before it is written)."""
    return _compiled(loaded, _out_dir(spec, loaded, out), _landing(spec, loaded, out))[0]


def _compiled(loaded: Loaded, out_dir: Path, landing: Landing) -> tuple[Compiled, Emitted]:
    """The compile of ``loaded`` for files landing in ``out_dir`` (as ``landing`` says) and its
    files by emitter (what `Memo.store` keeps)."""
    plan, emitted = compile_stages(loaded, landing=landing)
    rendered = writer.render(_flat(emitted))
    return Compiled(loaded, plan, rendered, out_dir, _warnings(plan)), emitted


def emit_loaded(loaded: Loaded, without: Collection[str] = ()) -> tuple[Plan, list[OutputFile]]:
    """The one compile every command goes through: resolve, the emitters' checks, emit (all
    but the emitters named ``without``, whose checks still run).

    Raises SpecError with every problem found. The files are data, not yet serialized (``diff``
    compares them as such).
    """
    plan, emitted = compile_stages(loaded, without)
    return plan, _flat(emitted)


def _warnings(plan: Plan) -> list[Problem]:
    from fleetgen import emit as emitters

    return emitters.warnings(plan)


def _flat(emitted: Emitted) -> list[OutputFile]:
    return [file for _, files in emitted for file in files]


def emit_stored(
    loaded: Loaded, out_dir: Path, without: Collection[str] = ()
) -> tuple[Plan | None, Mapping[str, OutputFile], Placements]:
    """`emit_loaded` through the stored compiles of ``out_dir`` (`fleetgen.pipeline.incremental`):
    the files and placements of a compile of the same inputs (by a build or an earlier call) are
    read back, else compiled and stored. Returns the Plan (None when read back: what was stored
    passed resolve and the emitters' checks), the files by path and the placements."""
    memo = Memo(out_dir, loaded)
    stored = memo.stored(without)
    if stored is not None:
        return None, stored.files, stored.placements
    plan, emitted = compile_stages(loaded, without)
    placements = Placements.of(plan)
    memo.store(emitted, placements, without)
    return plan, by_path(_flat(emitted)), placements


def by_path(files: list[OutputFile]) -> dict[str, OutputFile]:
    """Emitted files by path (no two share one: an emitter bug otherwise)."""
    found = {file.path: file for file in files}
    if len(found) != len(files):
        raise ValueError("an output path is generated twice")
    return found


def _out_dir(spec: Path, loaded: Loaded, out: Path | None) -> Path:
    return out if out is not None else spec.resolve().parent / loaded.fleet.output_dir


def _landing(spec: Path, loaded: Loaded, out: Path | None) -> Landing:
    """Where ``out`` is from the folder holding ``spec``, as the files' real paths say (what
    kustomize resolves the overlays' paths against); the fleet's output_dir without ``out``."""
    if out is None:
        return Landing.of(loaded.fleet)
    return Landing.between(spec.resolve().parent, out.resolve())


@dataclass(frozen=True, slots=True)
class _Proof:
    """Where a spec's files land, what its output folder keeps of its builds, and the compile
    record the tree provably holds (None: it must compile)."""

    out_dir: Path
    landing: Landing
    memo: Memo
    done: CompileRecord | None

    def built(self, done: CompileRecord) -> BuildResult:
        """What ``build`` reports of the tree that holds ``done``: nothing written."""
        report = writer.WriteReport([], len(done.files), [], [])
        applied = writer.applied_findings(self.out_dir, done.files)
        return BuildResult(self.out_dir, done.warnings, done.placements, report, applied)

    def checked(self, done: CompileRecord) -> CheckResult:
        """What ``check`` reports of the tree that holds ``done``: only the manifests a
        controller applies there that fleetgen did not write (`fleetgen.write.applied`)."""
        findings = writer.applied_findings(self.out_dir, done.files)
        return CheckResult(self.out_dir, done.warnings, done.placements, findings)


def _prove(spec: Path, loaded: Loaded, out: Path | None, use_cache: bool = True) -> _Proof:
    """Whether the output folder of ``spec`` (``out``) provably holds the build of ``loaded``'s
    inputs (`Memo.up_to_date`, completing an interrupted build first); no proof without the
    cache or without an output folder."""
    out_dir, landing = _out_dir(spec, loaded, out), _landing(spec, loaded, out)
    memo = Memo(out_dir, loaded, landing)
    done = memo.up_to_date() if use_cache and out_dir.is_dir() else None
    return _Proof(out_dir, landing, memo, done)


def build(
    spec: Path,
    out: Path | None = None,
    *,
    use_cache: bool = True,
    drained: Sequence[str] = (),
    all_drained: bool = False,
) -> BuildResult:
    """Compile ``spec`` and write the output tree (only files whose bytes changed).

    With ``use_cache`` (the default) a spec whose inputs were built before into an output tree
    that provably still holds that build is done without compiling
    (`fleetgen.pipeline.incremental`).
    ``drained`` (or ``all_drained``: every one) names draining things the controllers are done
    with: the build drops them (`fleetgen.settle.draining`).
    """
    loaded = load(spec)
    if drained or all_drained:
        loaded = replace(loaded, record=loaded.record.confirming(drained, all_drained))
    proof = _prove(spec, loaded, out, use_cache)
    if proof.done is not None:
        return proof.built(proof.done)
    out_dir, memo = proof.out_dir, proof.memo
    compiled, emitted = _compiled(loaded, out_dir, proof.landing)
    digests = writer.digests(compiled.rendered)
    proven = memo.proven() if use_cache else {}
    report = writer.write(out_dir, compiled.rendered, VERSION, proven=proven, hashes=digests)
    written = set(report.written)
    memo.followed(record.written(compiled.rendered.get(RECORD)))
    memo.remember(
        digests,
        compiled.warnings,
        compiled.placements,
        {path: stat for path, stat in proven.items() if path not in written},
    )
    memo.store(emitted, Placements.of(compiled.plan))
    applied = writer.applied_findings(out_dir, compiled.rendered)
    return BuildResult(out_dir, compiled.warnings, compiled.placements, report, applied)


def recorded(spec: Path) -> tuple[BuildResult, CheckResult] | None:
    """What ``build`` and ``check`` of ``spec`` (into its own output_dir) report when the tree
    provably holds the build of its inputs (`Memo.up_to_date`), without compiling; None when it
    does not (or there is no output folder yet)."""
    proof = _prove(spec, load(spec), None)
    if proof.done is None:
        return None
    return proof.built(proof.done), proof.checked(proof.done)


def check(spec: Path, out: Path | None = None, *, use_cache: bool = True) -> CheckResult:
    """Compare the output tree with a fresh build; writes nothing but the cache (and finishes an
    interrupted build). A spec whose inputs were built before into a tree that provably still
    holds that build is up to date without compiling."""
    loaded = load(spec)
    proof = _prove(spec, loaded, out, use_cache)
    if proof.done is not None:
        return proof.checked(proof.done)
    out_dir, memo = proof.out_dir, proof.memo
    compiled, emitted = _compiled(loaded, out_dir, proof.landing)
    digests = writer.digests(compiled.rendered)
    stores = use_cache and out_dir.is_dir()  # no output folder: nothing written
    proven = memo.proven() if stores else {}
    findings = writer.check(
        out_dir, compiled.rendered, version=VERSION, proven=proven, hashes=digests
    )
    if stores:
        memo.store(emitted, Placements.of(compiled.plan))  # what ``diff`` of this spec reads
        if not findings:
            memo.remember(digests, compiled.warnings, compiled.placements)
    changed = memo.changed() if stores and findings else None
    return CheckResult(out_dir, compiled.warnings, compiled.placements, findings, changed)
