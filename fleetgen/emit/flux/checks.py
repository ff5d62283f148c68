"""``check`` refuses what Flux cannot express (``depends_on`` across clusters, names
`flux bootstrap` owns, hub mode's spokes); ``warnings`` names what the Flux output cannot honour
(rollouts per cluster, ignore_differences, retry_interval on chart apps) and credentials no
engine uses."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from fleetgen.emit.flux import alerts, hub
from fleetgen.emit.flux.objects import supports_ignore, unmirrored
from fleetgen.errors import Problem, at
from fleetgen.model import GitSource, Spec
from fleetgen.resolver.layering import cascade_delete, sync_owner
from fleetgen.resolver.plan import SUSPENDED, Plan

BOOTSTRAP_NAMESPACE = "flux-system"
_LISTED = 5  # clusters named in one message


def check(plan: Plan) -> list[Problem]:
    """Spec errors Flux cannot express: cross-cluster ``depends_on``, names bootstrap owns,
    notified channels without a secret, and (hub mode) spokes whose credentials Flux cannot
    use."""
    fleet = plan.fleet
    placed = _clusters_of(plan)
    problems = _check_dependencies(plan, placed) + alerts.check(plan)
    # A cluster names its Flux directory, and in hub mode the namespace of its Kustomizations.
    reserved = {BOOTSTRAP_NAMESPACE}
    if fleet.flux.mode == "hub":
        reserved.add(fleet.flux.namespace)
    for app in (app for app in fleet.apps if app.name in placed):
        if app.name == fleet.flux.namespace:
            problems.append(
                at(
                    app,
                    f"app {app.name!r}: its Flux Kustomization would be named "
                    f"like the one `flux bootstrap` creates in namespace "
                    f"{fleet.flux.namespace!r}; rename the app",
                    fleet,
                )
            )
    for cluster in fleet.clusters:
        if cluster.name in reserved and any(cluster.name in on for on in placed.values()):
            problems.append(
                at(
                    cluster,
                    f"cluster {cluster.name!r}: its Flux directory or "
                    f"namespace would be {cluster.name!r}, which `flux "
                    "bootstrap` owns; rename the cluster",
                    fleet,
                )
            )
    if fleet.flux.source is not None and fleet.name == fleet.flux.namespace:
        problems.append(
            at(
                fleet,
                f"fleet {fleet.name!r}: its GitRepository would be named like "
                "bootstrap's; rename the fleet",
                fleet,
            )
        )
    if fleet.flux.source_per_namespace and fleet.flux.mode != "hub":
        problems.append(
            at(
                fleet.flux,
                "FluxOptions(source_per_namespace=True) is for hub mode "
                "(spoke namespaces on the hub); per cluster, every "
                "Kustomization reads a source of its own namespace",
                fleet,
            )
        )
    named_like_fleet = fleet.flux.source is not None
    for app in (app for app in fleet.apps if app.name in placed):
        if named_like_fleet and app.name == fleet.name and isinstance(app.source, GitSource):
            problems.append(
                at(
                    app,
                    f"app {app.name!r}: its GitRepository would be named like "
                    "the fleet's (FluxOptions.source); rename the app",
                    fleet,
                )
            )
    if fleet.flux.mode == "hub":
        problems += hub.check(plan)
    return problems


def _clusters_of(plan: Plan) -> dict[str, set[str]]:
    """app -> the clusters it is placed on."""
    return {app: {p.cluster for p in placements} for app, placements in plan.by_app().items()}


def _check_dependencies(plan: Plan, placed: Mapping[str, set[str]]) -> list[Problem]:
    """Dependencies not placed on every cluster of their dependent app (``placed``: app -> its
    clusters)."""
    apps = {app.name: app for app in plan.fleet.apps}
    missing: dict[tuple[str, str], list[str]] = defaultdict(list)
    for app, clusters in placed.items():
        for dependency in apps[app].depends_on:  # named twice, its clusters count twice
            absent = clusters - placed.get(dependency, set())
            if absent:
                missing[(app, dependency)] += absent
    return [
        at(
            apps[app],
            f"app {app!r} depends_on {dependency!r}, which is not placed on "
            f"{_clusters(clusters)}: Flux dependsOn only reaches Kustomizations of "
            "the same cluster; place it there too or drop the dependency",
            plan.fleet,
        )
        for (app, dependency), clusters in sorted(missing.items())
    ]


def _clusters(names: list[str]) -> str:
    shown = ", ".join(sorted(names)[:_LISTED])
    more = len(names) - _LISTED
    return f"clusters {shown} and {more} more" if more > 0 else f"cluster(s) {shown}"


def warnings(plan: Plan) -> list[Problem]:
    """What the Flux output cannot honour, for the CLI to print at build time."""
    fleet = plan.fleet
    found: list[Problem] = []
    placed_envs = {p.env for p in plan.placements}
    for env in fleet.environments:
        if env.rollout is not None and env.name in placed_envs and fleet.flux.mode != "hub":
            found.append(
                at(
                    env.rollout,
                    f"environment {env.name!r}: Flux per cluster cannot "
                    "order clusters, so its rollout does not apply to Flux: "
                    "each cluster's Flux applies a merged change on its "
                    "own; FluxOptions(mode='hub') orders waves",
                    fleet,
                )
            )
    ignore = supports_ignore(fleet)
    placed_apps = {p.app for p in plan.placements}
    for app in (app for app in fleet.apps if app.name in placed_apps):
        for ignore_difference in app.ignore_differences:
            if not ignore and ignore_difference.json_pointers and app.chart is None:
                found.append(
                    at(
                        ignore_difference,
                        f"app {app.name!r}: ignore_differences "
                        f"cannot be honoured by Flux {fleet.flux.min_version} "
                        "(Kustomization spec.ignore needs Flux >= 2.9; set "
                        "FluxOptions(min_version='2.9') once every cluster runs it), "
                        "so Flux reverts those fields every interval",
                        fleet,
                    )
                )
                continue
            lost = unmirrored(ignore_difference)
            if lost:
                found.append(
                    at(
                        ignore_difference,
                        f"app {app.name!r}: ignore_differences for "
                        f"{ignore_difference.kind} {' and '.join(lost)} cannot be mirrored "
                        "by Flux (spec.ignore takes JSON pointers), which "
                        "reverts those fields every interval",
                        fleet,
                    )
                )
    if fleet.flux.mode == "hub":
        found += hub.warnings(plan)
    return (
        found
        + _suspended(plan)
        + _chart_retry_interval(plan)
        + _kept_on_upgrade(plan)
        + _unused_credentials(plan)
        + _remote_bases(plan)
    )


def _suspended(plan: Plan) -> list[Problem]:
    """One warning per environment with suspended Flux placements (`Placement.suspended`), at
    the Environment: kustomize-controller's and helm-controller's ``Reconcile`` return before
    applying anything while ``spec.suspend`` is true, so nothing of them deploys. Names the apps
    when only some of the environment's Flux placements are suspended."""
    placed: dict[str, set[str]] = defaultdict(set)
    suspended: dict[str, set[str]] = defaultdict(set)
    for placement in plan.placements:
        placed[placement.env].add(placement.app)
        if placement.suspended:
            suspended[placement.env].add(placement.app)
    found = []
    for env in plan.fleet.environments:
        apps = suspended.get(env.name)
        if not apps:
            continue
        which = (
            "its Flux placements"
            if apps == placed[env.name]
            else f"its Flux placements of app(s) {', '.join(sorted(apps))}"
        )
        found.append(
            at(
                env,
                f"environment {env.name!r}: {which} are {SUSPENDED} (a manual sync on Flux "
                "suspends every Kustomization and HelmRelease; automated: "
                "sync=SyncPolicy(automated=True, prune=True))",
                plan.fleet,
            )
        )
    return found


