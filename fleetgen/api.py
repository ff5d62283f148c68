"""The public Python API of the pipeline: compile a spec, build output/, check it.

The command line reaches it through `fleetgen.commands`; features (diff, validate, scaffold,
explain) compile through `compile_spec`, `compile_loaded` or `emit_loaded`, never around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fleetgen import emit as emitters
from fleetgen import writer
from fleetgen.errors import Problem, SpecError
from fleetgen.load import Loaded, load
from fleetgen.output import OutputFile
from fleetgen.plan import Plan
from fleetgen.resolve import resolve
from fleetgen.version import VERSION


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled spec: its Plan, the rendered output files and where they belong."""

    plan: Plan
    rendered: dict[str, bytes]
    out_dir: Path
    warnings: list[Problem]


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What ``build`` did.

    Attributes:
        compiled: The compiled spec: its Plan, output files, warnings and output folder.
        report: What the writer did: files written, unchanged and deleted.
    """

    compiled: Compiled
    report: writer.WriteReport


def compile_spec(spec: Path, out: Path | None = None) -> Compiled:
    """Load, resolve and emit ``spec``; ``out`` overrides the Fleet's output_dir. Writes nothing."""
    return compile_loaded(spec, load(spec), out)


def compile_loaded(spec: Path, loaded: Loaded, out: Path | None = None) -> Compiled:
    """Resolve and emit a spec already loaded (e.g. an edited source, before it is written)."""
    plan, files = emit_loaded(loaded)
    out_dir = out if out is not None else spec.resolve().parent / plan.fleet.output_dir
    return Compiled(plan, writer.render(files), out_dir, emitters.warnings(plan))


def emit_loaded(loaded: Loaded) -> tuple[Plan, list[OutputFile]]:
    """The one compile every command goes through: resolve, the emitters' checks, emit.

    Raises SpecError with every problem found. The files are data, not yet serialized (``diff``
    compares them as such).
    """
    plan = resolve(loaded.fleet, loaded.workspace)
    problems = emitters.check(plan)
    if problems:
        raise SpecError(problems)
    return plan, emitters.emit(plan)


def build(spec: Path, out: Path | None = None) -> BuildResult:
    """Compile ``spec`` and write the output tree (only files that changed)."""
    compiled = compile_spec(spec, out)
    return BuildResult(compiled, writer.write(compiled.out_dir, compiled.rendered, VERSION))


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What ``check`` found: no findings means output/ is up to date.

    Attributes:
        compiled: The compiled spec: its Plan, output files, warnings and output folder.
        findings: Every stale, missing, extra or hand-edited file.
    """

    compiled: Compiled
    findings: list[writer.Finding]


def check(spec: Path, out: Path | None = None) -> CheckResult:
    """Compare the output tree with a fresh build; writes nothing (bar finishing a crashed one)."""
    compiled = compile_spec(spec, out)
    findings = writer.check(compiled.out_dir, compiled.rendered, version=VERSION)
    return CheckResult(compiled, findings)
