"""``add cluster|app|env|engine|project``: edit fleet.py (`fleetgen.scaffold.edit`), validate the
edited spec (load, resolve, emitter checks), then write new files, fleet.py and output/."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from fleetgen.errors import Problem, SpecError, UsageError
from fleetgen.inputs.load import load_source, read_spec, run_spec
from fleetgen.inputs.reading import Lister, Reader, filesystem_lister, filesystem_reader
from fleetgen.inputs.workspace import scan
from fleetgen.manifests.k8s import image_name
from fleetgen.model import App, Environment, Fleet, Project
from fleetgen.pipeline import api
from fleetgen.resolver.plan import Placement
from fleetgen.rules.argocd import repo_permitted, repo_url
from fleetgen.scaffold import edit
from fleetgen.scaffold.requests import (
    AppRequest,
    ClusterRequest,
    EngineRequest,
    EnvRequest,
    ProjectRequest,
    check_engine,
    check_sync,
)
from fleetgen.scaffold.snippets import (
    app_base,
    app_call,
    base_files,
    chart_call,
    cluster_call,
    env_call,
    project_call,
)
from fleetgen.util.linelength import line_length
from fleetgen.util.templating import Call, call_names, py_literal
from fleetgen.version import VERSION
from fleetgen.write import writer
from fleetgen.write.journal import atomic_write


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
    extended: str | None = None  # the project the add extended
    extended_lists: tuple[str, ...] = ()  # its lists it extended: namespaces, source_repos
    pinned: tuple[str, ...] = ()  # add engine: environments kept on the fleet's former engine


class ProjectTooNarrow(UsageError):
    """``add app`` into a project that does not allow the app's namespace, or (Argo CD checks
    an explicit ``source_repos``) its chart repository, without ``extend_project``: the message
    is at the Project's line in fleet.py; ``question`` asks whether to extend the project."""

    def __init__(self, project: Project, namespace: str | None, repo: str | None) -> None:
        refused, added = [], []
        if namespace is not None:
            allowed = ", ".join(project.namespaces) or "none"
            refused.append(f"namespace {namespace!r} (its namespaces: {allowed})")
            added.append(f"namespace {namespace!r} to project {project.name!r}'s namespaces")
        if repo is not None:
            refused.append(
                f"the chart repository {repo} (its source_repos: {', '.join(project.source_repos)})"
            )
            owner = "its" if added else f"project {project.name!r}'s"
            added.append(f"{repo} to {owner} source_repos")
        file, line = project.origin
        message = (
            f"project {project.name!r} does not allow {' nor '.join(refused)}; pass "
            f"--extend-project to add {'them' if len(refused) > 1 else 'it'}"
        )
        super().__init__(Problem(message, file, line).render())
        self.question = f"Add {' and '.join(added)}?"


class ImageNameNeeded(UsageError):
    """``add app --path BASE --image REF`` where the existing base has several images and no
    ``image_name`` says which one REF sets; ``choices`` are their names."""

    def __init__(self, base: str, choices: list[str]) -> None:
        super().__init__(
            f"--image: {base} has {len(choices)} images ({', '.join(choices)}); name the one it "
            "sets with --image-name NAME"
        )
        self.base, self.choices = base, choices


