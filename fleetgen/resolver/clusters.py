"""Checks of names, clusters, credentials and engines, and where apps run: rollout waves, the
clusters an app's targets select (`selects`) and the engine of each placement."""

from __future__ import annotations

from collections.abc import Mapping

from fleetgen.model import (
    App,
    CaFile,
    Cluster,
    Credentials,
    Engine,
    ExternalSecretRef,
    Selector,
    Spec,
)
from fleetgen.resolver.context import (
    Engines,
    _check_placeholders,
    _check_reserved_labels,
    _Context,
    _duplicates,
    _fill,
)
from fleetgen.resolver.layering import label_matches, merge_sync

RESERVED_ENV_NAMES = frozenset({"clusters"})  # overlays/<app>/clusters/ holds cluster layers
LISTED = 5  # names listed in one message


def _check_names(ctx: _Context) -> None:
    fleet = ctx.fleet
    for kind, items in (
        ("environment", fleet.environments),
        ("cluster", fleet.clusters),
        ("project", fleet.projects),
        ("app", fleet.apps),
    ):
        for name in _duplicates(item.name for item in items):
            for item in items:
                if item.name == name:
                    ctx.report(item, f"{kind} name {name!r} is used more than once")
    _check_reserved_labels(ctx, fleet, fleet.common_labels, "fleet")
    for env in fleet.environments:
        _check_reserved_labels(ctx, env, env.common_labels, f"environment {env.name!r}")
        if env.name in RESERVED_ENV_NAMES:
            ctx.report(
                env,
                f"environment name {env.name!r} is reserved (overlays/<app>/"
                f"{env.name}/ holds cluster layers); pick another name",
            )
    if fleet.flux.mode == "hub" and fleet.flux.hub not in ctx.clusters:
        ctx.report(
            fleet.flux,
            f"FluxOptions(mode='hub') needs hub= naming a cluster of the fleet "
            f"(got {fleet.flux.hub!r})",
        )


def _check_clusters(ctx: _Context) -> dict[str, Credentials | None]:
    fleet = ctx.fleet
    if isinstance(fleet.default_credentials, ExternalSecretRef):
        _check_placeholders(
            ctx, fleet.default_credentials, fleet.default_credentials.key, "default_credentials"
        )
    credentials: dict[str, Credentials | None] = {}
    for cluster in ctx.clusters.values():
        if cluster.env not in ctx.envs:
            ctx.report(
                cluster,
                f"cluster {cluster.name!r}: environment {cluster.env!r} is not "
                f"defined (environments: {', '.join(ctx.envs)})",
            )
        _check_reserved_labels(ctx, cluster, cluster.labels, f"cluster {cluster.name!r}")
        if isinstance(cluster.credentials, ExternalSecretRef):
            _check_placeholders(
                ctx,
                cluster.credentials,
                cluster.credentials.key,
                f"cluster {cluster.name!r} credentials",
            )
        unreached = _registered_elsewhere(cluster)
        if unreached and cluster.credentials is not None:
            ctx.report(
                cluster,
                f"cluster {cluster.name!r}: {unreached}, so fleetgen takes no "
                "credentials for it; remove credentials=",
            )
        chosen = None if unreached else cluster.credentials or fleet.default_credentials
        credentials[cluster.name] = _fill_credentials(cluster, chosen)
    return credentials


def _ca_bundles(ctx: _Context) -> dict[str, str]:
    """Cluster -> its CA bundle (base64 PEM): ``ca_data`` as written, or the content of its
    `CaFile` (the workspace inventory read it); a file that is missing or holds no certificate
    is reported at the CaFile."""
    bundles = {}
    for cluster in ctx.clusters.values():
        ca = cluster.ca_data
        if isinstance(ca, CaFile):
            found = ctx.workspace.certificates.get(ca.path)
            if found is None or found.ca_data is None:
                why = found.problem if found is not None else "not read"
                ctx.report(ca, f"cluster {cluster.name!r}: CaFile({ca.path!r}): {why}")
                continue
            ca = found.ca_data
        if ca is not None:
            bundles[cluster.name] = ca
    return bundles


def _registered_elsewhere(cluster: Cluster) -> str:
    """Why fleetgen needs no credentials for ``cluster`` (empty when it does)."""
    if cluster.registration == "external":
        return "its Argo CD registration is external (another tool owns its cluster Secret)"
    if cluster.in_cluster:
        return (
            "it is the cluster Argo CD runs on (https://kubernetes.default.svc), which Argo CD "
            "reaches with its own ServiceAccount"
        )
    return ""


