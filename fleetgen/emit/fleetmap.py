"""The fleet map ``README.md``: apps × clusters by environment with each placement's engine, rollout
waves, image and chart versions per environment, each cluster's credential kind, how each engine
is bootstrapped, project boundaries, and the versions matrix of ``fleetgen versions``.

Engine-neutral and rendered from ``templates/fleetmap.md.j2``, so a reviewer sees on the Git host
where everything runs without reading the generated YAML. In two parts, so that a build reuses
what an unchanged app shows: `app_rows`, one app's rows as plain data, and `emit_rows`, which
folds every app's rows with the fleet's shared data.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict, get_args

from fleetgen.emit import pictures, versions
from fleetgen.emit.common import (
    NEWER_FIELDS,
    argocd_bootstrap,
    cluster_labels,
    flux_bootstrap,
)
from fleetgen.errors import Problem, at
from fleetgen.model import (
    App,
    ArgoOptions,
    AwsAuth,
    Credentials,
    Engine,
    Environment,
    ExternalSecretRef,
    Fleet,
    FluxOptions,
    Project,
)
from fleetgen.model.fields import VAR_PREFIX, placeholder_note, release
from fleetgen.resolver.plan import ImageRef, Placement, Plan, merge_sync
from fleetgen.util.layout import argocd_directory
from fleetgen.util.templating import md_cell, render
from fleetgen.write.output import OutputFile

PATH = "README.md"


@dataclass(frozen=True, slots=True)
class EnvTable:
    """One environment's placement table: cluster columns (in wave order) and one row per app."""

    env: Environment
    clusters: tuple[str, ...]
    waves: tuple[tuple[str, ...], ...]
    rows: tuple[tuple[str, str], ...]  # (app, its cell per cluster joined by " | ")
    automated: bool  # the environment's effective sync policy (the fleet's, then its own)


@dataclass(frozen=True, slots=True)
class ProjectView:
    """A project boundary and what runs inside it."""

    project: Project
    apps: tuple[str, ...]
    clusters: tuple[str, ...]
    repos: tuple[str, ...] = ()  # what its apps may read: source_repos, else what they read


@dataclass(frozen=True, slots=True)
class Floor:
    """The oldest release of one engine the output needs, and what a higher one unlocks."""

    engine: str  # as users name it: Argo CD, Flux
    option: str  # the spec setting, e.g. ArgoOptions(min_version="3.3")
    version: str
    unlocks: tuple[tuple[str, str, bool], ...]  # (release, what, in use)


def check(plan: Plan) -> list[Problem]:
    """The fleet map expresses every Plan: nothing to report."""
    return []


def warnings(plan: Plan) -> list[Problem]:
    """The fleet's repo (the map's Source, which both engines read) still a placeholder; apps
    whose ``depends_on`` no placement honours (all on Argo CD, which syncs Applications
    independently; where Flux places them too it does, and the map and ``explain`` say what
    Argo CD does with it)."""
    note = placeholder_note(plan.fleet.repo)
    found = [at(plan.fleet, note, plan.fleet)] if note else []
    on_flux = {p.app for p in plan.placements if p.engine == "flux"}
    return found + [
        at(
            app,
            f"app {app.name!r}: depends_on has no effect: every placement of it is on Argo CD, "
            "which syncs Applications independently (sync waves do not order generated apps)",
            plan.fleet,
        )
        for app in plan.fleet.apps
        if app.depends_on and app.name in plan.by_app() and app.name not in on_flux
    ]


def emit(plan: Plan) -> list[OutputFile]:
    """``README.md`` at the root of the output directory: `emit_rows` with every placed app's
    `rows`."""
    return emit_rows(plan, rows(plan))


def rows(plan: Plan) -> dict[str, AppRows]:
    """Every placed app's rows of the fleet map, by name."""
    columns = Columns.of(plan)
    specs = {app.name: app for app in plan.fleet.apps}
    layered: defaultdict[str, set[str]] = defaultdict(set)  # app -> clusters with its own layer
    for overlay in plan.cluster_overlays:
        layered[overlay.app].add(overlay.cluster)
    return {
        app: app_rows(plan, specs[app], placements, columns, layered[app])
        for app, placements in plan.by_app().items()
    }


