"""Flux's multi-tenancy: which accounts Flux objects run as are a tenant's, and what the
Namespaces, ServiceAccounts and RoleBindings beside them become.

Flux impersonates ``serviceAccountName`` in the namespace of the object naming it
(kustomize-controller ``KustomizationReconciler.reconcile``: ``runtimeClient.WithServiceAccount``
with ``obj.GetNamespace()``; helm-controller alike). Three kinds of account are named:

- Flux's own, installed with it in the Flux namespace (flux2 ``manifests/bases/*/account.yaml``)
  and bound to cluster-admin there: the platform's apps run with Flux's own identity, which is
  what fleetgen's apps outside a tenant project do (no ``service_account``);
- an account the repository binds cluster-wide (a ClusterRoleBinding): no tenant either, its
  apps run as the controller (a finding says so);
- any other: a tenant's, as ``flux create tenant`` writes it (a ServiceAccount and a RoleBinding
  in the tenant's namespace), a project with ``service_account``, whose ServiceAccount and
  RoleBindings fleetgen writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import BY_HAND, Finding
from fleetgen.importer.flux.common import Walk
from fleetgen.importer.repo import Doc, at, mapping, mappings
from fleetgen.model.fields import to_dns_label

RBAC = "rbac.authorization.k8s.io"
_TENANCY = (
    ("", "Namespace"),
    ("", "ServiceAccount"),
    (RBAC, "RoleBinding"),
    (RBAC, "ClusterRoleBinding"),
)
# The ServiceAccounts `flux install` and `flux bootstrap` create in the Flux namespace.
FLUX_ACCOUNTS = frozenset(
    {
        "helm-controller",
        "image-automation-controller",
        "image-reflector-controller",
        "kustomize-controller",
        "notification-controller",
        "source-controller",
        "source-watcher",
    }
)

Account = tuple[str, str]  # namespace, name
_DEFAULT_ACCOUNT = re.compile(r"--default-service-account=([\w.-]+)")


def is_tenancy_kind(doc: Doc) -> bool:
    """Whether ``doc`` is a Namespace, ServiceAccount or (Cluster)RoleBinding (a tenant's,
    maybe)."""
    return any(doc.group == group and doc.kind == kind for group, kind in _TENANCY)


def tenant(walk: Walk, instance: Instance, doc: Doc) -> None:
    """Remember the account an object applied as a ServiceAccount names (`tenancy` decides
    whose it is)."""
    if doc.spec.get("serviceAccountName"):
        walk.runs_as.append((instance, doc))


def tenancy(walk: Walk, instances: list[Instance]) -> None:
    """Each named account's apps a tenant's, unless the account is Flux's own or bound
    cluster-wide; then what the Namespaces, ServiceAccounts and RoleBindings applied beside
    Flux objects become."""
    bound = _cluster_bound(walk)
    tenants = {
        account
        for account in walk.named
        if account not in bound  # the platform's: Flux's own account, as fleetgen's apps run
        and not (account[1] in FLUX_ACCOUNTS and account[0] == walk.namespace)
    }
    for instance, doc in walk.runs_as:
        if _named(doc) in tenants:
            _project(walk, instance, doc, _named(doc)[1])
    created = {_account(doc) for doc, _ in walk.tenancy if _is(doc, "", "ServiceAccount")}
    for account in sorted(tenants - created):
        _not_created(walk, account)
    accounts = _Accounts(tenants, bound)
    for doc, cluster in walk.tenancy:
        _applied(walk, doc, cluster, accounts, instances)


@dataclass(frozen=True, slots=True)
class _Accounts:
    """The accounts Flux objects run as: the tenants', and those bound cluster-wide (with the
    binding)."""

    tenants: set[Account]
    bound: dict[Account, Doc]

    @property
    def namespaces(self) -> set[str]:
        return {namespace for namespace, _ in self.tenants | self.bound.keys()}


def default_account(bootstrap: Doc) -> list[Finding]:
    """A finding for each patch of bootstrap's kustomization that runs Flux's controllers with
    ``--default-service-account``: an object naming no account is then applied as that one
    (``WithServiceAccount(r.DefaultServiceAccount, ...)``), and fleetgen's apps outside a
    tenant project name none."""
    found = []
    for index, item in enumerate(mappings(bootstrap.obj.get("patches"))):
        flag = _DEFAULT_ACCOUNT.search(str(item.get("patch", "")))
        if flag:
            found.append(
                bootstrap.finding(
                    f"Flux's controllers run with --default-service-account={flag[1]}: "
                    "fleetgen's apps outside a tenant project name no account, so they would "
                    f"run as {flag[1]!r}, not as Flux's own account as the platform's objects "
                    "here do",
                    "fleetgen has no setting for the platform's account: drop the flag, or "
                    "give that account the rights the platform's apps need",
                    ("patches", index),
                )
            )
    return found


def _project(walk: Walk, instance: Instance, doc: Doc, account: str) -> None:
    """The instance is a tenant's: a project of its account (``Project(service_account=...)``)."""
    project = to_dns_label(account, "tenant")
    instance.project = project
    spoke = walk.spokes.get(instance.cluster)
    kept = spoke is not None and spoke[0] == doc.namespace  # where fleetgen's hub keeps it
    if instance.namespace not in (None, doc.namespace) and doc.namespace and not kept:
        walk.draft.findings.append(
            doc.finding(
                f"{doc.kind} {doc.name!r}: a tenant's object outside the namespace "
                "of its ServiceAccount",
                "fleetgen runs a tenant's app as the "
                "account in the app's namespace: check the project's namespaces",
            )
        )
    walk.draft.projects.setdefault(project, {"name": project, "service_account": account})
    if instance.namespace is None and doc.namespace:
        instance.uses.add(doc.namespace)


