"""The Flux tenants' file: each project's ServiceAccount, which Flux impersonates, and its
RoleBindings in the project's namespaces."""

from __future__ import annotations

from collections.abc import Mapping

from fleetgen.emit.common import TENANT_ROLE, service_account, tenant_bindings
from fleetgen.output import OutputFile


def account_names(by_project: Mapping[tuple[str, str], set[str]]) -> list[str]:
    """The distinct ServiceAccount names of ``by_project`` (projects may share one), sorted."""
    return sorted({account for _, account in by_project})


def tenant_file(
    path: str, by_project: Mapping[tuple[str, str], set[str]], home: str, accounts_here: bool
) -> list[OutputFile]:
    """``path`` with the tenants' RoleBindings (and their ServiceAccounts in ``home`` when
    ``accounts_here``), or nothing without tenants."""
    docs = (
        [service_account(account, home) for account in account_names(by_project)]
        if (accounts_here)
        else []
    )
    for (project, account), names in sorted(by_project.items()):
        docs += tenant_bindings(project, account, {name: [home] for name in names})
    comment = (
        f"Tenants: each project's ServiceAccount ({home} namespace), which Flux "
        "impersonates,\nmay do what ClusterRole "
        f"{TENANT_ROLE} allows in the project's namespaces here, nothing else."
    )
    return [OutputFile(path, tuple(docs), comment=comment)] if docs else []