Versions = tuple[tuple[str, str], ...]  # (env, what it runs joined, or "·"), envs in spec order


class AppRows(TypedDict):
    """What the fleet map shows of one app."""

    placements: int  # how many it has
    envs: dict[str, str]  # env it runs in -> its table row: a cell per cluster column, " | "
    chart: tuple[str, Versions] | None  # a placed chart app: (its chart, versions per env)
    images: tuple[tuple[str, Versions], ...]  # (base image, references per env), by image
    # without overlay: (URL, revision, path) of another source; ("", "", path) a plain directory
    remote: tuple[str, str, str] | None
    clusters: dict[str, int]  # engine -> the clusters it runs the app on: bit i set for the
    #                           i-th of fleet.clusters (Python's ints are unbounded)
    own_repo: bool  # whether a placement reads the fleet's repository
    repos: tuple[str, ...]  # the other repositories its placements read, sorted
    runtime_vars: tuple[str, ...]  # the ClusterVars its ApplicationSets read when they run
    versions: tuple[str, ...]  # its rows of the versions matrix (`versions_section`)


@dataclass(frozen=True, slots=True)
class Columns:
    """What every app's rows are laid out by, the same for all apps of a Plan: each cluster's
    bit, each environment's waves and cluster columns (`env_columns`)."""

    bits: Mapping[str, int]
    envs: Mapping[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]

    @classmethod
    def of(cls, plan: Plan) -> Columns:
        """The columns of ``plan``."""
        return cls(
            {cluster.name: bit for bit, cluster in enumerate(plan.fleet.clusters)},
            env_columns(plan),
        )


def app_rows(
    plan: Plan,
    spec: App,
    placements: Sequence[Placement],
    columns: Columns,
    layered: Collection[str],
) -> AppRows:
    """The rows of the app ``spec``, placed as ``placements``; ``columns``: `Columns.of` the
    Plan; ``layered``: the clusters where the app has a layer of its own."""
    by_env: defaultdict[str, list[Placement]] = defaultdict(list)
    clusters: defaultdict[str, int] = defaultdict(int)
    for placement in placements:
        by_env[placement.env].append(placement)
        clusters[placement.engine] |= 1 << columns.bits[placement.cluster]
    others = {p.chart.repo for p in placements if p.chart and p.chart.repo} | {
        p.remote.source.url for p in placements if p.remote and p.remote.source
    }
    remote = next(
        (
            (
                p.remote.source.url if p.remote.source else "",
                p.remote.source.target_revision if p.remote.source else "",
                # every directory its placements read (Overrides(path=...)), in Plan order
                ", ".join(dict.fromkeys(q.remote.path for q in placements if q.remote)),
            )
            for p in reversed(placements)
            if p.remote
        ),
        None,
    )
    return AppRows(
        placements=len(placements),
        envs=_env_rows(columns, by_env, layered),
        chart=_chart_row(plan, spec, by_env),
        images=_image_rows(plan, by_env),
        remote=remote,
        clusters=dict(clusters),
        own_repo=any(p.reads_fleet_repo for p in placements),
        repos=tuple(sorted(others)),
        runtime_vars=tuple(
            sorted({name for p in placements if p.template for name in p.template.var_names()})
        ),
        versions=tuple(versions.markdown_rows(plan, versions.of_app(plan, spec.name, placements))),
    )


