"""The Plan of a checked fleet: each placement's settings layered fleet → env → app → per_env →
per_label → per_cluster, the kustomize overlays of env and cluster layers, chart and remote
placements (a plain directory's are remote ones of this repository)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fleetgen.confighash import config_hashes
from fleetgen.fields import repo_path
from fleetgen.model import (
    App,
    AppSecret,
    Cluster,
    Credentials,
    Engine,
    Environment,
    GitSource,
    HelmChart,
    Layer,
    OciSource,
)
from fleetgen.plan import (
    ChartSource,
    ClusterOverlay,
    EnvOverlay,
    Landing,
    Placement,
    Plan,
    Remote,
    SecretPlan,
    Settings,
    cascade_delete,
    label_layers,
    remote_path,
)
from fleetgen.resolve.context import Engines, _Context, _fill
from fleetgen.workspace import Base


def _env_settings(ctx: _Context, app: App, env: Environment) -> Settings:
    """Fleet, env, app and per_env layers (`_Context.shared_settings`)."""
    chart = app.chart is not None or app.source is not None or ctx.plain(app)
    return (
        ctx.shared_settings(env, chart)
        .apply("app", app)
        .apply("per_env", app.per_env.get(env.name))
    )


def _cascades(ctx: _Context, app: App, env: str) -> bool:
    """Whether removing a placement of ``app`` in ``env`` deletes its workloads
    (`fleetgen.plan.cascade_delete`)."""
    return cascade_delete(ctx.fleet, ctx.envs[env], app)[0]


def _settings_by_env(ctx: _Context, app: App, clusters: Iterable[Cluster]) -> dict[str, Settings]:
    """Env name -> `_env_settings` of ``app`` there, for the environments of ``clusters``."""
    return {name: _env_settings(ctx, app, ctx.envs[name]) for name in {c.env for c in clusters}}


def _secret_plans(
    secrets: Iterable[AppSecret], values: Mapping[str, str]
) -> tuple[SecretPlan, ...]:
    plans = []
    for secret in secrets:
        data = {}
        for key, remote in secret.data.items():
            path, _, prop = _fill(remote, values).partition("#")
            data[key] = (path, prop or None)
        plans.append(SecretPlan(secret, data))
    return tuple(plans)


def _per_cluster_secrets(app: App) -> tuple[list[AppSecret], list[AppSecret]]:
    by_cluster = [s for s in app.secrets if any("{cluster}" in v for v in s.data.values())]
    return [s for s in app.secrets if s not in by_cluster], by_cluster


def _cluster_layers(app: App, cluster: Cluster) -> tuple[tuple[str, Layer], ...]:
    """The layers deeper than per_env that reach ``cluster``: per_label, then per_cluster."""
    own = app.per_cluster.get(cluster.name)
    return (*label_layers(app, cluster.labels), *((("per_cluster", own),) if own else ()))


def _chart_placements(
    ctx: _Context,
    app: App,
    chart: HelmChart,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
) -> list[Placement]:
    """A chart app's placements: no overlays; the chart and the layered values per cluster."""

    def source(settings: Settings) -> dict[str, Any]:
        if chart.path is not None:
            local = ctx.workspace.charts[repo_path(chart.path)]
            assert local.name is not None and local.version is not None
            return {"chart": ChartSource(local.name, local.version, path=local.path)}
        assert chart.repo and chart.name and chart.version
        version = settings.chart_version or chart.version
        return {"chart": ChartSource(chart.name, version, chart.repo)}

    return _layered_placements(ctx, app, clusters, wave_of, engines, source)


def _remote_placements(
    ctx: _Context,
    app: App,
    source: GitSource | OciSource | None,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
) -> list[Placement]:
    """An app from another source (``source``), or a plain directory of this repository (None):
    no overlay; its sync settings and the directory it reads (``Overrides(path=...)``) layered
    per cluster, per_label layers included."""
    remotes: dict[str, Remote] = {}  # path -> one Remote shared by its placements

    def remote(settings: Settings) -> dict[str, Any]:
        path = remote_path(app, settings)
        return {"remote": remotes.get(path) or remotes.setdefault(path, Remote(source, path))}

    return _layered_placements(ctx, app, clusters, wave_of, engines, remote)


def _layered_placements(
    ctx: _Context,
    app: App,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
    carries: Callable[[Settings], dict[str, Any]],
) -> list[Placement]:
    """The placements of an app without overlays (a chart, another source): its settings
    layered per cluster (per_env, per_label, per_cluster), each placement carrying what
    ``carries`` makes of them (its chart, its source)."""
    by_env = _settings_by_env(ctx, app, clusters)
    found = []
    for cluster in clusters:
        settings = by_env[cluster.env]
        for name, layer in _cluster_layers(app, cluster):
            settings = settings.apply(name, layer)
        found.append(
            Placement(
                app=app.name,
                cluster=cluster.name,
                env=cluster.env,
                overlay="",
                settings=settings,
                engine=engines[app.name][cluster.name],
                cascade_delete=_cascades(ctx, app, cluster.env),
                wave=wave_of.get(cluster.name),
                **carries(settings),
            )
        )
    return found