def add_cluster(
    spec: Path, request: ClusterRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Cluster(...)`` into fleet.py, validate, then write it and rebuild output/."""
    return edit_validated(
        spec,
        "the new clusters entry",
        _inserting(spec, "clusters", cluster_call(request)),
        {},
        lambda p: p.cluster == request.name,
        dry_run,
        out,
    )


def add_app(
    spec: Path, request: AppRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``App(...)``, with a new base at apps/NAME/base/ (or ``path``), or the existing base
    at ``path`` as it is (none for a chart app); a project that does not allow the namespace (or
    the chart's repository) is extended when ``request.extend_project``, else refused. Validated
    before anything is written."""
    spec = spec.resolve()
    app_call(request)  # the arguments are checked before anything is read
    base = app_base(request)
    kept = (base,) if not request.chart and (spec.parent / base).exists() else ()
    if kept and request.image and not request.image_name:
        request = replace(request, image_name=_image_in(spec.parent, base))
    inserting = _inserting(spec, "apps", app_call(request))
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    width = line_length(spec.parent)
    _unique(fleet.apps, "app", request.name)
    project = next((p for p in fleet.projects if p.name == request.project), None)
    namespace = (
        request.namespace
        if project is not None
        and not any(fnmatch.fnmatchcase(request.namespace, ns) for ns in project.namespaces)
        else None
    )
    repo = _refused_chart_repo(fleet, project, request)
    if (namespace or repo) and not request.extend_project:
        assert project is not None
        raise ProjectTooNarrow(project, namespace, repo)
    files = (
        {}
        if request.chart or kept
        else {f"{base}/{name}": text for name, text in base_files(request.name).items()}
    )

    extensions = {k: v for k, v in (("namespaces", namespace), ("source_repos", repo)) if v}

    def change(source: str) -> str:
        for keyword, value in extensions.items():
            source = edit.extend(
                source, "projects", request.project, keyword, py_literal(value), width
            )
        return inserting(source)

    added = edit_validated(
        spec, "the new apps entry", change, files, lambda p: p.app == request.name, dry_run, out
    )
    return replace(
        added,
        kept=kept,
        extended=request.project if extensions else None,
        extended_lists=tuple(extensions),
    )


def _image_in(root: Path, base: str) -> str:
    """The name of the one image of the existing base at ``base`` (as `Image(name=...)` matches
    it), from the workspace inventory; ImageNameNeeded when it has several."""
    found = scan(filesystem_reader(root), [base]).bases[base]
    if found.images is None:
        raise UsageError(
            f"--image: the kustomization of {base} rewrites its images itself, so fleetgen "
            "cannot tell which one --image sets; name it with --image-name NAME"
        )
    names = sorted({image_name(reference) for reference in found.images})
    if not names:
        raise UsageError(
            f"--image: {base} has no container image for it to set"
            + ("" if found.complete else " that fleetgen can see; name it with --image-name NAME")
        )
    if len(names) > 1:
        raise ImageNameNeeded(base, names)
    return names[0]


def _refused_chart_repo(fleet: Fleet, project: Project | None, request: AppRequest) -> str | None:
    """The chart repository of a chart app (as Argo CD's Application names it) that the
    project's explicit ``source_repos`` do not permit, where Argo CD may place the app (the
    boundary Argo CD holds: its emitter's check refuses the spec); else None."""
    if not (request.chart and project is not None and project.source_repos):
        return None
    if "argocd" not in fleet.engines:
        return None
    repo = repo_url(str(chart_call(request.chart).kwargs["repo"]))
    return None if repo_permitted(project.source_repos, repo) else repo


def add_env(
    spec: Path, request: EnvRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Environment(name=..., sync=SyncPolicy(...))`` at the end of the environments, or
    after ``after``."""
    spec = spec.resolve()
    call = env_call(request.name, check_sync(request.sync))
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.environments, "environment", request.name)
    if request.after is not None and request.after not in {e.name for e in fleet.environments}:
        known = ", ".join(e.name for e in fleet.environments) or "none"
        raise UsageError(f"--after {request.after!r}: no such environment (known: {known})")
    return edit_validated(
        spec,
        "the new environments entry",
        _inserting(spec, "environments", call, request.after),
        {},
        lambda p: p.env == request.name,
        dry_run,
        out,
    )


def add_engine(
    spec: Path, request: EngineRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Add ``request.engine`` to the Fleet's ``engines`` (when it is not listed) and set it as
    the ``engine=`` of the environments ``request.envs``. A fleet that had one engine keeps its
    other environments on it (their ``engine=`` set to it, as a fleet with two engines must name
    each placement's): nothing moves that the request does not name."""
    spec = spec.resolve()
    engine = check_engine(request.engine)
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    width = line_length(spec.parent)
    envs = {env.name: env for env in fleet.environments}
    unknown = [name for name in request.envs if name not in envs]
    if unknown:
        known = ", ".join(envs) or "none"
        raise UsageError(f"--envs {unknown[0]!r}: no such environment (known: {known})")
    only = fleet.engines[0] if len(fleet.engines) == 1 else None
    moved = [name for name in dict.fromkeys(request.envs) if (envs[name].engine or only) != engine]
    listed = engine in fleet.engines
    if listed and not moved:
        on = f", and environment(s) {', '.join(request.envs)} run on it" if request.envs else ""
        raise UsageError(
            f"the fleet lists engine {engine!r} already{on}; name the environments it "
            "should take over with --envs ENV"
        )
    kept = (
        [e.name for e in fleet.environments if e.engine is None and e.name not in moved]
        if not listed and only is not None
        else []
    )

    def change(source: str) -> str:
        if not listed:
            source = edit.extend_fleet(
                source, "engines", py_literal(engine), py_literal([*fleet.engines, engine])
            )
        for name, value in [*((n, engine) for n in moved), *((n, only) for n in kept)]:
            source = edit.set_keyword(
                source, "environments", name, "engine", py_literal(value), width
            )
        return source

    added = edit_validated(
        spec,
        "an edited line",
        change,
        {},
        lambda p: p.engine == engine and (not request.envs or p.env in request.envs),
        dry_run,
        out,
    )
    return replace(added, pinned=tuple(kept))


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
    call = project_call(request.name, list(request.namespaces), request.description)
    return edit_validated(
        spec,
        "the new projects entry",
        _inserting(spec, "projects", call),
        {},
        lambda p: False,
        dry_run,
        out,
    )


def _inserting(
    spec: Path, field: str, call: Call, after: str | None = None
) -> Callable[[str], str]:
    """The edit inserting ``call`` into the Fleet's ``field`` list (after its element named
    ``after``), laid out to the line length fleet.py is formatted with."""
    width = line_length(spec.parent)
    names = sorted(call_names(call))
    return lambda source: edit.insert(source, field, call, names, after, width)


def _unique(existing: Sequence[Environment | Project | App], kind: str, name: str) -> None:
    if any(item.name == name for item in existing):
        raise UsageError(f"{kind} {name!r} exists in fleet.py; pick another name")


def edit_validated(
    spec: Path,
    edited_what: str,
    change: Callable[[str], str],
    files: Mapping[str, str],
    wanted: Callable[[Placement], bool],
    dry_run: bool,
    out: Path | None,
) -> Added:
    """Edit (``change``), validate, then (unless ``dry_run``) write new files, fleet.py and
    output/. A problem on a line the edit wrote says it is "in ``edited_what``"."""
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
        raise SpecError(_on_disk(error.problems, str(spec), source, edited, edited_what)) from None
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
            write_new(root / path, text)
        atomic_write(spec, edited.encode(), spec.stat().st_mode)
        writer.write(compiled.out_dir, compiled.rendered, VERSION)
    placements = tuple(p for p in compiled.plan.placements if wanted(p))
    return Added(diff, tuple(files), tuple(changes), compiled, placements, not dry_run)


def _on_disk(
    problems: list[Problem], spec: str, source: str, edited: str, edited_what: str
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
            f"in {edited_what}: {p.message}" if p.line in inserted else p.message,
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


def write_new(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:
        handle.write(text)