def _not_created(walk: Walk, account: Account) -> None:
    """A finding for a tenant's account the repository does not create."""
    doc = walk.named[account]
    walk.draft.findings.append(
        doc.finding(
            f"ServiceAccount {account[1]!r} (namespace {account[0]!r}) that {doc.kind} "
            f"{doc.name!r} runs as is not in the repository",
            "fleetgen creates it for the tenant project and binds it to ClusterRole admin in "
            "the project's namespaces: check that is what it had",
            ("spec", "serviceAccountName"),
        )
    )


def _applied(
    walk: Walk, doc: Doc, cluster: str, accounts: _Accounts, instances: list[Instance]
) -> None:
    """A Namespace, ServiceAccount or (Cluster)RoleBinding applied beside Flux objects: a
    tenant's (fleetgen writes those of its projects), a cluster-wide account's, or a finding."""
    bound = accounts.bound
    if doc.kind == "Namespace":
        _namespace(walk, doc, cluster, accounts, instances)
    elif doc.kind == "ServiceAccount" and _account(doc) in accounts.tenants | bound.keys():
        return  # written by fleetgen for a tenant; else said at its ClusterRoleBinding
    elif doc.kind == "RoleBinding" and _subjects(doc) & accounts.tenants:
        _tenant_binding(walk, doc, accounts.tenants)
    elif doc.kind == "ClusterRoleBinding" and _subjects(doc) & bound.keys():
        names = ", ".join(repr(name) for _, name in sorted(_subjects(doc) & bound.keys()))
        walk.draft.findings.append(
            doc.finding(
                f"ClusterRoleBinding {doc.name!r} binds {names} cluster-wide, which Flux "
                "objects run as: no tenant",
                "their apps run as the controller (no project service_account), on a hub's "
                "spoke as its kubeconfig's user: check that may do what the account could",
            )
        )
    else:
        walk.draft.findings.append(
            doc.finding(
                f"{doc.kind} {doc.name!r} not mapped",
                "move it into an app's folder, or add it by hand",
            )
        )


