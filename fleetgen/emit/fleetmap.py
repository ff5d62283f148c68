"""The fleet map ``README.md``: apps × clusters by environment with each placement's engine, rollout
waves, image and chart versions per environment, each cluster's credential kind, project boundaries.

Engine-neutral and rendered from ``templates/fleetmap.md.j2``, so a reviewer sees on the Git host
where everything runs without reading the generated YAML.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import get_args

from fleetgen.emit.common import NEWER_FIELDS, cluster_labels
from fleetgen.errors import Problem
from fleetgen.fields import release
from fleetgen.model import AwsAuth, Credentials, Engine, Environment, ExternalSecretRef, Project
from fleetgen.output import OutputFile
from fleetgen.plan import ImageRef, Placement, Plan, merge_sync
from fleetgen.templating import md_cell, render

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
    """Nothing risky to report about the fleet map."""
    return []


def emit(plan: Plan) -> list[OutputFile]:
    """``README.md`` at the root of the output directory."""
    placed = placed_by_app(plan)
    on = clusters_by_engine(plan)
    text = render("fleetmap.md.j2", fleet=plan.fleet, tables=env_tables(plan, placed),
                  projects=project_views(plan, placed), floors=floors(plan),
                  apps=len(placed), engines=cluster_engines(plan, on),
                  placements=len(plan.placements), charts=chart_rows(plan, placed),
                  images=image_rows(plan, placed), credentials=credential_kinds(plan, on),
                  labels=label_cells(plan), remotes=remote_rows(plan),
                  external=external_rows(plan, on))
    return [OutputFile(PATH, text=text)]


Placed = Mapping[str, Mapping[str, Sequence[Placement]]]  # app -> env -> placements, Plan order


def placed_by_app(plan: Plan) -> Placed:
    """The Plan's placements by app and environment (one walk, which every table reads)."""
    found: defaultdict[str, defaultdict[str, list[Placement]]] = defaultdict(
        lambda: defaultdict(list))
    for placement in plan.placements:
        found[placement.app][placement.env].append(placement)
    return found


def clusters_by_engine(plan: Plan) -> dict[str, set[str]]:
    """engine -> the clusters it places something on."""
    return {engine: {p.cluster for p in plan.placements if p.engine == engine}
            for engine in get_args(Engine)}


def env_tables(plan: Plan, placed: Placed) -> list[EnvTable]:
    """A table per environment that has clusters, in spec order."""
    layered: defaultdict[str, set[str]] = defaultdict(set)  # app -> clusters with a layer
    for overlay in plan.cluster_overlays:
        layered[overlay.app].add(overlay.cluster)
    tables = []
    for env in plan.fleet.environments:
        # An empty wave (a catch-all step with no cluster left) comes after every other one.
        waves = tuple(wave for wave in plan.waves.get(env.name, ()) if wave)
        in_waves = [name for wave in waves for name in wave]
        waved = set(in_waves)
        others = sorted(c.name for c in plan.fleet.clusters
                        if c.env == env.name and c.name not in waved)
        clusters = (*in_waves, *others)
        if not clusters:
            continue
        rows = []
        for app in sorted(placed):
            if env.name in placed[app]:
                mine = layered[app]
                cells = {p.cluster: _cell(p, p.cluster in mine) for p in placed[app][env.name]}
                rows.append((app, " | ".join([cells.get(c, "·") for c in clusters])))
        automated = merge_sync(plan.fleet.sync, env.sync, "env", {}).automated
        tables.append(EnvTable(env, clusters, waves, tuple(rows), automated))
    return tables


def _cell(placement: Placement, layered: bool) -> str:
    text = placement.engine if placement.wave is None else (
        f"{placement.engine} wave {placement.wave}")
    return f"{text} +" if layered else text


def cluster_engines(plan: Plan, on: Mapping[str, set[str]]) -> dict[str, str]:
    """cluster -> the engines of the placements on it, joined (``—`` for none); ``on``:
    `clusters_by_engine`."""
    return {c.name: ", ".join(sorted(engine for engine, names in on.items() if c.name in names))
            or "—" for c in plan.fleet.clusters}


@dataclass(frozen=True, slots=True)
class ChartRow:
    """A chart app: its chart and the chart version(s) each environment runs."""

    app: str
    chart: str
    versions: tuple[tuple[str, str], ...]  # (env, versions joined, or "·")


def chart_rows(plan: Plan, placed: Placed) -> list[ChartRow]:
    """One row per chart app, environments in spec order."""
    rows = []
    for app in sorted((a for a in plan.fleet.apps if a.chart is not None), key=lambda a: a.name):
        chart = app.chart
        assert chart is not None
        by_env = placed.get(app.name, {})
        if not any(p.chart is not None for ps in by_env.values() for p in ps):
            continue
        versions = tuple((env.name, ", ".join(sorted({p.chart.version
                                                      for p in by_env.get(env.name, ())
                                                      if p.chart})) or "·")
                         for env in plan.fleet.environments)
        source = (f"{chart.path} (in this repository)" if chart.path
                  else f"{chart.name} from {chart.repo}")
        rows.append(ChartRow(app.name, source, versions))
    return rows


@dataclass(frozen=True, slots=True)
class ImageRow:
    """One image of a kustomize app's base: what each environment runs instead of it."""

    app: str
    image: str  # as the base writes it
    versions: tuple[tuple[str, str], ...]  # (env, references joined, or "·")