def emit_rows(plan: Plan, rows: Mapping[str, AppRows]) -> list[OutputFile]:
    """``README.md`` from the Plan's shared data and ``rows``: app -> its `app_rows`, for every
    placed app (an unplaced app's rows add nothing). Reads no placement or overlay."""
    apps = sorted(rows.items())
    on = clusters_by_engine(plan, rows)
    engines = cluster_engines(plan, on)
    views = pictures.env_views(plan.fleet)
    text = render(
        "fleetmap.md.j2",
        fleet=plan.fleet,
        tables=env_tables(plan, apps),
        projects=project_views(plan, rows),
        floors=floors(plan),
        apps=sum(1 for _, row in apps if row["placements"]),
        engines=engines,
        pictures=(pictures.environments(views, engines), pictures.rollouts(views)),
        placements=sum(row["placements"] for _, row in apps),
        charts=[ChartRow(app, *row["chart"]) for app, row in apps if row["chart"]],
        common_metadata=_common_metadata(plan),
        images=[
            ImageRow(app, image, versions) for app, row in apps for image, versions in row["images"]
        ],
        credentials=credential_kinds(plan, on),
        labels=label_cells(plan),
        remotes=[(app, *row["remote"]) for app, row in apps if row["remote"] and row["remote"][0]],
        directories=[
            (app, row["remote"][2]) for app, row in apps if row["remote"] and not row["remote"][0]
        ],
        remote_bases=[
            (app, plan.remote_bases[app], sorted(row["clusters"]))
            for app, row in apps
            if app in plan.remote_bases and row["placements"]
        ],
        external=external_rows(plan, on, rows),
        runtime_vars=[
            (app, _annotation_keys(row["runtime_vars"])) for app, row in apps if row["runtime_vars"]
        ],
        bootstrap=bootstrap_steps(plan, on),
        tenants=any(project.service_account for project in plan.fleet.projects),
    )
    matrix = [line for _, row in apps for line in row["versions"]]
    return [OutputFile(PATH, text=text + versions_section(plan, matrix))]


def _common_metadata(plan: Plan) -> bool:
    """Whether the fleet or an environment sets common labels or annotations."""
    fleet = plan.fleet
    return bool(fleet.common_labels or fleet.common_annotations) or any(
        env.common_labels or env.common_annotations for env in fleet.environments
    )


def env_columns(plan: Plan) -> dict[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]:
    """env -> (its rollout waves, its clusters: in wave order, then the others by name)."""
    by_env: defaultdict[str, list[str]] = defaultdict(list)
    for cluster in plan.fleet.clusters:
        by_env[cluster.env].append(cluster.name)
    found = {}
    for env in plan.fleet.environments:
        # An empty wave (a catch-all step with no cluster left) comes after every other one.
        waves = tuple(wave for wave in plan.waves.get(env.name, ()) if wave)
        in_waves = [name for wave in waves for name in wave]
        found[env.name] = (waves, (*in_waves, *sorted(set(by_env[env.name]).difference(in_waves))))
    return found


def _env_rows(
    columns: Columns, by_env: Mapping[str, Sequence[Placement]], layered: Collection[str]
) -> dict[str, str]:
    """env -> the app's row of its table (``+`` on a cluster with the app's own layer)."""
    found = {}
    for env, (_, clusters) in columns.envs.items():
        if env in by_env:
            cells = {p.cluster: _cell(p, p.cluster in layered) for p in by_env[env]}
            found[env] = " | ".join([cells.get(c, "·") for c in clusters])
    return found


def _cell(placement: Placement, layered: bool) -> str:
    text = (
        placement.engine
        if placement.wave is None
        else (f"{placement.engine} wave {placement.wave}")
    )
    return f"{text} +" if layered else text


def env_tables(plan: Plan, apps: Sequence[tuple[str, AppRows]]) -> list[EnvTable]:
    """A table per environment that has clusters, in spec order; ``apps``: (app, rows) by
    name."""
    tables = []
    found = env_columns(plan)
    for env in plan.fleet.environments:
        waves, clusters = found[env.name]
        if not clusters:
            continue
        rows = tuple((app, row["envs"][env.name]) for app, row in apps if env.name in row["envs"])
        automated = merge_sync(plan.fleet.sync, env.sync, "env", {}).automated
        tables.append(EnvTable(env, clusters, waves, rows, automated))
    return tables


