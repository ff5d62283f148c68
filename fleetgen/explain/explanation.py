"""explain: where apps run and why — which layer (fleet, env, app, per_env, per_cluster) set each
effective value of a placement, and which apps and rollout waves a cluster has.

Built from the Plan alone: ``Settings.provenance`` names the layer of every value; a sync field no
layer sets is reported as ``default``; a value a `ClusterVar` set also names the var and the
cluster whose value it is (``Settings.resolved``). Flux's timing fields (interval, timeout,
retry_interval, wait) show what the placement's Flux object says, or what Flux does where it
says nothing (`fleetgen.resolver.plan.flux_timing`); an Argo CD placement shows them only where a
layer
sets them (Argo CD has none of them, and a build warns). A Flux chart app's install and upgrade
retries show whether ``HelmChart`` or the sync policy's ``retry`` set them
(`fleetgen.resolver.plan.helm_retries`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from fleetgen.errors import UsageError
from fleetgen.model import (
    App,
    AwsAuth,
    Cluster,
    ClusterVar,
    Credentials,
    ExecAuth,
    Fleet,
    SyncPolicy,
)
from fleetgen.pipeline.api import compile_spec
from fleetgen.resolver.layering import cascade_delete
from fleetgen.resolver.notify import explained
from fleetgen.resolver.plan import (
    SUSPENDED,
    ChartSource,
    Placement,
    Plan,
    Settings,
    remote_path,
)
from fleetgen.resolver.timing import TIMING_FIELDS, flux_timing, helm_retries
from fleetgen.resolver.values import value_path
from fleetgen.rules.flux import gate_name, wrapper_name

DEFAULT_LAYER = "default"


class UnknownName(UsageError, LookupError):
    """The name asked about is no app or cluster of the fleet, or is both."""


@dataclass(frozen=True, slots=True)
class Value:
    """One effective value of a placement and the layer that set it."""

    key: str  # a provenance key: image/<name>, replicas/<workload>, config/<cm>/<key>, ...
    value: Any  # JSON-able
    layer: str


@dataclass(frozen=True, slots=True)
class PlacementView:
    """One app on one cluster, with its effective values."""

    app: str
    cluster: str
    env: str
    engine: str  # the one engine that reconciles it
    wave: int | None
    overlay: str
    values: tuple[Value, ...]
    suspended: bool = False  # Flux holds it suspended: its sync is manual (`SUSPENDED`)


@dataclass(frozen=True, slots=True)
class AppView:
    """An app and every placement of it."""

    name: str
    project: str
    namespace: str | None  # None: the manifests say where things go
    path: str  # the kustomize base, or the chart (`chart_text`)
    depends_on: tuple[str, ...]
    placements: tuple[PlacementView, ...]


@dataclass(frozen=True, slots=True)
class ClusterView:
    """A cluster, its rollout wave and the apps it runs."""

    name: str
    env: str
    server: str
    labels: dict[str, str]
    credentials: str
    wave: int | None
    waves: int  # rollout waves of its environment (0: no rollout)
    apps: tuple[PlacementView, ...]
    # the output folder of the Argo CD instance that registers it, when the fleet has several
    argocd_instance: str | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """What ``explain`` reports: the apps and clusters asked about.

    Attributes:
        apps: Each app asked about: its placements and which layer set each value.
        clusters: Each cluster asked about: its apps and rollout waves.
    """

    apps: tuple[AppView, ...]
    clusters: tuple[ClusterView, ...]

    def to_json(self) -> str:
        """Indented JSON, newline-terminated."""
        return json.dumps(asdict(self), indent=2) + "\n"


def explain(spec: Path, name: str | None = None) -> Explanation:
    """Explain the app or cluster ``name`` of ``spec`` (the whole fleet when None)."""
    return explain_plan(compile_spec(spec).plan, name)


def explain_plan(plan: Plan, name: str | None = None) -> Explanation:
    """Explain the app or cluster ``name`` of ``plan`` (every app and cluster when None)."""
    views = [placement_view(plan, p) for p in plan.placements]
    apps = {app.name: _app_view(plan, app.name, views) for app in plan.fleet.apps}
    clusters = {c.name: _cluster_view(plan, c.name, views) for c in plan.fleet.clusters}
    if name is None:
        return Explanation(
            tuple(apps[n] for n in sorted(apps)), tuple(clusters[n] for n in sorted(clusters))
        )
    if name in apps and name in clusters:
        raise UnknownName(
            f"{name!r} is both an app and a cluster; explain the whole fleet "
            "(no argument) or use --format json and pick"
        )
    if name in apps:
        return Explanation((apps[name],), ())
    if name in clusters:
        return Explanation((), (clusters[name],))
    raise UnknownName(
        f"{name!r} is neither an app nor a cluster of fleet {plan.fleet.name!r}"
        + _close_names(name, [*apps, *clusters])
    )


def _close_names(name: str, names: Sequence[str], shown: int = 5) -> str:
    """What to say of the names close to ``name``: the closest few ("did you mean"), else the
    first names of the fleet (sorted), so the user sees what there is."""
    close = difflib.get_close_matches(name, names, n=3)
    if close:
        return f" (did you mean {' or '.join(repr(c) for c in close)}?)"
    known = sorted(names)
    more = f" and {len(known) - shown} more" if len(known) > shown else ""
    return f" (it has {', '.join(known[:shown])}{more})" if known else " (it has none)"


def placement_view(plan: Plan, placement: Placement) -> PlacementView:
    """A placement of ``plan`` with each effective value and the layer that set it."""
    found = []
    if placement.chart is not None:
        layer = placement.settings.provenance.get("chart/version", "app")
        found.append(Value("chart/version", placement.chart.version, layer))
    if placement.remote is not None:  # the directory of its source: App.path or Overrides(path)
        app = next(app for app in plan.fleet.apps if app.name == placement.app)
        layer = placement.settings.provenance.get(
            "path", "app" if app.path is not None else DEFAULT_LAYER
        )
        found.append(Value("path", placement.remote.path, layer))
    if placement.chart is not None and placement.engine == "flux":
        app = next(app for app in plan.fleet.apps if app.name == placement.app)
        for action, retries in helm_retries(app, placement).items():
            found.append(Value(f"chart/{action}_retries", retries.value, retries.source))
    timing = flux_timing(plan.fleet, placement) if placement.engine == "flux" else {}
    for value in values(placement.settings):
        name = value.key.removeprefix("sync/")
        if name in timing:  # what the Flux object says; a field it has none of is left out
            if timing[name].value is not None:
                found.append(Value(value.key, timing[name].value, timing[name].source))
        elif name not in TIMING_FIELDS or value.layer != DEFAULT_LAYER:
            found.append(value)  # Argo CD has no timing field: only one a layer sets
    found.append(Value("cascade_delete", placement.cascade_delete, _cascade_layer(plan, placement)))
    notices = plan.notices.get((placement.app, placement.env))
    if notices is not None:
        kind = "HelmRelease" if placement.chart is not None else "Kustomization"
        found += [Value(*row) for row in explained(notices, placement.engine, kind)]
    return PlacementView(
        placement.app,
        placement.cluster,
        placement.env,
        placement.engine,
        placement.wave,
        source_text(placement),
        tuple(_resolved(value, placement) for value in found),
        placement.suspended,
    )


def _resolved(value: Value, placement: Placement) -> Value:
    """``value`` whose layer also names the `ClusterVar`s its cluster filled in there."""
    names = placement.settings.resolved.get(value.key)
    if not names:
        return value
    vars_text = ", ".join(f"ClusterVar({name!r})" for name in names)
    return replace(value, layer=f"{value.layer}; {vars_text} of cluster {placement.cluster!r}")


def _cascade_layer(plan: Plan, placement: Placement) -> str:
    """Which layer decides the placement's ``cascade_delete``
    (`fleetgen.resolver.plan.cascade_delete`)."""
    fleet = plan.fleet
    app = next(a for a in fleet.apps if a.name == placement.app)
    env = next(e for e in fleet.environments if e.name == placement.env)
    return cascade_delete(fleet, env, app)[1]


def source_text(placement: Placement) -> str:
    """Where a placement's manifests come from: its overlay, its chart, or another source."""
    return placement.overlay or chart_text(placement.chart) or _remote_text(placement)


