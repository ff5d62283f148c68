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

A tenant leaving a cluster keeps its accounts there while its placements drain
(``tenant/<project>/<cluster>``), and the Application keeps applying them: it drains under each
tenant's name on the cluster and under ``tenants/<cluster>``, which outlasts them where no tenant
is left, so that the Application prunes the accounts before it goes (it has no resources
finalizer: its removal deletes nothing; the Namespaces carry ``Prune=false``, which Argo CD's
prune skips): `fleetgen.settle.tenants`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fleetgen.emit.argocd.common import EARLY_WAVE, metadata
from fleetgen.emit.common import (
    TENANT_ROLE,
    account_drains,
    namespace_object,
    service_account,
    tenant_bindings,
    tenant_placements,
)
from fleetgen.inputs.record import project_drain, tenant_drain, tenants_drain
from fleetgen.model import NamespaceMeta
from fleetgen.resolver.namespacing import namespace_metadata
from fleetgen.resolver.plan import Plan
from fleetgen.rules.argocd import API_VERSION, TENANTS_PROJECT, server_url
from fleetgen.write.output import OutputFile

PROJECT = TENANTS_PROJECT
DIRECTORY = "tenants"
KEEP = {"argocd.argoproj.io/sync-options": "Prune=false"}  # a Namespace outlives its tenancy


def tenant_files(plan: Plan) -> list[OutputFile]:
    """``tenants/<cluster>/tenants.yaml`` per cluster with a tenant, and ``argocd/tenants.yaml``
    (the AppProject and the Applications that apply them); nothing without tenants."""
    fleet = plan.fleet
    found = _homes(plan)
    if not found:
        return []
    clusters = {cluster.name: cluster for cluster in fleet.clusters}
    files = [_cluster_file(plan, name, by_project) for name, by_project in sorted(found.items())]
    destinations = sorted(
        {
            (server_url(clusters[name].server), namespace)
            for name, by_project in found.items()
            for names in by_project.values()
            for namespace in names
        }
    )
    docs = [
        _project(plan, destinations),
        *(
            _application(
                plan,
                name,
                server_url(clusters[name].server),
                min(namespace for names in found[name].values() for namespace in names),
            )
            for name in sorted(found)
        ),
    ]
    comment = (
        f"Tenants: Argo CD applies the apps of a project with service_account as that\n"
        f"ServiceAccount of each destination namespace (AppProject\n"
        f"destinationServiceAccounts). These Applications, in project {PROJECT}, create\n"
        f"those accounts and bind each to ClusterRole {TENANT_ROLE} in its namespace only,\n"
        f"with Argo CD's own credentials for the cluster; files under {DIRECTORY}/."
    )
    drains = (
        project_drain(PROJECT),
        *(" ".join(_drains(found[name], name)) for name in sorted(found)),
    )
    return [*files, OutputFile("argocd/tenants.yaml", tuple(docs), comment=comment, drains=drains)]


def _drains(homes: _Homes, cluster: str) -> list[str]:
    """The drain names ``cluster``'s Application is kept for: each tenant project's there, and
    ``tenants/<cluster>`` (pruning the accounts once no tenant is left)."""
    names = {tenant_drain(project, cluster) for project, _ in homes}
    return [*sorted(names), tenants_drain(cluster)]


_Homes = dict[tuple[str, str], dict[str, set[str]]]  # (project, account) -> namespace -> homes


def _homes(plan: Plan) -> dict[str, _Homes]:
    """cluster -> (project, account) -> each namespace of the project's apps there -> the
    namespaces of the accounts Argo CD impersonates in it: the namespace's own, and Argo CD's
    for an App(namespace=None)."""
    found: dict[str, _Homes] = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    for placement, app, account in tenant_placements(plan):
        home = placement.namespace or plan.fleet.argocd.namespace
        for namespace in plan.namespaces_of(app):
            found[placement.cluster][(app.project, account)][namespace].add(home)
    return found