def _remote_bases(plan: Plan) -> list[Problem]:
    """A Flux placement whose base lists remote bases: kustomize-controller builds them only
    while it runs with ``--no-remote-bases=false`` (its default: ``main.go``; the reconciler's
    ``build`` passes ``!NoRemoteBases`` to fluxcd/pkg ``kustomize.SecureBuild``, which otherwise
    builds on ``MakeFsOnDiskSecure`` without the temporary directory kustomize clones into),
    and fetches them with the controller's git and no credentials (the GitRepository's
    ``secretRef`` is not passed to kustomize)."""
    placed = {p.app for p in plan.placements}
    return [
        at(
            app,
            f"app {app.name!r}: its base lists remote bases "
            f"({', '.join(plan.remote_bases[app.name])}), which Flux's kustomize-controller "
            "fetches at each build only when it runs with --no-remote-bases=false (the "
            "default; multi-tenant lockdowns set it to true, and then the Kustomization "
            "fails), over the network, without credentials (the remote must be readable "
            "anonymously)",
            plan.fleet,
        )
        for app in plan.fleet.apps
        if app.name in placed and app.name in plan.remote_bases
    ]


def _unused_credentials(plan: Plan) -> list[Problem]:
    """A cluster's own ``credentials=`` where no engine reaches it from outside (`Plan.reached`):
    only the cluster's Flux reconciles it, pulling from Git, so nothing reads them (a fleet's
    ``default_credentials`` are a default, filled in only where an engine needs them)."""
    flux = {p.cluster for p in plan.placements}
    return [
        at(
            cluster,
            f"cluster {cluster.name!r}: its credentials are not used: only its own Flux "
            "reconciles it, pulling from Git, and no engine connects to it from outside; "
            "remove credentials=",
            plan.fleet,
        )
        for cluster in plan.fleet.clusters
        if cluster.credentials is not None
        and cluster.name in flux
        and cluster.name not in plan.reached
    ]


