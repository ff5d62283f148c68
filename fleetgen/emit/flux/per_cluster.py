"""``emit``: the Flux files in the layout of ``FluxOptions.mode`` (hub mode:
`fleetgen.emit.flux.hub`), and per-cluster mode's files: each cluster's ``kustomizations.yaml``,
Namespaces, source and tenants."""

from __future__ import annotations

from fleetgen.emit.common import tenants
from fleetgen.emit.flux import alerts, hub
from fleetgen.emit.flux.objects import (
    Home,
    NamespaceFiles,
    app_namespaces,
    cluster_dir,
    created,
    kustomization_files,
    releases_dir,
    source_file,
    tenant_file,
)
from fleetgen.model import Fleet
from fleetgen.resolver.plan import Plan
from fleetgen.write.output import OutputFile


def emit(plan: Plan) -> list[OutputFile]:
    """The Flux files for the Plan, in the layout of ``FluxOptions.mode``."""
    if plan.fleet.flux.mode == "hub":
        return hub.emit(plan)
    return _per_cluster(plan)


def _per_cluster(plan: Plan) -> list[OutputFile]:
    own = homes(plan)
    notified = alerts.files(plan, own, lambda cluster: f"{cluster_dir(cluster)}/notifications.yaml")
    return [*kustomization_files(plan, own, {}), *cluster_files(plan), *notified]


def home(fleet: Fleet, cluster: str) -> Home:
    """Where the Kustomizations of the apps on ``cluster`` go (per-cluster mode)."""
    return Home(
        f"{cluster_dir(cluster)}/kustomizations.yaml",
        fleet.flux.namespace,
        _comment(fleet.output_dir, cluster),
        releases=releases_dir(cluster),
    )


def homes(plan: Plan) -> dict[str, Home]:
    """cluster -> its `home`, for every cluster of the fleet (per-cluster mode)."""
    return {cluster.name: home(plan.fleet, cluster.name) for cluster in plan.fleet.clusters}


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
            f"{cluster_dir(cluster)}/tenants.yaml", by_project, fleet.flux.namespace, True, cluster
        )
    return files


def _comment(output_dir: str, cluster: str) -> str:
    return (
        f"Flux Kustomizations of the apps placed on {cluster}, applied by the Flux that\n"
        f"`flux bootstrap ... --path={output_dir}/{cluster_dir(cluster)}` installed there.\n"
        "suspend: true marks a manual environment: release it by changing fleet.py."
    )