def _engines(ctx: _Context, placed: Mapping[str, list[Cluster]]) -> Engines:
    """App -> cluster -> the engine of that placement: the app's, else the cluster's, else its
    environment's, else the fleet's only engine. Reports engines the fleet does not list, clusters
    with placements no rule gives an engine (one problem per cluster) and apps whose placements in
    an environment with a rollout are on two engines, and an environment's own Argo CD instance in
    a fleet without Argo CD."""
    fleet = ctx.fleet
    listed = sorted(set(fleet.engines))
    owners: list[tuple[str, Spec, Engine | None]] = [
        *((f"app {a.name!r}", a, a.engine) for a in ctx.apps.values()),
        *((f"cluster {c.name!r}", c, c.engine) for c in ctx.clusters.values()),
        *((f"environment {e.name!r}", e, e.engine) for e in ctx.envs.values()),
    ]
    for what, owner, engine in owners:
        if engine is not None and engine not in listed:
            ctx.report(
                owner,
                f"{what}: engine {engine!r} is not listed in "
                f"Fleet(engines={listed!r}); add it there or pick one of those",
            )
    for env in ctx.envs.values():
        if env.argocd is not None and "argocd" not in listed:
            ctx.report(
                env,
                f"environment {env.name!r}: argocd= names an Argo CD instance of its own, but "
                f"Fleet(engines={listed!r}) has no Argo CD; add 'argocd' there or drop argocd=",
            )
    only = listed[0] if len(listed) == 1 else None
    # what a cluster's placements run on unless their app says
    default = {c.name: c.engine or ctx.envs[c.env].engine or only for c in ctx.placeable}
    engines: Engines = {}
    open_apps: dict[str, list[str]] = {}
    for app in ctx.apps.values():
        if app.engine is not None:
            engines[app.name] = {cluster.name: app.engine for cluster in placed[app.name]}
            continue
        on = engines[app.name] = {}
        for cluster in placed[app.name]:
            engine = default[cluster.name]
            if engine is None:
                open_apps.setdefault(cluster.name, []).append(app.name)
            else:
                on[cluster.name] = engine
    for name, apps in open_apps.items():
        cluster = ctx.clusters[name]
        ctx.report(
            cluster,
            f"cluster {name!r} (env {cluster.env}): "
            f"{_few('app', 'apps', apps)} {'has' if len(apps) == 1 else 'have'} "
            f"no engine, and the fleet lists {' and '.join(listed)}: set "
            "Cluster(engine=...), Environment(engine=...) or App(engine=...)",
        )
    _check_rollout_engines(ctx, placed, engines, default)
    return engines


def _few(one: str, many: str, names: list[str]) -> str:
    """``names`` after the word that fits their number."""
    return f"{one if len(names) == 1 else many} {_listed(names)}"


def _listed(names: list[str]) -> str:
    """At most LISTED of ``names``, and how many more there are."""
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(names[:LISTED]) + more


def _check_rollout_engines(
    ctx: _Context,
    placed: Mapping[str, list[Cluster]],
    engines: Engines,
    default: Mapping[str, Engine | None],
) -> None:
    """An app's placements in an environment with a rollout are all on one engine: a rollout gate
    orders clusters within one engine only. Only an app without an engine of its own can split:
    its clusters' engines (``default``) are its engines."""
    mixed = {
        env.name
        for env in ctx.envs.values()  # rollout environments on two engines
        if env.rollout is not None
        and len({default[c.name] for c in ctx.placeable if c.env == env.name} - {None}) > 1
    }
    for app in ctx.apps.values():
        if app.engine is not None or not mixed:
            continue
        on = engines[app.name]
        by_env: dict[str, dict[str, list[str]]] = {}  # env -> engine -> cluster names
        for cluster in placed[app.name]:
            engine = on.get(cluster.name)
            if cluster.env in mixed and engine is not None:
                by_env.setdefault(cluster.env, {}).setdefault(engine, []).append(cluster.name)
        for env_name, by_engine in by_env.items():
            if len(by_engine) > 1:
                split = " and ".join(
                    f"{engine} ({_listed(names)})" for engine, names in sorted(by_engine.items())
                )
                ctx.report(
                    app,
                    f"app {app.name!r}: environment {env_name!r} rolls out in waves, "
                    f"but the app's clusters there are on {split}; no gate orders "
                    "clusters across engines: put them on one engine (App(engine=...) "
                    "or the clusters' engine)",
                )