def _cluster_file(plan: Plan, cluster: str, homes: _Homes) -> OutputFile:
    """The tenants' Namespaces, ServiceAccounts and RoleBindings on ``cluster``. The accounts and
    bindings are kept while the placements of their project there delete: argo-cd
    ``finalizeApplicationDeletion`` deletes as the account (``applyImpersonationConfig``), which
    the ``<cluster>.tenants`` Application would otherwise prune in the same change
    (`fleetgen.settle.draining`)."""
    namespaces = sorted({name for by_namespace in homes.values() for name in by_namespace})
    docs: list[dict[str, Any]] = []
    if plan.fleet.create_namespaces:
        declared = namespace_metadata(plan.fleet)
        docs += [_namespace(name, declared.get(name)) for name in namespaces]
    drains = [""] * len(docs)
    kept_for = account_drains(homes, cluster)
    for account, name in sorted(
        {
            (account, name)
            for (_, account), by_namespace in homes.items()
            for name, subjects in by_namespace.items()
            if name in subjects
        }
    ):
        docs.append(service_account(account, name))
        drains.append(kept_for[account])
    for (project, account), by_namespace in sorted(homes.items()):
        bindings = tenant_bindings(project, account, by_namespace)
        docs += bindings
        drains += [tenant_drain(project, cluster)] * len(bindings)
    return OutputFile(
        f"{DIRECTORY}/{cluster}/tenants.yaml",
        tuple(docs),
        comment=f"Tenant ServiceAccounts on {cluster}, applied by Argo CD "
        f"Application {cluster}.tenants.",
        drains=tuple(drains),
    )


def _namespace(name: str, meta: NamespaceMeta | None) -> dict[str, Any]:
    """A tenant's Namespace, with the labels and annotations its project declares (applied with
    Argo CD's own credentials: the tenant's Applications carry no managedNamespaceMetadata)."""
    return namespace_object(name, meta, KEEP)


def _project(plan: Plan, destinations: list[tuple[str, str]]) -> dict[str, Any]:
    fleet = plan.fleet
    namespaces = sorted({namespace for _, namespace in destinations})
    cluster_kinds = (
        [{"group": "", "kind": "Namespace", "name": name} for name in namespaces]
        if fleet.create_namespaces
        else []
    )
    return {
        "apiVersion": API_VERSION,
        "kind": "AppProject",
        "metadata": metadata(PROJECT, fleet.argocd.namespace, annotations=EARLY_WAVE),
        "spec": {
            "description": "fleetgen: the ServiceAccounts tenants are applied as",
            "sourceRepos": [fleet.repo],
            "destinations": [
                {"server": server, "namespace": namespace} for server, namespace in destinations
            ],
            "clusterResourceWhitelist": cluster_kinds,
            "namespaceResourceWhitelist": [
                {"group": "", "kind": "ServiceAccount"},
                {"group": "rbac.authorization.k8s.io", "kind": "RoleBinding"},
            ],
        },
    }


def _application(plan: Plan, cluster: str, server: str, namespace: str) -> dict[str, Any]:
    """The Application of a cluster's tenant accounts. Its destination namespace is one of them
    (every object names its own): AppProject ``isDestinationMatched`` matches the destination's
    namespace, empty included, against the project's destination globs."""
    fleet = plan.fleet
    return {
        "apiVersion": API_VERSION,
        "kind": "Application",
        "metadata": metadata(f"{cluster}.tenants", fleet.argocd.namespace),
        "spec": {
            "project": PROJECT,
            "source": {
                "repoURL": fleet.repo,
                "targetRevision": fleet.revision,
                "path": f"{fleet.output_dir}/{DIRECTORY}/{cluster}",
            },
            "destination": {"server": server, "namespace": namespace},
            "syncPolicy": {"automated": {"prune": True, "selfHeal": True}},
        },
    }