def _remote_text(placement: Placement) -> str:
    """``URL at REVISION: PATH`` for the placement of an app from another source, `plain_text`
    for one of a plain directory."""
    remote = placement.remote
    if remote is None:
        return ""
    if remote.source is None:
        return plain_text(remote.path)
    return f"{remote.source.url} at {remote.source.target_revision}: {remote.path}"


PLAIN = "plain directory "
LAYERED = "no base: what its layers add"  # an app without a base (`App.layered_only`)


def plain_text(path: str) -> str:
    """How explain names a plain directory an app reads."""
    return f"{PLAIN}{path} (no kustomization.yaml: no overlay)"


def chart_text(chart: ChartSource | None) -> str:
    """``chart NAME@VERSION from REPO`` (or ``chart PATH``) for a chart app's placement."""
    if chart is None:
        return ""
    if chart.path is not None:
        return f"chart {chart.path} ({chart.name} {chart.version})"
    return f"chart {chart.name}@{chart.version} from {chart.repo}"


def values(settings: Settings) -> Iterable[Value]:
    """Every effective value of ``settings``, images first, sync policy last."""
    where = settings.provenance
    for name, image in sorted(settings.images.items()):
        yield Value(
            f"image/{name}/name", image.current_name, where.get(f"image/{name}/name", DEFAULT_LAYER)
        )
        version = f"@{image.digest}" if image.digest else f":{image.tag}" if image.tag else None
        if version is not None:
            yield Value(f"image/{name}/version", version, where[f"image/{name}/version"])
    for workload, count in sorted(settings.replicas.items()):
        yield Value(f"replicas/{workload}", count, where[f"replicas/{workload}"])
    for configmap, entries in sorted(settings.config.items()):
        for key, text in sorted(entries.items()):
            yield Value(f"config/{configmap}/{key}", text, where[f"config/{configmap}/{key}"])
    for prefix, mapping in (("label", settings.labels), ("annotation", settings.annotations)):
        for key, text in sorted(mapping.items()):
            yield Value(f"{prefix}/{key}", text, where[f"{prefix}/{key}"])
    for index, (layer, file) in enumerate(settings.values_files):  # in merge order
        yield Value(f"values_file/{index}", file, layer)
    for path, value in _value_leaves(settings.values, ()):
        key = f"values/{value_path(path)}"
        yield Value(key, value, where[key])
    for index, patch in enumerate(settings.patches):
        kind = "JSON6902" if isinstance(patch.patch, list) else "strategic merge"
        target = "/".join(patch.target[k] for k in ("kind", "name") if k in patch.target)
        yield Value(f"patch/{index}", f"{target} ({kind})", where[f"patch/{index}"])
    for added, paths in (("resource", settings.resources), ("component", settings.components)):
        for index, entry in enumerate(paths):
            yield Value(f"{added}/{index}", entry, where[f"{added}/{index}"])
    if "namespace" in where:  # an Overrides(namespace=...); App.namespace is the app's own line
        yield Value("namespace", settings.namespace, where["namespace"])
    if settings.name_prefix is not None:
        yield Value("name_prefix", settings.name_prefix, where["name_prefix"])
    sync = settings.sync.model_dump(mode="json")
    for field in SyncPolicy.model_fields:
        yield Value(f"sync/{field}", sync[field], where.get(f"sync/{field}", DEFAULT_LAYER))