def _reached(ctx: _Context, engines: Engines) -> frozenset[str]:
    """The clusters an engine reaches from outside (`fleetgen.resolver.plan.Plan.reached`): those
    with an Argo CD placement, and the spokes of a Flux hub."""
    hub = ctx.fleet.flux.hub if ctx.fleet.flux.mode == "hub" else None
    return frozenset(
        cluster
        for on in engines.values()
        for cluster, engine in on.items()
        if engine == "argocd" or hub not in (None, cluster)
    )


def _check_credentials(
    ctx: _Context,
    engines: Engines,
    credentials: Mapping[str, Credentials | None],
    reached: frozenset[str],
) -> None:
    """Clusters an engine must reach from outside (``reached``) have credentials, unless their
    Argo CD registration is not fleetgen's (which a Flux hub's spoke cannot do without)."""
    hub = ctx.fleet.flux.hub if ctx.fleet.flux.mode == "hub" else None
    spokes = {
        cluster
        for on in engines.values()
        for cluster, engine in on.items()
        if engine == "flux" and hub not in (None, cluster)
    }
    for name in sorted(spokes):
        unreached = _registered_elsewhere(ctx.clusters[name])
        if unreached:
            ctx.report(
                ctx.clusters[name],
                f"cluster {name!r}: {unreached}, but the Flux hub "
                f"{hub} reaches its spokes with credentials; give it "
                "a registration by fleetgen and credentials",
            )
    for name in sorted(reached):
        if credentials[name] is None and not _registered_elsewhere(ctx.clusters[name]):
            ctx.report(
                ctx.clusters[name],
                f"cluster {name!r} has no credentials: set "
                "Cluster(credentials=...) or "
                "Fleet(default_credentials=...)",
            )


def _check_runtime_selectors(
    ctx: _Context, placed: Mapping[str, list[Cluster]], engines: Engines
) -> None:
    """``Selector(runtime=True)``: Argo CD placements only, among external clusters, no cluster
    layers (a layer pins a cluster by name), no per_label layer but one for a label the selector
    requires on an app without overlays (a chart, another source, a plain directory: the
    ApplicationSet's generators would select every cluster alike; a kustomize app's layer is in
    cluster overlays), no secret read per cluster (cluster overlays too), and only labels some
    cluster declares."""
    declared = {key for cluster in ctx.clusters.values() for key in cluster.labels}
    for app in ctx.apps.values():
        targets = app.targets
        if not targets.runtime:
            continue
        flux = sorted(c.name for c in placed[app.name] if engines[app.name].get(c.name) == "flux")
        if flux:
            ctx.report(
                targets,
                f"app {app.name!r}: Selector(runtime=True) is evaluated by Argo "
                "CD's ApplicationSet controller; the app's placements on "
                f"{_few('cluster', 'clusters', flux)} are on Flux",
            )
        if placed[app.name] and not any(c.registration == "external" for c in placed[app.name]):
            ctx.report(
                targets,
                f"app {app.name!r}: Selector(runtime=True) selects clusters "
                "registered by another tool at run time, and the app runs on no "
                "Cluster(registration='external'); drop runtime=True (the "
                "clusters fleetgen registers are selected by name)",
            )
        if app.per_cluster:
            ctx.report(
                targets,
                f"app {app.name!r}: Selector(runtime=True) cannot give a "
                "cluster its own layer (per_cluster pins clusters by name); move "
                "the settings to per_env or drop runtime=True",
            )
        overlaid = ctx.overlaid(app)
        for selection, layer in app.per_label.items():
            if overlaid or not label_matches(selection, targets.match_labels):
                ctx.report(layer, _runtime_label_problem(app, selection, overlaid))
        for secret in app.secrets:
            if any("{cluster}" in value for value in secret.data.values()):
                ctx.report(
                    secret,
                    f"app {app.name!r}: Selector(runtime=True): secret {secret.name!r} reads "
                    "a store entry per cluster ({cluster}), written into each cluster's own "
                    "overlay, which a cluster the ApplicationSet selects at run time has not; "
                    "use {env} or a fixed key, or drop runtime=True",
                )
        keys = [*targets.match_labels, *(expr.key for expr in targets.match_expressions)]
        for key in sorted(set(keys) - declared):
            ctx.report(
                targets,
                f"app {app.name!r}: its runtime selector reads label {key!r}, "
                "which no cluster of the fleet declares; declare it in "
                "Cluster(labels=...) where it is set",
            )