def _overlay_placements(
    ctx: _Context,
    app: App,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    on: Mapping[str, Engine],
) -> tuple[list[Placement], list[EnvOverlay], list[ClusterOverlay]]:
    """A kustomize app's placements (``on``: cluster -> engine), env overlays and cluster
    overlays."""
    assert app.path is not None
    placements: list[Placement] = []
    env_overlays: list[EnvOverlay] = []
    cluster_overlays: list[ClusterOverlay] = []
    env_secrets, cluster_secrets = _per_cluster_secrets(app)
    base = ctx.workspace.bases[repo_path(app.path)]
    by_env: dict[str, EnvOverlay] = {}
    envs_here = {c.env for c in clusters}
    for env in ctx.envs.values():
        if env.name not in envs_here:
            continue
        env_settings = _env_settings(ctx, app, env)
        by_env[env.name] = EnvOverlay(
            app=app.name,
            env=env.name,
            path=f"overlays/{app.name}/{env.name}",
            base=base.path,
            namespace=app.namespace,
            settings=env_settings,
            base_configmaps=base.configmaps,
            secrets=_secret_plans(env_secrets, {"env": env.name}),
            config_hashes=config_hashes(base, env_settings.config),
        )
        env_overlays.append(by_env[env.name])
    # without per_label layers or {cluster} secrets, only per_cluster keys get overlays of their own
    every = bool(app.per_label or cluster_secrets)
    cascade = {env: _cascades(ctx, app, env) for env in envs_here}
    for cluster in clusters:
        env_overlay = by_env[cluster.env]
        own = (
            _cluster_overlay(app, cluster, env_overlay, base, cluster_secrets)
            if every or cluster.name in app.per_cluster
            else None
        )
        if own is not None:
            cluster_overlays.append(own)
        overlay = own or env_overlay
        # (app, cluster, env, overlay, settings, engine, cascade, wave) by position: the hottest
        # line of resolve, where keywords would cost a dict per placement (type.__call__ passes
        # them so)
        placements.append(
            Placement(
                app.name,
                cluster.name,
                cluster.env,
                overlay.path,
                overlay.settings,
                on[cluster.name],
                cascade[cluster.env],
                wave_of.get(cluster.name),
            )
        )
    return placements, env_overlays, cluster_overlays


def _cluster_overlay(
    app: App,
    cluster: Cluster,
    env_overlay: EnvOverlay,
    base: Base,
    cluster_secrets: list[AppSecret],
) -> ClusterOverlay | None:
    """The overlay of ``app`` on ``cluster`` when layers or secrets of its own reach it."""
    layers = _cluster_layers(app, cluster)
    if not layers and not cluster_secrets:
        return None
    settings = env_overlay.settings
    for name, layer in layers:
        settings = settings.apply(name, layer)
    hashes = config_hashes(base, settings.config)
    return ClusterOverlay(
        app=app.name,
        cluster=cluster.name,
        env_overlay=env_overlay,
        path=f"overlays/{app.name}/clusters/{cluster.name}",
        layers=layers,
        settings=settings,
        secrets=_secret_plans(cluster_secrets, {"env": cluster.env, "cluster": cluster.name}),
        config_hashes={
            workload: value
            for workload, value in hashes.items()
            if env_overlay.config_hashes.get(workload) != value
        },
    )


def _build_plan(
    ctx: _Context,
    placed: Mapping[str, list[Cluster]],
    waves: Mapping[str, tuple[tuple[str, ...], ...]],
    credentials: Mapping[str, Credentials | None],
    reached: frozenset[str],
    ca_bundles: Mapping[str, str],
    engines: Engines,
    landing: Landing,
) -> Plan:
    wave_of = {
        cluster: number
        for steps in waves.values()
        for number, clusters in enumerate(steps, 1)
        for cluster in clusters
    }
    placements: list[Placement] = []
    env_overlays: list[EnvOverlay] = []
    cluster_overlays: list[ClusterOverlay] = []
    for app in ctx.apps.values():
        if app.source is not None or ctx.plain(app):
            placements += _remote_placements(
                ctx, app, app.source, placed[app.name], wave_of, engines
            )
        elif app.chart is not None:
            placements += _chart_placements(ctx, app, app.chart, placed[app.name], wave_of, engines)
        else:
            found, envs, clusters = _overlay_placements(
                ctx, app, placed[app.name], wave_of, engines[app.name]
            )
            placements += found
            env_overlays += envs
            cluster_overlays += clusters
    unplaced = {
        app.name: ctx.workspace.bases[repo_path(app.path)]
        for app in ctx.apps.values()
        if app.namespace is None and app.path is not None and app.source is None
    }
    # An app from another source may put objects in any namespace its project allows (globs).
    remote = {
        app.name: frozenset(ctx.projects[app.project].namespaces)
        for app in ctx.apps.values()
        if app.source is not None and app.project in ctx.projects
    }
    return Plan(
        fleet=ctx.fleet,
        placements=tuple(placements),
        env_overlays=tuple(env_overlays),
        manifest_namespaces={
            **{name: base.namespaces | base.namespace_objects for name, base in unplaced.items()},
            **remote,
        },
        namespace_objects={name: base.namespace_objects for name, base in unplaced.items()},
        cluster_kinds={
            app.name: kinds for app in ctx.apps.values() if (kinds := ctx.cluster_kinds(app))
        },
        cluster_overlays=tuple(cluster_overlays),
        waves=waves,
        credentials=credentials,
        reached=reached,
        landing=landing,
        ca_data=ca_bundles,
    )