def _tenant_binding(walk: Walk, doc: Doc, tenants: set[Account]) -> None:
    """A tenant's RoleBinding, which fleetgen writes as a binding of ClusterRole admin to the
    tenant's account: findings for another role and for subjects besides the account."""
    role = at(doc.obj, "roleRef", "name")
    if role != "admin":
        walk.draft.findings.append(
            doc.finding(
                f"RoleBinding {doc.name!r} grants a tenant ClusterRole {role!r}",
                "fleetgen binds a tenant's ServiceAccount to ClusterRole admin "
                "in its project's namespaces: check that is enough",
            )
        )
    others = [
        f"{s.get('kind')} {s.get('name')!r}"
        for s in mappings(doc.obj.get("subjects"))
        if s.get("kind") != "ServiceAccount"
        or (str(s.get("namespace") or doc.namespace), str(s.get("name"))) not in tenants
    ]
    if others:
        walk.draft.findings.append(
            doc.finding(
                f"RoleBinding {doc.name!r} also binds {', '.join(others)}",
                "fleetgen's binding names the tenant's ServiceAccount only: bind the others "
                "in an app's folder",
                ("subjects",),
            )
        )


def _namespace(
    walk: Walk, doc: Doc, cluster: str, accounts: _Accounts, instances: list[Instance]
) -> None:
    """A Namespace beside a tenant's objects: its metadata is the project's
    ``namespace_metadata`` (fleetgen creates the Namespace); a hub's namespace of a spoke,
    which fleetgen writes too; or a finding."""
    meta = {key: dict(mapping(doc.meta.get(key))) for key in ("labels", "annotations")}
    meta = {key: value for key, value in meta.items() if value}
    for instance in instances:
        if instance.cluster == cluster and (
            doc.name in instance.uses or instance.namespace == doc.name
        ):
            if meta:
                walk.draft.namespace_meta.setdefault(instance.project, {})[doc.name] = meta
            return
    spoke = cluster == walk.cluster and doc.name in {ns for ns, _ in walk.spokes.values()}
    if spoke and not meta:
        return  # fleetgen's hub writes a namespace for each spoke
    if spoke:
        what = "a spoke's namespace on the hub, which fleetgen writes without its labels"
        what, todo = what + " and annotations", BY_HAND
    elif doc.name in accounts.namespaces:
        what = "holds only ServiceAccounts Flux runs as"
        todo = (
            "fleetgen writes a tenant's account where Flux impersonates it (a hub's: in the "
            "spoke's namespace on the hub) and needs no such Namespace: create it in an app's "
            "folder if anything else uses it"
        )
    else:
        what = "no app deploys into it"
        todo = (
            "fleetgen creates the namespaces of its apps: add an app there, or create it in "
            "an app's folder"
        )
    walk.draft.findings.append(doc.finding(f"Namespace {doc.name!r}: {what}", todo))


def _cluster_bound(walk: Walk) -> dict[Account, Doc]:
    """The accounts a ClusterRoleBinding applied beside Flux objects binds, and the binding."""
    found: dict[Account, Doc] = {}
    for doc, _ in walk.tenancy:
        if _is(doc, RBAC, "ClusterRoleBinding"):
            for account in sorted(_subjects(doc)):
                found.setdefault(account, doc)
    return found


def _subjects(doc: Doc) -> set[Account]:
    """The ServiceAccounts a binding names (a subject's namespace defaults to the binding's)."""
    return {
        (str(s.get("namespace") or doc.namespace), str(s.get("name")))
        for s in mappings(doc.obj.get("subjects"))
        if s.get("kind") == "ServiceAccount"
    }


def _account(doc: Doc) -> Account:
    return (doc.namespace, doc.name)


def _named(doc: Doc) -> Account:
    return (doc.namespace, str(doc.spec.get("serviceAccountName")))


def _is(doc: Doc, group: str, kind: str) -> bool:
    return doc.group == group and doc.kind == kind
