"""The Plan of a checked fleet: each placement's settings layered fleet → env → app → per_env →
per_label → per_cluster, the kustomize overlays of env and cluster layers, chart and remote
placements (a plain directory's are remote ones of this repository)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fleetgen.inputs.bases import Base
from fleetgen.inputs.landing import Landing
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
from fleetgen.model.fields import repo_path
from fleetgen.resolver.confighash import config_hashes
from fleetgen.resolver.context import Engines, _Context, _fill
from fleetgen.resolver.layering import cascade_delete, cluster_layers, layered, with_values_files
from fleetgen.resolver.notify import notices
from fleetgen.resolver.overrides import layers_of
from fleetgen.resolver.plan import (
    ChartSource,
    ClusterOverlay,
    EnvOverlay,
    Placement,
    Plan,
    Remote,
    SecretPlan,
    Settings,
    remote_path,
)
from fleetgen.resolver.vars import VarResolver


def _env_settings(ctx: _Context, app: App, env: Environment) -> Settings:
    """Fleet, env, app and per_env layers (`_Context.shared_settings`)."""
    shared = ctx.shared_settings(env, not ctx.overlaid(app))
    return layered(shared, [("app", app), ("per_env", app.per_env.get(env.name))])


def _cascades(ctx: _Context, app: App, env: str) -> bool:
    """Whether removing a placement of ``app`` in ``env`` deletes its workloads
    (`fleetgen.resolver.layering.cascade_delete`)."""
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


def _chart_placements(
    ctx: _Context,
    resolver: VarResolver,
    app: App,
    chart: HelmChart,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
) -> list[Placement]:
    """A chart app's placements: no overlays; the chart and the layered values per cluster."""

    documents = {
        path: found.values
        for path, found in ctx.workspace.values_files.items()
        if found.values is not None
    }

    def source(settings: Settings) -> dict[str, Any]:
        if chart.path is not None:
            local = ctx.workspace.charts[repo_path(chart.path)]
            assert local.name is not None and local.version is not None
            return {"chart": ChartSource(local.name, local.version, path=local.path)}
        assert chart.repo and chart.name and chart.version
        version = settings.chart_version or chart.version
        return {"chart": ChartSource(chart.name, version, chart.repo)}

    return _layered_placements(
        ctx,
        resolver,
        app,
        clusters,
        wave_of,
        engines,
        source,
        lambda settings: with_values_files(settings, chart.values_files, documents),
    )


def _remote_placements(
    ctx: _Context,
    resolver: VarResolver,
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
        if not isinstance(path, str):  # a var the cluster lacks: the build fails (`VarResolver`)
            return {}
        return {"remote": remotes.get(path) or remotes.setdefault(path, Remote(source, path))}

    return _layered_placements(ctx, resolver, app, clusters, wave_of, engines, remote)


def _layered_placements(
    ctx: _Context,
    resolver: VarResolver,
    app: App,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
    carries: Callable[[Settings], dict[str, Any]],
    settle: Callable[[Settings], Settings] = lambda settings: settings,
) -> list[Placement]:
    """The placements of an app without overlays (a chart, another source): its settings
    layered per cluster (per_env, per_label, per_cluster) and ``settle``d (a chart's values
    files), each placement carrying what ``carries`` makes of them (its chart, its source), its
    `ClusterVar`s filled in for the cluster; with ``Selector(runtime=True)`` the placement keeps
    them unfilled as its template."""
    by_env = _settings_by_env(ctx, app, clusters)
    found = []
    for cluster in clusters:
        raw = settle(layered(by_env[cluster.env], cluster_layers(app, cluster)))
        settings = resolver.settings(app, cluster, raw)
        template = raw if app.targets.runtime and raw is not settings else None
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
                template=template,
                **carries(settings),
            )
        )
    return found


