"""``add cluster|app|env|project``: edit fleet.py (`fleetgen.scaffold.edit`), validate the edited
spec (load, resolve, emitter checks), then write new files, fleet.py and output/."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from fleetgen import api, writer
from fleetgen.errors import Problem, SpecError, UsageError
from fleetgen.journal import atomic_write
from fleetgen.load import load_source, read_spec, run_spec
from fleetgen.model import App, Environment, Project
from fleetgen.plan import Placement
from fleetgen.scaffold import edit
from fleetgen.scaffold.requests import AppRequest, ClusterRequest, EnvRequest, ProjectRequest
from fleetgen.scaffold.snippets import app_base, app_snippet, base_files, cluster_snippet
from fleetgen.templating import py_literal, render
from fleetgen.version import VERSION
from fleetgen.workspace import Lister, Reader, filesystem_lister, filesystem_reader


@dataclass(frozen=True, slots=True)
class Added:
    """What an ``add`` did (or, dry, would do)."""

    spec_diff: str  # unified diff of fleet.py
    new_files: tuple[str, ...]  # created outside output/, repo-relative
    output_changes: tuple[writer.Finding, ...]  # output files that change
    compiled: api.Compiled
    placements: tuple[Placement, ...]  # of the added cluster or app
    written: bool
    kept: tuple[str, ...] = ()  # existing files used as they are (an adopted base), repo-relative
    extended: str | None = None  # the project whose namespaces the add extended


class NamespaceNotAllowed(UsageError):
    """``add app --namespace NS`` into a project that does not allow NS (without
    ``extend_project``); ``question`` asks whether to extend the project."""

    def __init__(self, project: Project, namespace: str) -> None:
        allowed = ", ".join(project.namespaces) or "none"
        super().__init__(
            f"project {project.name!r} does not allow namespace {namespace!r} "
            f"(its namespaces: {allowed}); pass --extend-project to add it"
        )
        self.question = f"Add namespace {namespace!r} to project {project.name!r}'s namespaces?"


def add_cluster(
    spec: Path, request: ClusterRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Cluster(...)`` into fleet.py, validate, then write it and rebuild output/."""
    snippet, names = cluster_snippet(request)
    return _add(
        spec,
        "clusters",
        lambda source: edit.insert(source, "clusters", snippet, names),
        {},
        lambda p: p.cluster == request.name,
        dry_run,
        out,
    )


def add_app(
    spec: Path, request: AppRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``App(...)``, with a new base at apps/NAME/base/ (or ``path``), or the existing base
    at ``path`` as it is (none for a chart app); a project that does not allow the namespace is
    extended when ``request.extend_project``, else refused. Validated before anything is
    written."""
    spec = spec.resolve()
    snippet, names = app_snippet(request)
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.apps, "app", request.name)
    project = next((p for p in fleet.projects if p.name == request.project), None)
    extend = project is not None and not any(
        fnmatch.fnmatchcase(request.namespace, allowed) for allowed in project.namespaces
    )
    if extend and not request.extend_project:
        assert project is not None
        raise NamespaceNotAllowed(project, request.namespace)
    base = app_base(request)
    kept = (base,) if not request.chart and (spec.parent / base).exists() else ()
    files = (
        {}
        if request.chart or kept
        else {f"{base}/{name}": text for name, text in base_files(request.name).items()}
    )

    def change(source: str) -> str:
        if extend:
            source = edit.extend(
                source, "projects", request.project, "namespaces", py_literal(request.namespace)
            )
        return edit.insert(source, "apps", snippet, names)

    added = _add(spec, "apps", change, files, lambda p: p.app == request.name, dry_run, out)
    return replace(added, kept=kept, extended=request.project if extend else None)


def add_env(
    spec: Path, request: EnvRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Environment(name=...)`` at the end of the environments, or after ``after``."""
    spec = spec.resolve()
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.environments, "environment", request.name)
    if request.after is not None and request.after not in {e.name for e in fleet.environments}:
        known = ", ".join(e.name for e in fleet.environments) or "none"
        raise UsageError(f"--after {request.after!r}: no such environment (known: {known})")
    snippet = render("snippets/env.py.j2", name=request.name).rstrip("\n")
    return _add(
        spec,
        "environments",
        lambda source: edit.insert(
            source, "environments", snippet, ["Environment"], after=request.after
        ),
        {},
        lambda p: p.env == request.name,
        dry_run,
        out,
    )


