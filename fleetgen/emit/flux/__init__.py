"""The Flux emitter: ``flux/clusters/<cluster>/``, the path ``flux bootstrap --path`` points at.

Per-cluster mode (the default; each cluster runs its own Flux, bootstrapped with
``flux bootstrap <provider> --path=<output_dir>/flux/clusters/<cluster>``): each cluster directory
holds ``kustomizations.yaml`` (one Kustomization per app placed there, named after the app),
``namespaces.yaml`` (the Namespaces those apps deploy into: Flux creates none; none at all with
``Fleet(create_namespaces=False)``) and, with
``FluxOptions(source=GitSource(...))``, ``source.yaml`` (the GitRepository they read instead of
bootstrap's); with tenants (``Project(service_account=...)``), ``tenants.yaml``: the account in
the Flux namespace, which the project's Kustomizations impersonate, bound to ClusterRole admin in
the namespaces of the project's apps there. An app from another source (``App(source=...)``)
gets its own GitRepository or OCIRepository next to its Kustomization.
Hub mode (``FluxOptions(mode="hub", hub=...)``): see `fleetgen.emit.flux.hub`.

How the Plan translates (`fleetgen.emit.flux.objects` builds the objects):

- ``spec.path`` is the placement's overlay, the one an Argo CD Application would use, so either
  engine deploys the same rendered manifests. No ``targetNamespace``: the overlay already sets
  ``namespace:`` and Flux's would be a second, engine-only transformation. No ``postBuild``,
  ``patches`` or ``images``: a ``${...}`` in a user value reaches the cluster unchanged.
- ``prune`` from the effective sync policy; ``suspend: true`` where it is not automated (releasing
  means changing fleet.py: the root Kustomization re-applies ``suspend``, so ``flux resume`` does
  not last); ``retryInterval`` from its ``retry`` (the backoff ceiling: Flux retries at a fixed
  period); ``wait: true``, so that Ready, which ``dependsOn`` waits for, means healthy.
- ``deletionPolicy: Orphan`` unless ``Fleet(cascade_delete=True)`` (then ``Delete``); generated
  Namespaces are likewise never pruned, since deleting a Namespace deletes its workloads.
- ``labels``/``annotations`` from the app's, except keys under ``argoproj.io/`` (Argo CD's).
- ``dependsOn`` from ``depends_on``: Flux resolves it on the cluster that holds the
  Kustomizations, so the dependency must be placed on the same cluster (`check`).
- ``ignore`` from the JSON pointers of ``ignore_differences``, when ``FluxOptions(min_version)``
  is at least 2.9 (older Flux has no such field); `warnings` names what Flux cannot mirror (jq
  paths, managed-field managers, any rule below 2.9).
- Not expressible in Flux, by design: ``self_heal=False`` (Flux corrects drift every
  ``interval``), Argo CD ``sync_options``, ``allow_empty``; and, per cluster, rollout order.

Flux bootstrap owns ``flux/clusters/<cluster>/flux-system/`` (the writer never touches a
``flux-system`` path) and the GitRepository and Kustomization named after its namespace: fleetgen
emits no object of that name there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from fleetgen.emit.common import tenants
from fleetgen.emit.flux import hub
from fleetgen.emit.flux.objects import (
    Home,
    NamespaceFiles,
    Order,
    app_namespaces,
    cluster_dir,
    created,
    kustomization_docs,
    kustomization_file,
    source_file,
    supports_ignore,
    tenant_file,
    unmirrored,
)
from fleetgen.errors import Problem, at
from fleetgen.model import Fleet, GitSource, Spec
from fleetgen.output import OutputFile
from fleetgen.plan import Plan, sync_owner

BOOTSTRAP_NAMESPACE = "flux-system"
_LISTED = 5  # clusters named in one message


def check(plan: Plan) -> list[Problem]:
    """Spec errors Flux cannot express: cross-cluster ``depends_on``, names bootstrap owns, and
    (hub mode) spokes whose credentials Flux cannot use."""
    fleet = plan.fleet
    placed = _clusters_of(plan)
    problems = _check_dependencies(plan, placed) + _check_dependency_kinds(plan, placed)
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


def _check_dependency_kinds(plan: Plan, placed: Mapping[str, set[str]]) -> list[Problem]:
    """A HelmRelease's dependsOn names HelmReleases only, a Kustomization's Kustomizations only
    (helm-controller and kustomize-controller ``checkDependencies`` get their own kind), for the
    apps ``placed`` (every placement of a chart app, and only those, has a chart)."""
    apps = {app.name: app for app in plan.fleet.apps}
    pairs = sorted(
        {
            (app, name)
            for app in placed
            for name in apps[app].depends_on
            if name in apps and (apps[name].chart is None) != (apps[app].chart is None)
        }
    )
    return [
        at(
            apps[app],
            f"app {app!r} depends_on {dependency!r}: in Flux a "
            f"{_kind(apps[app].chart is not None)} can wait only for another of "
            f"its kind, and {dependency!r} is a "
            f"{_kind(apps[dependency].chart is not None)}; drop the dependency or "
            "make both apps the same kind",
            plan.fleet,
        )
        for app, dependency in pairs
    ]


def _kind(chart: bool) -> str:
    """What a Flux dependsOn entry of an app names (helm-controller and kustomize-controller
    each resolve dependsOn to their own kind only)."""
    return "chart app (HelmRelease)" if chart else "kustomize app (Kustomization)"


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
    return found + _chart_retry_interval(plan)


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


def emit(plan: Plan) -> list[OutputFile]:
    """The Flux files for the Plan, in the layout of ``FluxOptions.mode``."""
    if plan.fleet.flux.mode == "hub":
        return hub.emit(plan)
    return _per_cluster(plan)


def _per_cluster(plan: Plan) -> list[OutputFile]:
    return [*kustomizations(plan, kustomization_docs(plan, homes(plan), {})), *cluster_files(plan)]


def kustomizations(
    plan: Plan, docs: Mapping[str, Iterable[tuple[Order, dict[str, Any]]]]
) -> list[OutputFile]:
    """Each cluster's ``kustomizations.yaml`` (path -> the objects of every app there)."""
    found = comments(plan)
    return [
        kustomization_file(path, objects, found[path]) for path, objects in sorted(docs.items())
    ]