def _value_leaves(value: Any, path: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], Any]]:
    """(path, value) of every leaf of a values document, keys in order (as provenance has them)."""
    if isinstance(value, dict) and (value or not path):
        for key in sorted(value):
            yield from _value_leaves(value[key], (*path, key))
    else:
        yield path, value


def _path_text(app: App) -> str:
    """The directory an unplaced app from another source reads (a ClusterVar: its name)."""
    path = remote_path(app)
    return f"ClusterVar({path.name!r})" if isinstance(path, ClusterVar) else path


def _app_view(plan: Plan, name: str, views: list[PlacementView]) -> AppView:
    app = next(a for a in plan.fleet.apps if a.name == name)
    chart = app.chart
    remote = app.source
    # An app from another source: every directory its placements read (Overrides(path=...)).
    paths = dict.fromkeys(p.remote.path for p in plan.by_app().get(name, ()) if p.remote)
    source = (
        f"{remote.url} at {remote.target_revision}: {', '.join(paths) or _path_text(app)}"
        if remote
        else plain_text(next(iter(paths)))
        if paths
        else app.base_path
        or (
            f"chart {chart.path}"
            if chart and chart.path
            else f"chart {chart.name} from {chart.repo}"
            if chart
            else LAYERED
        )
    )
    return AppView(
        app.name,
        app.project,
        app.namespace,
        source,
        _dependencies(plan, app.name, {v.engine for v in views if v.app == name}),
        tuple(v for v in views if v.app == name),
    )


