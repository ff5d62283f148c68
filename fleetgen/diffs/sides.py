"""diff: one side of a comparison, the spec at a ref compiled (`load_side`): its helper modules
imported from that ref (`_imports_of`), its files, placements and facts; `RefSpecError` when it
cannot be compiled."""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from fleetgen.diffs.blast import Facts, Side, derived_applications
from fleetgen.diffs.refs import Snapshot, WorktreeSnapshot
from fleetgen.errors import Problem, SpecError
from fleetgen.inputs.load import Loaded, load_source
from fleetgen.pipeline import api
from fleetgen.resolver.placements import Placements
from fleetgen.resolver.plan import Plan
from fleetgen.write.output import OutputFile

WITHOUT = ("fleetmap",)  # emitters whose files diff does not compare: the fleet map is a view


class RefSpecError(SpecError):
    """The spec at one ref cannot be compiled; ``ref`` names it."""

    def __init__(self, ref: str, problems: list[Problem]) -> None:
        super().__init__(problems)
        self.ref = ref

    @property
    def summary(self) -> str:
        """The line shown after the problems: which ref they are at."""
        return f"{len(self.problems)} problem(s) in the spec at {self.ref}"


def load_side(snapshot: Snapshot, spec_name: str, filename: str, spec: Path | None = None) -> Side:
    """Compile the spec of ``snapshot`` (problems name it ``filename``); no spec file is an
    empty fleet.

    With ``spec`` (the working tree's spec, absolute), the snapshot's spec runs as that file,
    as a build of it in the working tree would, and compiles through the stored compiles of the
    output folder next to it if there is one (`api.emit_stored`): a ref whose spec and bases
    were built or diffed before is read back, neither resolved nor emitted.
    """
    data = snapshot.read(spec_name)
    if data is None:
        return Side(snapshot, None, {}, Facts(), {})
    running_as = str(spec) if spec is not None else filename
    try:
        source = data.decode("utf-8")
        with _imports_of(snapshot) as import_dir:
            loaded = load_source(source, running_as, snapshot.read, snapshot.files, import_dir)
        out_dir = spec.parent / loaded.fleet.output_dir if spec is not None else None
        if out_dir is not None and out_dir.is_dir():
            stored, files, placements = api.emit_stored(loaded, out_dir, without=WITHOUT)
            return _side(snapshot, loaded, files, placements, stored)
        plan, emitted = api.emit_loaded(loaded, without=WITHOUT)
    except UnicodeDecodeError as error:
        raise RefSpecError(
            snapshot.label, [Problem(f"cannot read the spec: {error}", filename)]
        ) from None
    except SpecError as error:
        raise RefSpecError(
            snapshot.label,
            [
                dataclasses.replace(p, file=filename) if p.file == running_as else p
                for p in error.problems
            ],
        ) from None
    return _side(snapshot, loaded, api.by_path(emitted), Placements.of(plan), plan)


def _side(
    snapshot: Snapshot,
    loaded: Loaded,
    files: Mapping[str, OutputFile],
    placements: Placements,
    plan: Plan | None,
) -> Side:
    return Side(
        snapshot,
        loaded,
        files,
        Facts.of(loaded.fleet, placements),
        derived_applications(loaded.fleet, placements, files),
        plan,
    )


@contextmanager
def _imports_of(snapshot: Snapshot) -> Iterator[Path | None]:
    """Where the spec imports its helper modules from, with a fresh ``sys.modules`` for them.

    The working tree imports in place; a commit's Python files are copied to a temporary
    directory. Modules named like those files are set aside while the spec runs and put back
    afterwards, so each ref imports its own helpers and the caller keeps its modules.
    """
    with tempfile.TemporaryDirectory(prefix="fleetgen-spec-") as tmp:
        where: Path | None = None
        if isinstance(snapshot, WorktreeSnapshot):
            where = snapshot.root
        elif sources := snapshot.python_files():
            where = Path(tmp)
            for path in sources:
                target = where / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(snapshot.read(path) or b"")
        names = _module_names(where) if where is not None else set()
        saved = {
            name: sys.modules.pop(name)
            for name in list(sys.modules)
            if name.partition(".")[0] in names
        }
        try:
            yield where
        finally:
            for name in list(sys.modules):
                if name.partition(".")[0] in names:
                    del sys.modules[name]
            sys.modules.update(saved)


def _module_names(directory: Path) -> set[str]:
    """Top-level modules importable from ``directory`` (fleetgen itself excepted)."""
    names = {path.stem for path in directory.glob("*.py")}
    names |= {path.parent.name for path in directory.glob("*/__init__.py")}
    return names - {"fleetgen"}