def _overlay_placements(
    ctx: _Context,
    resolver: VarResolver,
    app: App,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    on: Mapping[str, Engine],
) -> tuple[list[Placement], list[EnvOverlay], list[ClusterOverlay]]:
    """A kustomize app's placements (``on``: cluster -> engine), env overlays and cluster
    overlays. Config a `ClusterVar` sets is left out of the env overlay: each cluster's overlay
    writes it with the cluster's value."""
    placements: list[Placement] = []
    env_overlays: list[EnvOverlay] = []
    cluster_overlays: list[ClusterOverlay] = []
    env_secrets, cluster_secrets = _per_cluster_secrets(app)
    base = ctx.base(app)
    bases = ctx.workspace.bases

    def shipped(settings: Settings) -> frozenset[str]:
        """The ConfigMaps of what the layers in ``settings`` add (config= merges into them)."""
        if not settings.resources and not settings.components:  # most overlays
            return frozenset()
        added = (bases[path] for path in (*settings.resources, *settings.components))
        return frozenset().union(*(found.configmaps for found in added))

    by_env: dict[str, EnvOverlay] = {}
    full: dict[str, Settings] = {}  # env -> its settings, config its vars set included
    envs_here = {c.env for c in clusters}
    for env in ctx.envs.values():
        if env.name not in envs_here:
            continue
        full[env.name] = _env_settings(ctx, app, env)
        env_settings = full[env.name].shared()
        by_env[env.name] = EnvOverlay(
            app=app.name,
            env=env.name,
            path=f"overlays/{app.name}/{env.name}",
            base=None if app.base_path is None else base.path,
            settings=env_settings,
            base_configmaps=base.configmaps | shipped(env_settings),
            secrets=_secret_plans(env_secrets, {"env": env.name}),
            config_hashes=config_hashes(base, env_settings.config),
        )
        env_overlays.append(by_env[env.name])
    # without per_label layers, {cluster} secrets or vars in config, only per_cluster keys get
    # overlays of their own
    every = bool(app.per_label or cluster_secrets)
    cascade = {env: _cascades(ctx, app, env) for env in envs_here}
    with_vars = {env for env, settings in full.items() if settings.var_names()}
    for cluster in clusters:
        env_overlay = by_env[cluster.env]
        own = (
            _cluster_overlay(
                resolver,
                app,
                cluster,
                env_overlay,
                full[cluster.env],
                base,
                cluster_secrets,
                shipped,
            )
            if every or cluster.name in app.per_cluster or cluster.env in with_vars
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
    resolver: VarResolver,
    app: App,
    cluster: Cluster,
    env_overlay: EnvOverlay,
    env_settings: Settings,
    base: Base,
    cluster_secrets: list[AppSecret],
    shipped: Callable[[Settings], frozenset[str]],
) -> ClusterOverlay | None:
    """The overlay of ``app`` on ``cluster`` when layers, secrets or vars of its own reach it
    (``env_settings``: the env overlay's settings with the config its vars set; ``shipped``: the
    ConfigMaps of what the layers of some settings add)."""
    layers = cluster_layers(app, cluster)
    if not layers and not cluster_secrets and not env_settings.var_names():
        return None
    settings = resolver.settings(app, cluster, layered(env_settings, layers))
    hashes = config_hashes(base, settings.config)
    return ClusterOverlay(
        app=app.name,
        cluster=cluster.name,
        env_overlay=env_overlay,
        path=f"overlays/{app.name}/clusters/{cluster.name}",
        layers=layers,
        settings=settings,
        config=_own_config(settings, layers),
        secrets=_secret_plans(cluster_secrets, {"env": cluster.env, "cluster": cluster.name}),
        config_hashes={
            workload: value
            for workload, value in hashes.items()
            if env_overlay.config_hashes.get(workload) != value
        },
        added_configmaps=shipped(settings) - env_overlay.base_configmaps,
    )


