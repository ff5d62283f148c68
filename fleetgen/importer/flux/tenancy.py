"""Flux's multi-tenancy: an object applied as a ServiceAccount makes its app a tenant's (a
project of that account); the Namespaces, ServiceAccounts and RoleBindings beside a tenant's
objects are what fleetgen writes for its projects, or findings."""

from __future__ import annotations

from typing import Any

from fleetgen.importer.draft import Instance
from fleetgen.importer.flux.common import Walk
from fleetgen.importer.repo import Doc, at, mapping, mappings
from fleetgen.model.fields import to_dns_label

_TENANCY = (("", "Namespace"), ("", "ServiceAccount"), ("rbac.authorization.k8s.io", "RoleBinding"))


def is_tenancy_kind(doc: Doc) -> bool:
    """Whether ``doc`` is a Namespace, ServiceAccount or RoleBinding (a tenant's, maybe)."""
    return any(doc.group == group and doc.kind == kind for group, kind in _TENANCY)


def tenant(walk: Walk, instance: Instance, doc: Doc) -> None:
    """An object applied as a ServiceAccount makes its app a tenant's: a project of that
    account (``Project(service_account=...)``)."""
    account = doc.spec.get("serviceAccountName")
    if not account:
        return
    project = to_dns_label(str(account), "tenant")
    instance.project = project
    if instance.namespace is not None and doc.namespace and instance.namespace != doc.namespace:
        walk.draft.findings.append(
            doc.finding(
                f"{doc.kind} {doc.name!r}: a tenant's object outside the namespace "
                "of its ServiceAccount",
                "fleetgen runs a tenant's app as the "
                "account in the app's namespace: check the project's namespaces",
            )
        )
    walk.draft.projects.setdefault(project, {"name": project, "service_account": str(account)})
    if instance.namespace is None and doc.namespace:
        instance.uses.add(doc.namespace)


def tenancy(walk: Walk, instances: list[Instance]) -> None:
    """Namespaces, ServiceAccounts and RoleBindings beside Flux objects: a tenant's
    (fleetgen writes those of its projects), or findings."""
    accounts = {p.get("service_account") for p in walk.draft.projects.values()}
    for doc in walk.tenancy:
        if doc.kind == "Namespace":
            _namespace(walk, doc, instances)
        elif doc.kind == "ServiceAccount" and doc.name in accounts:
            continue
        elif doc.kind == "RoleBinding" and _binds(doc, accounts):
            role = at(doc.obj, "roleRef", "name")
            if role != "admin":
                walk.draft.findings.append(
                    doc.finding(
                        f"RoleBinding {doc.name!r} grants a tenant ClusterRole {role!r}",
                        "fleetgen binds a tenant's ServiceAccount to ClusterRole admin "
                        "in its project's namespaces: check that is enough",
                    )
                )
        else:
            walk.draft.findings.append(
                doc.finding(
                    f"{doc.kind} {doc.name!r} not mapped",
                    "move it into an app's folder, or add it by hand",
                )
            )


def _namespace(walk: Walk, doc: Doc, instances: list[Instance]) -> None:
    """A Namespace beside a tenant's objects: its metadata is the project's
    ``namespace_metadata`` (fleetgen creates the Namespace)."""
    meta = {key: dict(mapping(doc.meta.get(key))) for key in ("labels", "annotations")}
    meta = {key: value for key, value in meta.items() if value}
    for instance in instances:
        if doc.name in instance.uses or instance.namespace == doc.name:
            if meta:
                walk.draft.namespace_meta.setdefault(instance.project, {})[doc.name] = meta
            return
    walk.draft.findings.append(
        doc.finding(
            f"Namespace {doc.name!r}: no app deploys into it",
            "fleetgen creates the namespaces of its apps: add an app there, or "
            "create it in an app's folder",
        )
    )


def _binds(doc: Doc, accounts: set[Any]) -> bool:
    return any(
        s.get("kind") == "ServiceAccount" and s.get("name") in accounts
        for s in mappings(doc.obj.get("subjects"))
    )