def clusters_by_engine(plan: Plan, rows: Mapping[str, AppRows]) -> dict[str, set[str]]:
    """engine -> the clusters it places something on; ``rows``: as `emit_rows` takes them."""
    masks = dict.fromkeys(get_args(Engine), 0)
    for row in rows.values():
        for engine, mask in row["clusters"].items():
            masks[engine] |= mask
    return {engine: set(cluster_names(plan, mask)) for engine, mask in masks.items()}


def cluster_names(plan: Plan, mask: int) -> list[str]:
    """The clusters of an `AppRows` cluster mask, in spec order."""
    bits = bin(mask)[:1:-1]  # bit 0 first
    return [
        cluster.name for cluster, bit in zip(plan.fleet.clusters, bits, strict=False) if bit == "1"
    ]  # bits stop at the highest set one


def cluster_engines(plan: Plan, on: Mapping[str, set[str]]) -> dict[str, str]:
    """cluster -> the engines of the placements on it, joined (``—`` for none); ``on``:
    `clusters_by_engine`."""
    return {
        c.name: ", ".join(sorted(engine for engine, names in on.items() if c.name in names)) or "—"
        for c in plan.fleet.clusters
    }


@dataclass(frozen=True, slots=True)
class ChartRow:
    """A chart app: its chart and the chart version(s) each environment runs."""

    app: str
    chart: str
    versions: Versions


def _chart_row(
    plan: Plan, app: App, by_env: Mapping[str, Sequence[Placement]]
) -> tuple[str, Versions] | None:
    """A chart app's chart and the versions each environment runs (None: no chart placed)."""
    chart = app.chart
    if chart is None or not any(p.chart is not None for ps in by_env.values() for p in ps):
        return None
    versions = tuple(
        (
            env.name,
            ", ".join(sorted({p.chart.version for p in by_env.get(env.name, ()) if p.chart}))
            or "·",
        )
        for env in plan.fleet.environments
    )
    source = (
        f"{chart.path} (in this repository)" if chart.path else f"{chart.name} from {chart.repo}"
    )
    return source, versions


@dataclass(frozen=True, slots=True)
class ImageRow:
    """One image of a kustomize app's base: what each environment runs instead of it."""

    app: str
    image: str  # as the base writes it
    versions: Versions  # references joined, or "·"


def _image_rows(
    plan: Plan, by_env: Mapping[str, Sequence[Placement]]
) -> tuple[tuple[str, Versions], ...]:
    """(overridden image, what each environment runs) by image; a cell lists every distinct
    reference the environment's placements run (per_cluster layers included; a chart app's
    post-rendered images too)."""
    found: dict[str, dict[str, set[str]]] = {}
    for env, placements in by_env.items():
        # The placements on one overlay share its Settings: read each object's images once.
        distinct = {id(p.settings): p.settings for p in placements}
        for settings in distinct.values():
            for name, ref in settings.images.items():
                found.setdefault(name, {}).setdefault(env, set()).add(image_reference(ref))
    return tuple(
        (
            image,
            tuple(
                (env.name, ", ".join(sorted(refs.get(env.name, ()))) or "·")
                for env in plan.fleet.environments
            ),
        )
        for image, refs in sorted(found.items())
    )


def image_reference(ref: ImageRef) -> str:
    """``repository:tag@sha256:123456789abc…`` (a digest shortened to 12 hex digits)."""
    text = ref.current_name
    if ref.tag:
        text += f":{ref.tag}"
    if ref.digest:
        text += f"@{versions.short_digest(ref.digest)}"
    return text


def label_cells(plan: Plan) -> dict[str, str]:
    """cluster -> its labels as one table cell, ``key=value, …`` by key ignoring case (as Jinja's
    ``dictsort``, which the template used; a Python loop is much faster than one in Jinja)."""
    return {
        c.name: ", ".join(
            f"{md_cell(key)}={md_cell(value)}"
            for key, value in sorted(c.labels.items(), key=lambda item: item[0].lower())
        )
        for c in plan.fleet.clusters
    }