def _dependencies(plan: Plan, name: str, engines: set[str]) -> tuple[str, ...]:
    """Each dependency of app ``name``, with how Flux waits for it where it is of the other kind
    (`fleetgen.emit.flux.dependencies`) and what Argo CD does with it."""
    apps = {app.name: app for app in plan.fleet.apps}
    chart = apps[name].chart is not None
    found = []
    for dependency in apps[name].depends_on:
        how = ""
        if "flux" in engines and chart and apps[dependency].chart is None:
            how = f" (Flux: Kustomization {wrapper_name(name)} applies the HelmRelease after it)"
        elif "flux" in engines and not chart and apps[dependency].chart is not None:
            how = f" (Flux: waits for gate {gate_name(dependency)}, its HelmRelease's health)"
        found.append(dependency + how)
    if "argocd" in engines and found:
        found.append("Argo CD: no order between Applications")
    return tuple(found)


def _cluster_view(plan: Plan, name: str, views: list[PlacementView]) -> ClusterView:
    cluster = next(c for c in plan.fleet.clusters if c.name == name)
    placed = tuple(sorted((v for v in views if v.cluster == name), key=lambda v: v.app))
    wave = next(
        (
            number
            for number, clusters in enumerate(plan.waves.get(cluster.env, ()), 1)
            if name in clusters
        ),
        None,
    )
    return ClusterView(
        cluster.name,
        cluster.env,
        cluster.server,
        dict(sorted(cluster.labels.items())),
        _credentials(plan, cluster, bool(placed)),
        wave,
        sum(1 for wave in plan.waves.get(cluster.env, ()) if wave),
        placed,
        _instance(plan.fleet, cluster, placed),
    )


def _instance(fleet: Fleet, cluster: Cluster, placed: Sequence[PlacementView]) -> str | None:
    """The folder of the Argo CD instance that registers ``cluster``, when the fleet has more
    than one."""
    if len(fleet.argocd_instances) == 1 or all(v.engine != "argocd" for v in placed):
        return None
    return f"{fleet.output_dir}/{fleet.argocd_instance(cluster.env).directory}/"


def _credentials(plan: Plan, cluster: Cluster, placed: bool) -> str:
    """How the engines reach ``cluster``, as the fleet map says (`Plan.reached`): with its
    credentials when an engine connects from outside, else through its own Flux."""
    if cluster.name not in plan.reached:
        return "in-cluster (Flux pulls)" if placed else "— (nothing runs on it)"
    credentials = plan.credentials.get(cluster.name)
    if credentials is not None:
        return describe_credentials(credentials)
    if cluster.registration == "external":
        return "none (another tool owns its Argo CD registration)"
    return "none (the cluster Argo CD runs on: its own ServiceAccount)"