def _kept_on_upgrade(plan: Plan) -> list[Problem]:
    """With ``cascade_delete=False`` every object of a Flux chart app is annotated
    ``helm.sh/resource-policy: keep`` (`fleetgen.emit.flux.charts`), which Helm honours on
    upgrade too: ``pkg/kube`` ``Client.Update`` skips deleting a kept object the new release no
    longer renders, so it stays on the cluster, unmanaged. Said where the default decides it; a
    cascade_delete=False written in fleet.py (Fleet, Environment or App) chose it."""
    fleet = plan.fleet
    apps, envs = (
        {app.name: app for app in fleet.apps},
        {env.name: env for env in fleet.environments},
    )
    kept = {(p.app, p.env) for p in plan.placements if p.chart is not None and not p.cascade_delete}
    placed = {
        app for app, env in kept if cascade_delete(fleet, envs[env], apps[app])[1] == "default"
    }
    return [
        at(
            app.chart,
            f"app {app.name!r}: with cascade_delete=False (the default) its HelmRelease keeps "
            "every object (helm.sh/resource-policy: keep), so removing the app leaves its "
            "workloads, but an upgrade also leaves every object the new chart version or values "
            "stop rendering: set cascade_delete=True to have both delete them, or, to keep "
            "them knowingly, write the default out, cascade_delete=False, on the App (or its "
            "Environment or the Fleet), which ends this warning",
            fleet,
        )
        for app in fleet.apps
        if app.name in placed and app.chart is not None
    ]


def _chart_retry_interval(plan: Plan) -> list[Problem]:
    """``retry_interval`` on a chart app: a HelmRelease has no retryInterval (helm-controller
    retries by its install/upgrade remediation), so only Kustomizations take it."""
    layers: dict[int, tuple[Spec, set[str]]] = {}
    owners: dict[tuple[str, str, str, str], Spec] = {}
    for p in (p for p in plan.placements if p.chart is not None):
        source = p.settings.provenance.get("sync/retry_interval")
        if source is None:
            continue
        # `sync_owner` scans the fleet: ask it once per app, environment and layer (and per
        # cluster only for a per_cluster layer, the one layer it looks up by cluster).
        key = (p.app, p.env, source, p.cluster if source == "per_cluster" else "")
        if key not in owners:
            owners[key] = sync_owner(plan.fleet, p, "retry_interval")
        layer = owners[key]
        layers.setdefault(id(layer), (layer, set()))[1].add(p.app)
    return [
        at(
            layer,
            f"retry_interval does not apply to the Flux placements of chart app(s) "
            f"{', '.join(sorted(apps))} (a HelmRelease has no retryInterval)",
            plan.fleet,
        )
        for layer, apps in layers.values()
    ]