def credential_kinds(plan: Plan, on: Mapping[str, set[str]]) -> dict[str, str]:
    """cluster -> how the engines reach it: the kind of its credentials when an engine that
    connects from outside (Argo CD, a Flux hub) places apps on it (`Plan.reached`), else how
    Flux runs there; ``on``: `clusters_by_engine`."""
    kinds = {}
    for cluster in plan.fleet.clusters:
        credentials = plan.credentials.get(cluster.name)
        if cluster.name in plan.reached:
            kinds[cluster.name] = credential_kind(credentials)
        else:
            kinds[cluster.name] = (
                "in-cluster (Flux pulls)"
                if any(cluster.name in names for names in on.values())
                else "—"
            )
    return kinds


def credential_kind(credentials: Credentials | None) -> str:
    """A credentials object as a table cell: its kind and where it lives (never a value)."""
    if credentials is None:
        return "none"
    if isinstance(credentials, ExternalSecretRef):
        return f"external secret ({credentials.store_kind} {credentials.store})"
    if isinstance(credentials, AwsAuth):
        return "AWS IAM role"
    return f"exec ({credentials.command} {' '.join(credentials.args)})".rstrip()


def external_rows(
    plan: Plan, on: Mapping[str, set[str]], rows: Mapping[str, AppRows]
) -> list[tuple[str, str, str, str]]:
    """(cluster, server, labels, annotations) of each external registration with an Argo CD
    placement: what the tool that owns its cluster Secret must set, since the ApplicationSets
    select by the labels and read the cluster vars of their apps that select clusters at run
    time from the annotations (with the values fleet.py gives); ``on``: `clusters_by_engine`."""
    placed = on.get("argocd", set())
    found = []
    for bit, cluster in enumerate(plan.fleet.clusters):
        if cluster.registration != "external" or cluster.name not in placed:
            continue
        read = sorted(
            {
                name
                for row in rows.values()
                if row["clusters"].get("argocd", 0) >> bit & 1
                for name in row["runtime_vars"]
            }
        )
        labels = cluster_labels(plan, cluster).items()
        found.append(
            (
                cluster.name,
                cluster.server.rstrip("/"),
                ", ".join(f"{key}={value}" for key, value in labels),
                ", ".join(f"{VAR_PREFIX}{name}={cluster.vars[name]}" for name in read),
            )
        )
    return sorted(found)


def _annotation_keys(names: Iterable[str]) -> str:
    return ", ".join(VAR_PREFIX + name for name in names)


@dataclass(frozen=True, slots=True)
class BootstrapStep:
    """How one engine starts reading the output: once, on ``where``."""

    engine: str  # as users name it: Argo CD, Flux
    where: str
    command: str
    then: str  # what it then does by itself


def _argocd_steps(fleet: Fleet) -> list[BootstrapStep]:
    """The start of each Argo CD instance (the fleet's alone unless an environment has its own;
    the fleet's then only while it serves an environment)."""
    instances = fleet.argocd_instances
    return [
        BootstrapStep(
            "Argo CD" if len(instances) == 1 else f"Argo CD ({', '.join(instance.envs)})",
            "on the cluster Argo CD runs on"
            if len(instances) == 1
            else f"on the cluster the Argo CD of {', '.join(instance.envs)} runs on",
            argocd_bootstrap(fleet, instance),
            f"its root Application then syncs `{fleet.output_dir}/{instance.directory}/` from "
            f"`{fleet.revision}`: AppProjects, cluster registrations, ApplicationSets",
        )
        for instance in instances
        if instance.envs or len(instances) == 1
    ]