def image_rows(plan: Plan, placed: Placed) -> list[ImageRow]:
    """One row per (app, overridden image), environments in spec order; a cell lists every
    distinct reference the environment's placements of the app run (per_cluster layers
    included)."""
    found: dict[tuple[str, str], dict[str, set[str]]] = {}
    for app, by_env in placed.items():
        for env, placements in by_env.items():
            # The placements on one overlay share its Settings: read each object's images once.
            distinct = {id(p.settings): p.settings for p in placements if p.chart is None}
            for settings in distinct.values():
                for name, ref in settings.images.items():
                    by_name = found.setdefault((app, name), {})
                    by_name.setdefault(env, set()).add(image_reference(ref))
    return [ImageRow(app, image, tuple((env.name, ", ".join(sorted(by_env.get(env.name, ())))
                                        or "·") for env in plan.fleet.environments))
            for (app, image), by_env in sorted(found.items())]


def image_reference(ref: ImageRef) -> str:
    """``repository:tag@sha256:123456789abc…`` (a digest shortened to 12 hex digits)."""
    text = ref.current_name
    if ref.tag:
        text += f":{ref.tag}"
    if ref.digest:
        algorithm, _, digest = ref.digest.partition(":")
        text += f"@{algorithm}:{digest[:12]}…"
    return text


def label_cells(plan: Plan) -> dict[str, str]:
    """cluster -> its labels as one table cell, ``key=value, …`` by key ignoring case (as Jinja's
    ``dictsort``, which the template used; a Python loop is much faster than one in Jinja)."""
    return {c.name: ", ".join(f"{md_cell(key)}={md_cell(value)}" for key, value in
                              sorted(c.labels.items(), key=lambda item: item[0].lower()))
            for c in plan.fleet.clusters}


def credential_kinds(plan: Plan, on: Mapping[str, set[str]]) -> dict[str, str]:
    """cluster -> how the engines reach it: the kind of its credentials when an engine that
    connects from outside (Argo CD, a Flux hub) places apps on it, else how Flux runs there;
    ``on``: `clusters_by_engine`."""
    argocd, flux = on.get("argocd", set()), on.get("flux", set())
    kinds = {}
    for cluster in plan.fleet.clusters:
        remote = cluster.name in argocd or (cluster.name in flux and plan.fleet.flux.mode == "hub"
                                            and cluster.name != plan.fleet.flux.hub)
        credentials = plan.credentials.get(cluster.name)
        if remote:
            kinds[cluster.name] = credential_kind(credentials)
        else:
            kinds[cluster.name] = ("in-cluster (Flux pulls)"
                                   if any(cluster.name in names for names in on.values()) else "—")
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


def external_rows(plan: Plan, on: Mapping[str, set[str]]) -> list[tuple[str, str, str]]:
    """(cluster, server, labels) of each external registration with an Argo CD placement: what
    the tool that owns its cluster Secret must set, since the ApplicationSets select by it;
    ``on``: `clusters_by_engine`."""
    placed = on.get("argocd", set())
    return [(c.name, c.server.rstrip("/"),
             ", ".join(f"{key}={value}" for key, value in cluster_labels(plan, c).items()))
            for c in sorted(plan.fleet.clusters, key=lambda c: c.name)
            if c.registration == "external" and c.name in placed]


def remote_rows(plan: Plan) -> list[tuple[str, str, str, str]]:
    """(app, source URL, revision, path) of each placed app from another source, by name."""
    placed = {p.app: p.remote for p in plan.placements if p.remote is not None}
    return [(app, remote.source.url, remote.source.target_revision, remote.path)
            for app, remote in sorted(placed.items())]


def project_views(plan: Plan, placed: Placed) -> list[ProjectView]:
    """Each project with the apps it holds and the clusters they run on, by name."""
    views = []
    for project in sorted(plan.fleet.projects, key=lambda p: p.name):
        apps = sorted(app.name for app in plan.fleet.apps if app.project == project.name)
        placements = [p for app in apps for ps in placed.get(app, {}).values() for p in ps]
        clusters = sorted({p.cluster for p in placements})
        views.append(ProjectView(project, tuple(apps), tuple(clusters),
                                 tuple(project.source_repos or _read_repos(plan, placements))))
    return views


def _read_repos(plan: Plan, placements: list[Placement]) -> list[str]:
    """The repositories placements read, as written: the fleet's (overlays and charts kept in
    it, or no placement yet), chart repositories, other sources."""
    own = any(p.remote is None and not (p.chart and p.chart.repo) for p in placements)
    others = sorted({p.chart.repo for p in placements if p.chart and p.chart.repo} |
                    {p.remote.source.url for p in placements if p.remote})
    return [plan.fleet.repo] * (own or not placements) + others


def floors(plan: Plan) -> list[Floor]:
    """The controller versions the output needs, for the engines the fleet uses."""
    fleet = plan.fleet
    found = []
    for engine, label, options in (("argocd", "Argo CD", fleet.argocd),
                                   ("flux", "Flux", fleet.flux)):
        if engine not in fleet.engines:
            continue
        current = release(options.min_version)
        unlocks = tuple((since, what, current >= release(since))
                        for since, what in NEWER_FIELDS[engine])
        option = f'{type(options).__name__}(min_version="{options.min_version}")'
        found.append(Floor(label, option, options.min_version, unlocks))
    return found