def describe_credentials(credentials: Credentials) -> str:
    """One line saying where a cluster's credentials come from."""
    if isinstance(credentials, AwsAuth):
        return f"AWS IAM role {credentials.role_arn} (EKS cluster {credentials.cluster_name})"
    if isinstance(credentials, ExecAuth):
        return f"exec plugin: {' '.join([credentials.command, *credentials.args])}"
    where = f"property {credentials.property!r} of " if credentials.property else ""
    return (
        f"{credentials.store_kind} {credentials.store}: {where}key {credentials.key!r} "
        "(External Secrets)"
    )


def text(explanation: Explanation) -> str:
    """The human-readable report: clusters first, then apps."""
    blocks = [_cluster_text(c) for c in explanation.clusters]
    blocks += [_app_text(a) for a in explanation.apps]
    return "\n".join(blocks)


def _cluster_text(view: ClusterView) -> str:
    labels = ", ".join(f"{k}={v}" for k, v in view.labels.items()) or "none"
    rollout = (
        f"wave {view.wave} of {view.waves} in {view.env}"
        if view.wave is not None
        else f"none in {view.env} (all its clusters sync at once)"
    )
    lines = [
        f"cluster {view.name}: environment {view.env}, server {view.server}",
        f"  labels: {labels}",
        f"  credentials: {view.credentials}",
        *([f"  Argo CD instance: {view.argocd_instance}"] if view.argocd_instance else []),
        f"  rollout: {rollout}",
        f"  apps ({len(view.apps)}):",
    ]
    rows = [(p.app, _engine_text(p), p.overlay) for p in view.apps]
    lines += _table(rows, "    ")
    suspended = [p.app for p in view.apps if p.suspended]
    if suspended:
        lines.append(f"  {', '.join(suspended)}: {SUSPENDED}")
    return "\n".join(lines) + "\n"


def _app_text(view: AppView) -> str:
    clusters = ", ".join(
        f"{p.cluster} ({p.env}, {p.engine}"
        + (", suspended" if p.suspended else "")
        + (f", wave {p.wave})" if p.wave else ")")
        for p in view.placements
    )
    source = view.path if view.path.startswith(("chart ", PLAIN, LAYERED)) else f"base {view.path}"
    where = (
        f"namespace {view.namespace}"
        if view.namespace is not None
        else "namespaces as its manifests say"
    )
    lines = [
        f"app {view.name}: project {view.project}, {where}, {source}",
        f"  runs on {len(view.placements)} cluster(s): {clusters}",
    ]
    if view.depends_on:
        lines.append(f"  depends on: {', '.join(view.depends_on)}")
    by_overlay: dict[tuple[str, str, bool], list[PlacementView]] = {}
    for placement in view.placements:  # a chart app's clusters share a chart, not its values
        values = json.dumps([asdict(value) for value in placement.values])
        key = (placement.overlay, values, placement.suspended)
        by_overlay.setdefault(key, []).append(placement)
    for (overlay, _, suspended), group in by_overlay.items():
        lines.append(f"  {', '.join(p.cluster for p in group)} — {overlay}")
        if suspended:
            lines.append(f"    {SUSPENDED}")
        lines += _table([(v.key, v.layer, _shown(v.value)) for v in group[0].values], "    ")
    return "\n".join(lines) + "\n"


def _engine_text(view: PlacementView) -> str:
    """``flux``, ``flux (suspended)``, ``argocd wave 2``."""
    suspended = " (suspended)" if view.suspended else ""
    return view.engine + suspended + (f" wave {view.wave}" if view.wave else "")


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _table(rows: list[tuple[str, str, str]], indent: str) -> list[str]:
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(2)]
    return [f"{indent}{a:<{widths[0]}}  {b:<{widths[1]}}  {c}".rstrip() for a, b, c in rows]