def _runtime_label_problem(app: App, selection: str, overlaid: bool) -> str:
    """Why a per_label layer cannot reach the clusters a runtime selector picks (``overlaid``:
    the app's layers are written into its overlays)."""
    why = (
        "it is written into each cluster's own overlay, which a cluster the ApplicationSet "
        "selects at run time has not (fleet.py need not list it)"
        if overlaid
        else "the ApplicationSet selects them with one selector per environment, so every "
        "selected cluster would get it, those without the label too"
    )
    return (
        f"app {app.name!r}: Selector(runtime=True): per_label[{selection!r}] cannot reach the "
        f"clusters it selects: {why}; move its settings to per_env or to an app of their own, "
        "or drop runtime=True"
    )


def _fill_credentials(cluster: Cluster, credentials: Credentials | None) -> Credentials | None:
    if not isinstance(credentials, ExternalSecretRef):
        return credentials
    key = _fill(credentials.key, {"cluster": cluster.name, "env": cluster.env})
    return credentials.model_copy(update={"key": key})


def _rollout_waves(ctx: _Context) -> dict[str, tuple[tuple[str, ...], ...]]:
    waves: dict[str, tuple[tuple[str, ...], ...]] = {}
    for env in ctx.envs.values():
        if env.rollout is None:
            continue
        if not merge_sync(ctx.fleet.sync, env.sync, "env", {}).automated:
            ctx.report(
                env,
                f"environment {env.name!r} has a rollout but its sync is not "
                "automated; a rollout syncs wave by wave once merged, so set "
                "SyncPolicy(automated=True)",
            )
        clusters = [c for c in ctx.clusters.values() if c.env == env.name]
        steps = env.rollout.waves((c.name, c.labels) for c in clusters)
        for number, (step, matched) in enumerate(zip(env.rollout.steps, steps, strict=True), 1):
            if not matched and step.match_labels:  # an empty catch-all step is fine
                ctx.report(
                    step,
                    f"environment {env.name!r}: rollout step {number} matches no "
                    "cluster that an earlier step has not taken",
                )
        taken = {name for step_clusters in steps for name in step_clusters}
        if remaining := [c.name for c in clusters if c.name not in taken]:
            ctx.report(
                env.rollout,
                f"environment {env.name!r}: clusters "
                f"{', '.join(remaining)} match no rollout "
                "step; end the rollout with Step() to take the rest",
            )
        waves[env.name] = steps
    return waves


def _labels_match(wanted: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in wanted.items())


def selects(selector: Selector, cluster: Cluster) -> bool:
    """Whether ``selector`` places an app on ``cluster`` (Kubernetes label-selector semantics)."""
    if selector.envs is not None and cluster.env not in selector.envs:
        return False
    if selector.clusters is not None and cluster.name not in selector.clusters:
        return False
    if cluster.name in selector.exclude or not _labels_match(selector.match_labels, cluster.labels):
        return False
    for expr in selector.match_expressions:
        value = cluster.labels.get(expr.key)
        if expr.operator == "In" and value not in expr.values:
            return False
        if expr.operator == "NotIn" and value is not None and value in expr.values:
            return False
        if expr.operator == "Exists" and value is None:
            return False
        if expr.operator == "DoesNotExist" and value is not None:
            return False
    return True


def _selects_all(selector: Selector) -> bool:
    """Whether ``selector`` sets no condition (`selects` every cluster)."""
    return (
        selector.envs is None
        and selector.clusters is None
        and not selector.exclude
        and not selector.match_labels
        and not selector.match_expressions
    )


def _place(ctx: _Context, app: App) -> list[Cluster]:
    targets = app.targets
    for env in targets.envs or []:
        if env not in ctx.envs:
            ctx.report(targets, f"app {app.name!r}: targets.envs names unknown environment {env!r}")
    for field_name in ("clusters", "exclude"):
        for name in getattr(targets, field_name) or []:
            if name not in ctx.clusters:
                ctx.report(
                    targets,
                    f"app {app.name!r}: targets.{field_name} names unknown cluster {name!r}",
                )
    if _selects_all(targets):
        placed = list(ctx.placeable)
    else:
        placed = [c for c in ctx.placeable if selects(targets, c)]
    if not placed:
        ctx.report(targets, f"app {app.name!r}: its targets select no cluster")
    return placed
