"""One public function per command: the only code the command line calls.

Each takes the command's arguments as values, refuses a path that cannot be what the command needs
(a ``UsageError`` naming it, before any work), runs the pipeline (`fleetgen.pipeline.api`) or the
feature, and returns what the command line presents. Everything that goes wrong is a
`fleetgen.errors.FleetgenError` or an ``OSError`` of the file system; the command line turns both
into messages and exit codes in one place.

Each function imports the modules it runs when it is called, so that importing this module (as the
command line does for ``--version``, ``--help`` and shell completion) loads none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fleetgen.errors import UsageError
from fleetgen.util.progress import SILENT, Progress

if TYPE_CHECKING:
    from fleetgen import importer as adopt, scaffold, validate as validation
    from fleetgen.diffs.report import Report
    from fleetgen.emit.versions import Row
    from fleetgen.explain import explanation as explaining
    from fleetgen.pipeline import api
    from fleetgen.resolver.plan import Plan


def build(
    spec: Path,
    out: Path | None = None,
    *,
    use_cache: bool = True,
    drained: Sequence[str] = (),
    all_drained: bool = False,
) -> api.BuildResult:
    """``fleetgen build``: compile ``spec`` and write the output tree (``--no-cache``: without
    trusting the build cache; ``--drained``/``--all-drained``: drop what drains)."""
    from fleetgen.pipeline import api

    return api.build(
        spec,
        _directory(out, "--out"),
        use_cache=use_cache,
        drained=drained,
        all_drained=all_drained,
    )


def check(spec: Path, out: Path | None = None, *, use_cache: bool = True) -> api.CheckResult:
    """``fleetgen build --check``: compare the output tree with a fresh build."""
    from fleetgen.pipeline import api

    return api.check(spec, _directory(out, "--out"), use_cache=use_cache)


def validate(
    spec: Path,
    crds: Sequence[Path] = (),
    *,
    render: bool = False,
    k8s_version: str | None = None,
    charts: Path | None = None,
    progress: Progress = SILENT,
) -> validation.Report:
    """``fleetgen validate``: schema checks and contracts of what ``spec`` emits (and,
    ``render``, renders; ``charts``: the local chart cache), its phases reported to
    ``progress``."""
    from fleetgen import validate as validation

    return validation.validate(
        spec,
        crds=crds,
        render=render,
        k8s_version=k8s_version,
        charts=charts,
        progress=progress,
    )


def diff(
    spec: Path,
    base: str | None = None,
    head: str | None = None,
    *,
    render: bool = False,
    json_file: Path | None = None,
    charts: Path | None = None,
    progress: Progress = SILENT,
) -> Report:
    """``fleetgen diff``: what the spec change from ``base`` to ``head`` does; the JSON report
    also goes to ``json_file`` when given. ``charts``: as ``validate --charts``; its phases
    reported to ``progress``."""
    if json_file is not None:
        _writable_file(json_file, "--json-file")
    if charts is not None and not render:
        raise UsageError("--charts: charts are rendered only with --render")
    if charts is not None and not charts.is_dir():
        raise UsageError(f"--charts {charts}: not a directory")
    from fleetgen.diffs import compare, formats

    report = compare.diff(spec, base, head, render=render, charts_dir=charts, progress=progress)
    if json_file is not None:
        json_file.write_text(formats.to_json(report), encoding="utf-8")
    return report


def promote(
    spec: Path,
    apps: Sequence[str],
    *,
    source: str,
    target: str,
    all_apps: bool = False,
    cluster: str | None = None,
    dry_run: bool = False,
    branch: str | None = None,
    out: Path | None = None,
) -> scaffold.Promoted:
    """``fleetgen promote``: write the versions ``source`` runs of ``apps`` into their
    ``per_env[target]``, rebuild the output, say what it reaches (``diff``'s blast radius);
    ``branch``: commit it there."""
    if branch is not None and dry_run:
        raise UsageError("--branch commits the promotion: not with --dry-run")
    from fleetgen import scaffold

    request = scaffold.PromoteRequest(tuple(apps), source, target, all_apps, cluster)
    return scaffold.promote(
        spec,
        request,
        dry_run=dry_run,
        out=_directory(out, "--out"),
        branch=branch,
        blast=lambda before, after: _blast(spec, before, after),
    )


def _blast(spec: Path, before: str, after: str) -> list[str]:
    """The blast radius of changing ``spec`` from ``before`` to ``after``, as ``diff`` reports
    it; outside a Git repository, why there is none."""
    from fleetgen.diffs import compare, formats
    from fleetgen.diffs.refs import RefError

    try:
        return formats.blast(compare.edited(spec, before, after))
    except RefError as error:
        return [f"# blast radius: not computed ({error})"]


def versions(
    spec: Path, apps: Sequence[str] = (), check_order: Sequence[str] = ()
) -> tuple[Plan, list[Row], list[str]]:
    """``fleetgen versions``: the Plan of ``spec``, the versions rows of ``apps`` (default: every
    app) and, for ``check_order`` (environments, earliest first), where a later one runs a
    version no earlier one runs."""
    from fleetgen.emit import versions as versioning
    from fleetgen.pipeline import api

    plan = api.compile_spec(spec).plan
    unknown = sorted(set(apps) - {app.name for app in plan.fleet.apps})
    if unknown:
        raise UsageError(f"no such app: {', '.join(unknown)}")
    envs = [env.name for env in plan.fleet.environments]
    stray = [env for env in check_order if env not in envs]
    if stray:
        raise UsageError(
            f"--check-order: no such environment: {', '.join(stray)} (known: {', '.join(envs)})"
        )
    rows = versioning.rows(plan, apps or None)
    return plan, rows, versioning.order_findings(rows, check_order)


def explain(spec: Path, name: str | None = None) -> explaining.Explanation:
    """``fleetgen explain``: where apps run and which layer set each value."""
    from fleetgen.explain import explanation as explaining

    return explaining.explain(spec, name)


def init(
    directory: Path, name: str | None = None, repo: str | None = None, engine: str = "argocd"
) -> scaffold.Initialized:
    """``fleetgen init``: a new fleet repo in ``directory``, or an existing repository adopted;
    what it did to each file."""
    _directory(directory, "DIR")
    from fleetgen import scaffold

    return scaffold.init(directory, name, repo, engine)


def add_cluster(
    spec: Path,
    name: str,
    *,
    env: str,
    server: str,
    labels: Sequence[str] = (),
    credentials: str | None = None,
    engine: str | None = None,
    ca_data: Path | None = None,
    ca_file: Path | None = None,
    cluster_vars: Sequence[str] = (),
    dry_run: bool = False,
    out: Path | None = None,
) -> scaffold.Added:
    """``fleetgen add cluster``: insert the cluster into fleet.py and rebuild the output;
    ``labels`` and ``cluster_vars`` are ``KEY=VALUE`` strings, ``ca_data`` a file holding the
    cluster's CA (inlined), ``ca_file`` one inside the repository that fleet.py refers to."""
    from fleetgen import scaffold

    request = scaffold.ClusterRequest(
        name,
        env,
        server,
        scaffold.parse_pairs(labels),
        credentials,
        engine,
        scaffold.read_ca_data(ca_data) if ca_data else None,
        _in_repository(ca_file, spec, "--ca-file") if ca_file else None,
        scaffold.parse_pairs(cluster_vars, "--var"),
    )
    return scaffold.add_cluster(spec, request, dry_run=dry_run, out=_directory(out, "--out"))


def add_app(
    spec: Path,
    name: str,
    *,
    project: str,
    namespace: str,
    envs: Sequence[str] = (),
    image: str | None = None,
    image_name: str | None = None,
    chart: str | None = None,
    path: str | None = None,
    extend_project: bool = False,
    dry_run: bool = False,
    out: Path | None = None,
) -> scaffold.Added:
    """``fleetgen add app``: create the app's base (none for a ``chart`` app,
    ``REPO/NAME@VERSION``; ``path``: an existing base used as it is), insert it into fleet.py
    (``extend_project``: adding the namespace to its project; ``image_name``: the image of the
    base ``image`` sets), rebuild the output."""
    from fleetgen import scaffold

    request = scaffold.AppRequest(
        name, project, namespace, tuple(envs), image, chart, path, extend_project, image_name
    )
    return scaffold.add_app(spec, request, dry_run=dry_run, out=_directory(out, "--out"))


def add_env(
    spec: Path,
    name: str,
    *,
    after: str | None = None,
    dry_run: bool = False,
    out: Path | None = None,
) -> scaffold.Added:
    """``fleetgen add env``: insert the environment (after ``after``), rebuild the output."""
    from fleetgen import scaffold

    return scaffold.add_env(
        spec, scaffold.EnvRequest(name, after), dry_run=dry_run, out=_directory(out, "--out")
    )


def add_engine(
    spec: Path,
    engine: str,
    *,
    envs: Sequence[str] = (),
    dry_run: bool = False,
    out: Path | None = None,
) -> scaffold.Added:
    """``fleetgen add engine``: list the engine in the fleet, move the environments ``envs`` to
    it, rebuild the output."""
    from fleetgen import scaffold

    request = scaffold.EngineRequest(engine, tuple(envs))
    return scaffold.add_engine(spec, request, dry_run=dry_run, out=_directory(out, "--out"))


def add_project(
    spec: Path,
    name: str,
    *,
    namespaces: Sequence[str],
    description: str = "",
    dry_run: bool = False,
    out: Path | None = None,
) -> scaffold.Added:
    """``fleetgen add project``: insert the project, rebuild the output."""
    from fleetgen import scaffold

    request = scaffold.ProjectRequest(name, tuple(namespaces), description)
    return scaffold.add_project(spec, request, dry_run=dry_run, out=_directory(out, "--out"))


def import_repo(directory: Path, *, dry_run: bool = False) -> adopt.Imported:
    """``fleetgen import``: a first fleet.py from the Flux or Argo CD repository at
    ``directory``."""
    _directory(directory, "DIR")
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such directory (DIR)")
    from fleetgen import importer as adopt

    return adopt.import_repo(directory, dry_run=dry_run)


def _in_repository(path: Path, spec: Path, option: str) -> str:
    """``path`` (relative to the current folder) relative to the folder holding ``spec``, which
    it must be inside: the spec refers to it, at every build and at other Git refs."""
    root = spec.resolve().parent
    found = path.resolve()
    if not found.is_relative_to(root):
        raise UsageError(
            f"{option} {path}: not inside the repository ({root}); fleet.py refers to the "
            "file, read at every build: copy it into the repository first"
        )
    return found.relative_to(root).as_posix()


def _directory(path: Path | None, option: str) -> Path | None:
    """``path``, refused when a file stands where it or one of its parents should be a folder."""
    if path is not None:
        _no_file_in(path, (path, *path.parents), option)
    return path


def _writable_file(path: Path, option: str) -> None:
    """Refuse ``path`` when it is a directory or its parent cannot hold a file."""
    if path.is_dir():
        raise UsageError(f"{path}: is a directory ({option} needs a file)")
    _no_file_in(path, path.parents, option)
    if not path.parent.exists():
        raise UsageError(f"{path.parent}: no such directory ({option} {path})")


def _no_file_in(path: Path, folders: Sequence[Path], option: str) -> None:
    for folder in folders:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{folder}: not a directory ({option} {path})")