def add_project(
    spec: Path, request: ProjectRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Project(name=..., namespaces=[...])``."""
    spec = spec.resolve()
    if not request.namespaces:
        raise UsageError(
            "add project: give the namespaces its apps may deploy into (--namespace NS, repeatable)"
        )
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.projects, "project", request.name)
    snippet = render(
        "snippets/project.py.j2",
        name=request.name,
        namespaces=list(request.namespaces),
        description=request.description,
    ).rstrip("\n")
    return _add(
        spec,
        "projects",
        lambda source: edit.insert(source, "projects", snippet, ["Project"]),
        {},
        lambda p: False,
        dry_run,
        out,
    )


def _unique(existing: Sequence[Environment | Project | App], kind: str, name: str) -> None:
    if any(item.name == name for item in existing):
        raise UsageError(f"{kind} {name!r} exists in fleet.py; pick another name")


def _add(
    spec: Path,
    field_name: str,
    change: Callable[[str], str],
    files: Mapping[str, str],
    wanted: Callable[[Placement], bool],
    dry_run: bool,
    out: Path | None,
) -> Added:
    """Edit (``change``), validate, then (unless ``dry_run``) write new files, fleet.py and
    output/."""
    spec = spec.resolve()
    root = spec.parent
    source = read_spec(spec)
    try:
        edited = change(source)
    except edit.EditError as error:
        raise SpecError([Problem(str(error), str(spec), error.line)]) from None
    try:
        read, listing = overlaid(root, files)
        loaded = load_source(edited, str(spec), read, listing, root)
        compiled = api.compile_loaded(spec, loaded, out)
    except SpecError as error:
        raise SpecError(_on_disk(error.problems, str(spec), source, edited, field_name)) from None
    changes = writer.check(compiled.out_dir, compiled.rendered, version=VERSION)
    conflicts = [c for c in changes if c.kind == "unowned-conflict"]
    if conflicts:
        raise writer.OwnershipConflict(conflicts)
    diff = "".join(
        difflib.unified_diff(
            source.splitlines(keepends=True),
            edited.splitlines(keepends=True),
            f"a/{spec.name}",
            f"b/{spec.name}",
        )
    )
    if not dry_run:
        for path, text in files.items():
            _write_new(root / path, text)
        atomic_write(spec, edited.encode(), spec.stat().st_mode)
        writer.write(compiled.out_dir, compiled.rendered, VERSION)
    placements = tuple(p for p in compiled.plan.placements if wanted(p))
    return Added(diff, tuple(files), tuple(changes), compiled, placements, not dry_run)


def _on_disk(
    problems: list[Problem], spec: str, source: str, edited: str, field_name: str
) -> list[Problem]:
    """Problems of the edited spec, at the lines of fleet.py as it is on disk: a problem in the
    inserted element points at the line it would go before."""
    to_source: dict[int, int] = {}
    inserted: set[int] = set()
    matcher = difflib.SequenceMatcher(a=source.splitlines(), b=edited.splitlines(), autojunk=False)
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        for offset, line in enumerate(range(b_start, b_end)):
            to_source[line + 1] = (
                a_start + min(offset, a_end - a_start - 1) + 1
                if tag != "insert" and a_end > a_start
                else a_start + 1
            )
            if tag != "equal":
                inserted.add(line + 1)
    return [
        Problem(
            f"in the new {field_name} entry: {p.message}" if p.line in inserted else p.message,
            p.file,
            to_source.get(p.line, p.line),
        )
        if p.file == spec
        else p
        for p in problems
    ]


def overlaid(root: Path, files: Mapping[str, str]) -> tuple[Reader, Lister]:
    """A Reader and a Lister of the repository at ``root`` with ``files`` (not yet written)
    visible."""
    read, listing = filesystem_reader(root), filesystem_lister(root)

    def reading(path: str) -> bytes | None:
        return files[path].encode() if path in files else read(path)

    def listing_with(directory: str) -> list[str]:
        inside = [path for path in files if path.startswith(f"{directory.rstrip('/')}/")]
        return sorted({*listing(directory), *inside})

    return reading, listing_with


def _write_new(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:
        handle.write(text)