def bootstrap_steps(plan: Plan, on: Mapping[str, set[str]]) -> list[BootstrapStep]:
    """Each engine's one-time start, for the engines the fleet uses; ``on``:
    `clusters_by_engine`."""
    fleet = plan.fleet
    out = fleet.output_dir
    steps = []
    if "argocd" in fleet.engines:
        steps.extend(_argocd_steps(fleet))
    if "flux" in fleet.engines and fleet.flux.mode == "hub":
        steps.append(
            BootstrapStep(
                "Flux",
                f"on the hub {fleet.flux.hub} only, with kubectl pointing at it",
                flux_bootstrap(fleet, str(fleet.flux.hub)),
                f"the hub's Flux then reconciles every spoke from "
                f"`{out}/flux/clusters/{fleet.flux.hub}/spokes/`",
            )
        )
    elif "flux" in fleet.engines:
        placed = ", ".join(c.name for c in fleet.clusters if c.name in on.get("flux", ()))
        steps.append(
            BootstrapStep(
                "Flux",
                f"on each cluster it runs apps on ({placed or 'none yet'}), with kubectl "
                "pointing at it",
                flux_bootstrap(fleet, "<cluster>"),
                f"each cluster's Flux then applies `{out}/flux/clusters/<cluster>/`",
            )
        )
    return steps


def project_views(plan: Plan, rows: Mapping[str, AppRows]) -> list[ProjectView]:
    """Each project with the apps it holds and the clusters they run on, by name; ``rows``: as
    `emit_rows` takes them."""
    views = []
    for project in sorted(plan.fleet.projects, key=lambda p: p.name):
        apps = sorted(app.name for app in plan.fleet.apps if app.project == project.name)
        placed = [rows[app] for app in apps if app in rows and rows[app]["placements"]]
        mask = 0
        for row in placed:
            for engine_mask in row["clusters"].values():
                mask |= engine_mask
        views.append(
            ProjectView(
                project,
                tuple(apps),
                tuple(sorted(cluster_names(plan, mask))),
                tuple(project.source_repos or _read_repos(plan, placed)),
            )
        )
    return views


def _read_repos(plan: Plan, placed: Sequence[AppRows]) -> list[str]:
    """The repositories the placements of ``placed`` read, as written: the fleet's (overlays and
    charts kept in it, or no placement yet), chart repositories, other sources."""
    own = any(row["own_repo"] for row in placed)
    others = sorted({repo for row in placed for repo in row["repos"]})
    return [plan.fleet.repo] * (own or not placed) + others


def floors(plan: Plan) -> list[Floor]:
    """The controller versions the output needs, for the engines the fleet uses: an environment's
    own Argo CD instance too where its floor is not the fleet's (each instance's output uses the
    fields its own floor allows)."""
    fleet = plan.fleet
    found = []
    if "argocd" in fleet.engines:
        for instance in fleet.argocd_instances:
            options = instance.options
            if instance.directory == argocd_directory(None):
                found.append(_floor("argocd", "Argo CD", options, _min_version(options)))
            elif options.min_version != fleet.argocd.min_version:
                (env,) = instance.envs
                option = f'Environment(name="{env}", argocd={_min_version(options)})'
                found.append(_floor("argocd", f"Argo CD of {env}", options, option))
    if "flux" in fleet.engines:
        found.append(_floor("flux", "Flux", fleet.flux, _min_version(fleet.flux)))
    return found


def _min_version(options: ArgoOptions | FluxOptions) -> str:
    return f'{type(options).__name__}(min_version="{options.min_version}")'


def _floor(engine: str, label: str, options: ArgoOptions | FluxOptions, option: str) -> Floor:
    current = release(options.min_version)
    unlocks = tuple(
        (since, what, current >= release(since)) for since, what in NEWER_FIELDS[engine]
    )
    return Floor(label, option, options.min_version, unlocks)


def versions_section(plan: Plan, lines: Sequence[str]) -> str:
    """The versions matrix of ``lines`` (every app's `AppRows` ``versions``, as ``fleetgen
    versions --format markdown`` prints them) under its heading; empty without lines."""
    table = versions.markdown_table(plan, lines)
    return render("versions.md.j2", table=table) if table else ""