def _manifest_namespaces(
    ctx: _Context, unplaced: Mapping[str, Base], objects: Mapping[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """App(namespace=None) apps -> the namespaces their manifests put objects in: those of the
    objects of their base (``unplaced``) and of what their layers add, and the Namespace
    ``objects`` they ship (`_namespace_objects`); for an app from another source, or whose base
    lists remote resources, also any namespace its project allows (globs): fleetgen cannot read
    those manifests."""
    found = {
        name: base.namespaces.union(*(b.namespaces for b in ctx.layer_bases(ctx.apps[name])))
        | objects[name]
        for name, base in unplaced.items()
    }
    for app in ctx.apps.values():
        unread = app.source is not None or bool(app.name in unplaced and unplaced[app.name].remotes)
        if unread and app.project in ctx.projects:
            allowed = frozenset(ctx.projects[app.project].namespaces)
            found[app.name] = found.get(app.name, frozenset()) | allowed
    return found


def _namespace_objects(ctx: _Context, unplaced: Mapping[str, Base]) -> dict[str, frozenset[str]]:
    """App(namespace=None) apps -> the Namespace objects their base and what their layers add
    ship."""
    return {
        name: base.namespace_objects.union(
            *(b.namespace_objects for b in ctx.layer_bases(ctx.apps[name]))
        )
        for name, base in unplaced.items()
    }


def _own_config(
    settings: Settings, layers: Iterable[tuple[str, Layer]]
) -> dict[str, dict[str, str]]:
    """What a cluster overlay sets in ConfigMaps: the entries its layers set, and those a var
    filled in (``settings.resolved``), each with its effective value."""
    keys = {
        (name, key)
        for _, layer in layers
        for name, entries in layer.config.items()
        for key in entries
    }
    for where in settings.resolved:
        if where.startswith("config/"):  # config/<configmap>/<key>
            _, name, key = where.split("/", 2)
            keys.add((name, key))
    config: dict[str, dict[str, str]] = {}
    for name, key in sorted(keys):
        config.setdefault(name, {})[key] = settings.config[name][key]
    return config


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
    resolver = VarResolver(ctx)
    for app in ctx.apps.values():
        if app.source is not None or ctx.plain(app):
            placements += _remote_placements(
                ctx, resolver, app, app.source, placed[app.name], wave_of, engines
            )
        elif app.chart is not None:
            placements += _chart_placements(
                ctx, resolver, app, app.chart, placed[app.name], wave_of, engines
            )
        else:
            found, envs, clusters = _overlay_placements(
                ctx, resolver, app, placed[app.name], wave_of, engines[app.name]
            )
            placements += found
            env_overlays += envs
            cluster_overlays += clusters
    resolver.report()
    bases = {
        app.name: ctx.base(app)
        for app in ctx.apps.values()
        if app.base_path is not None or app.layered_only
    }
    unplaced = {name: base for name, base in bases.items() if ctx.apps[name].namespace is None}
    objects = _namespace_objects(ctx, unplaced)
    return Plan(
        fleet=ctx.fleet,
        placements=tuple(placements),
        env_overlays=tuple(env_overlays),
        manifest_namespaces=_manifest_namespaces(ctx, unplaced, objects),
        namespace_objects=objects,
        remote_bases={
            name: tuple(f"{entry.file}:{entry.line}" for entry in base.remotes)
            for name, base in bases.items()
            if base.remotes
        },
        cluster_kinds={
            app.name: kinds for app in ctx.apps.values() if (kinds := ctx.cluster_kinds(app))
        },
        configmaps_read=_configmaps_read(ctx, {placement.app for placement in placements}),
        cluster_overlays=tuple(cluster_overlays),
        waves=waves,
        credentials=credentials,
        reached=reached,
        landing=landing,
        ca_data=ca_bundles,
        notices=notices(ctx.fleet, ((p.app, p.env) for p in placements)),
    )


def _configmaps_read(ctx: _Context, placed: set[str]) -> dict[str, frozenset[str]]:
    """`Plan.configmaps_read`: what the pods of each placed overlaid app with config= may read,
    where fleetgen sees all of it."""
    return {
        name: read
        for name in sorted(placed)
        if ctx.overlaid(app := ctx.apps[name])
        and any(layer.config for layer in layers_of(app))
        and (read := ctx.configmaps_read(app)) is not None
    }
