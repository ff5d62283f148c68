"""The Flux tenants' file: each project's ServiceAccount, which Flux impersonates, and its
RoleBindings in the project's namespaces."""

from __future__ import annotations

from collections.abc import Mapping

from fleetgen.emit.common import (
    TENANT_ROLE,
    account_drains,
    service_account,
    tenant_bindings,
)
from fleetgen.inputs.record import tenant_drain
from fleetgen.write.output import OutputFile


def account_names(by_project: Mapping[tuple[str, str], set[str]]) -> list[str]:
    """The distinct ServiceAccount names of ``by_project`` (projects may share one), sorted."""
    return sorted({account for _, account in by_project})


def tenant_file(
    path: str,
    by_project: Mapping[tuple[str, str], set[str]],
    home: str,
    accounts_here: bool,
    cluster: str,
) -> list[OutputFile]:
    """``path`` with the tenants' RoleBindings (and their ServiceAccounts in ``home`` when
    ``accounts_here``) on ``cluster``, or nothing without tenants. Each is kept while the
    placements of its project there delete (kustomize-controller ``finalize`` skips the deletion
    when ``CanImpersonate`` finds no account: `fleetgen.settle.draining`)."""
    kept_for = account_drains(by_project, cluster)
    accounts = account_names(by_project) if accounts_here else []
    docs = [service_account(account, home) for account in accounts]
    drains = [kept_for[account] for account in accounts]
    for (project, account), names in sorted(by_project.items()):
        bindings = tenant_bindings(project, account, {name: [home] for name in names})
        docs += bindings
        drains += [tenant_drain(project, cluster)] * len(bindings)
    comment = (
        f"Tenants: each project's ServiceAccount ({home} namespace), which Flux "
        "impersonates,\nmay do what ClusterRole "
        f"{TENANT_ROLE} allows in the project's namespaces here, nothing else."
    )
    return [OutputFile(path, tuple(docs), comment=comment, drains=tuple(drains))] if docs else []