def comments(plan: Plan) -> dict[str, str]:
    """The header comment of every cluster's ``kustomizations.yaml``, by path."""
    return {found.file: found.comment for found in homes(plan).values()}


def home(fleet: Fleet, cluster: str) -> Home:
    """Where the Kustomizations of the apps on ``cluster`` go (per-cluster mode)."""
    return Home(
        f"{cluster_dir(cluster)}/kustomizations.yaml",
        fleet.flux.namespace,
        _comment(fleet.output_dir, cluster),
    )


def homes(plan: Plan) -> dict[str, Home]:
    """cluster -> its `home`, for every cluster of the fleet (per-cluster mode)."""
    return {cluster.name: home(plan.fleet, cluster.name) for cluster in plan.fleet.clusters}


def app_docs(
    plan: Plan, found: Mapping[str, Home]
) -> dict[str, list[tuple[Order, dict[str, Any]]]]:
    """The objects of the one app of ``plan`` (`Plan.only`) in each cluster's
    ``kustomizations.yaml``, with their order (per-cluster mode); ``found``: the `homes` of the
    whole Plan, computed once for all its apps."""
    return kustomization_docs(plan, found, {})


def cluster_files(plan: Plan) -> list[OutputFile]:
    """Every per-cluster file but the Kustomizations: Namespaces, source, tenants."""
    fleet = plan.fleet
    files: list[OutputFile] = []
    namespace_files = NamespaceFiles(fleet)
    for cluster, names in sorted(app_namespaces(plan).items()):
        files += namespace_files.file(
            f"{cluster_dir(cluster)}/namespaces.yaml",
            created(fleet, names) - {fleet.flux.namespace},
            f"Namespaces the apps on {cluster} deploy into.",
        )
        files += source_file(fleet, cluster_dir(cluster))
    for cluster, by_project in sorted(tenants(plan).items()):
        files += tenant_file(
            f"{cluster_dir(cluster)}/tenants.yaml", by_project, fleet.flux.namespace, True
        )
    return files


def _comment(output_dir: str, cluster: str) -> str:
    return (
        f"Flux Kustomizations of the apps placed on {cluster}, applied by the Flux that\n"
        f"`flux bootstrap ... --path={output_dir}/{cluster_dir(cluster)}` installed there.\n"
        "suspend: true marks a manual environment: release it by changing fleet.py."
    )
