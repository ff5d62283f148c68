"""Tenants on Argo CD (`Project.service_account`): the ServiceAccounts it impersonates.

Argo CD applies a project's apps as ``system:serviceaccount:<destination namespace>:<account>``
(the AppProject's ``destinationServiceAccounts``), so each destination namespace needs that
ServiceAccount and a RoleBinding granting it `TENANT_ROLE` there. An App(namespace=None) has an
empty destination namespace: Argo CD then impersonates the account of the Application's own
namespace (util/settings ``DeriveServiceAccountToImpersonate``), which each namespace its
manifests use binds too (Kubernetes impersonates a ServiceAccount by name; the account object
lives, if anywhere, on the cluster Argo CD runs on). The impersonated account cannot
create itself (nor, with ``Fleet(create_namespaces=True)``, its namespace), so a separate
Application per cluster, ``<cluster>.tenants`` in AppProject ``fleetgen-tenants``, applies them
from ``tenants/<cluster>/`` with Argo CD's own credentials for that cluster. The dotted name cannot
clash with an app's Applications (``<app>-<cluster>``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fleetgen.emit.argocd.common import API_VERSION, EARLY_WAVE, metadata, server_url
from fleetgen.emit.common import TENANT_ROLE, service_account, tenant_bindings, tenants
from fleetgen.output import OutputFile
from fleetgen.plan import Plan

PROJECT = "fleetgen-tenants"
DIRECTORY = "tenants"
KEEP = {"argocd.argoproj.io/sync-options": "Prune=false"}  # a Namespace outlives its tenancy


def tenant_files(plan: Plan) -> list[OutputFile]:
    """``tenants/<cluster>/tenants.yaml`` per cluster with a tenant, and ``argocd/tenants.yaml``
    (the AppProject and the Applications that apply them); nothing without tenants."""
    fleet = plan.fleet
    found = tenants(plan)
    if not found:
        return []
    clusters = {cluster.name: cluster for cluster in fleet.clusters}
    files = [_cluster_file(plan, name, by_project) for name, by_project in sorted(found.items())]
    destinations = sorted({(server_url(clusters[name]), namespace)
                           for name, by_project in found.items()
                           for names in by_project.values() for namespace in names})
    docs = [_project(plan, destinations),
            *(_application(plan, name, server_url(clusters[name]), min(
                namespace for names in found[name].values() for namespace in names))
              for name in sorted(found))]
    comment = (f"Tenants: Argo CD applies the apps of a project with service_account as that\n"
               f"ServiceAccount of each destination namespace (AppProject\n"
               f"destinationServiceAccounts). These Applications, in project {PROJECT}, create\n"
               f"those accounts and bind each to ClusterRole {TENANT_ROLE} in its namespace only,\n"
               f"with Argo CD's own credentials for the cluster; files under {DIRECTORY}/.")
    return [*files, OutputFile("argocd/tenants.yaml", tuple(docs), comment=comment)]


def _homes(plan: Plan, cluster: str, project: str, namespaces: set[str]) -> dict[str, set[str]]:
    """namespace -> the namespaces of the accounts Argo CD impersonates for ``project``'s apps
    on ``cluster`` there: the namespace itself, and Argo CD's for an App(namespace=None)."""
    homes: dict[str, set[str]] = defaultdict(set)
    apps = {app.name: app for app in plan.fleet.apps}
    for placement in plan.placements:
        app = apps[placement.app]
        if placement.cluster == cluster and app.project == project:
            if app.namespace is not None:
                homes[app.namespace].add(app.namespace)
            else:
                for namespace in plan.manifest_namespaces.get(app.name, ()):
                    homes[namespace].add(plan.fleet.argocd.namespace)
    return {namespace: homes[namespace] for namespace in sorted(namespaces)}


def _cluster_file(plan: Plan, cluster: str,
                  by_project: dict[tuple[str, str], set[str]]) -> OutputFile:
    namespaces = sorted({name for names in by_project.values() for name in names})
    docs: list[dict[str, Any]] = []
    if plan.fleet.create_namespaces:
        docs += [{"apiVersion": "v1", "kind": "Namespace",
                  "metadata": {"name": name, "annotations": dict(KEEP)}} for name in namespaces]
    homes = {key: _homes(plan, cluster, key[0], names) for key, names in by_project.items()}
    docs += [service_account(account, name) for account, name in sorted(
        {(account, name) for (_, account), by_namespace in homes.items()
         for name, subjects in by_namespace.items() if name in subjects})]
    for (project, account), by_namespace in sorted(homes.items()):
        docs += tenant_bindings(project, account, by_namespace)
    return OutputFile(f"{DIRECTORY}/{cluster}/tenants.yaml", tuple(docs),
                      comment=f"Tenant ServiceAccounts on {cluster}, applied by Argo CD "
                              f"Application {cluster}.tenants.")


def _project(plan: Plan, destinations: list[tuple[str, str]]) -> dict[str, Any]:
    fleet = plan.fleet
    namespaces = sorted({namespace for _, namespace in destinations})
    cluster_kinds = ([{"group": "", "kind": "Namespace", "name": name} for name in namespaces]
                     if fleet.create_namespaces else [])
    return {"apiVersion": API_VERSION, "kind": "AppProject",
            "metadata": metadata(PROJECT, fleet.argocd.namespace, annotations=EARLY_WAVE),
            "spec": {"description": "fleetgen: the ServiceAccounts tenants are applied as",
                     "sourceRepos": [fleet.repo],
                     "destinations": [{"server": server, "namespace": namespace}
                                      for server, namespace in destinations],
                     "clusterResourceWhitelist": cluster_kinds,
                     "namespaceResourceWhitelist": [
                         {"group": "", "kind": "ServiceAccount"},
                         {"group": "rbac.authorization.k8s.io", "kind": "RoleBinding"}]}}


def _application(plan: Plan, cluster: str, server: str, namespace: str) -> dict[str, Any]:
    """The Application of a cluster's tenant accounts. Its destination namespace is one of them
    (every object names its own): AppProject ``isDestinationMatched`` matches the destination's
    namespace, empty included, against the project's destination globs."""
    fleet = plan.fleet
    return {"apiVersion": API_VERSION, "kind": "Application",
            "metadata": metadata(f"{cluster}.tenants", fleet.argocd.namespace),
            "spec": {"project": PROJECT,
                     "source": {"repoURL": fleet.repo, "targetRevision": fleet.revision,
                                "path": f"{fleet.output_dir}/{DIRECTORY}/{cluster}"},
                     "destination": {"server": server, "namespace": namespace},
                     "syncPolicy": {"automated": {"prune": True, "selfHeal": True}}}}
