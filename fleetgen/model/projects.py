"""Project boundaries (destinations, roles, sync windows, namespace metadata) and validate's
rule severities (Policy) and per-app Waivers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from fleetgen.model.base import Spec
from fleetgen.model.fields import Annotations, Duration, Labels, Name, NamespacePattern
from fleetgen.rules.policy import Severity, configurable_problem, waivable_problem


def _rule_id(rule: str) -> str:
    problem = configurable_problem(rule)
    if problem is not None:
        raise ValueError(problem)
    return rule


def _waived_rule_id(rule: str) -> str:
    problem = waivable_problem(rule)
    if problem is not None:
        raise ValueError(problem)
    return rule


RuleId = Annotated[str, AfterValidator(_rule_id)]
WaivedRuleId = Annotated[str, AfterValidator(_waived_rule_id)]


class Policy(Spec):
    """Severities of validate's rules by id ("error", "warning" or "off"); others keep their
    defaults.

    Attributes:
        rules: Rule id → severity (see docs/validate.md for the rules and their defaults).
    """

    rules: dict[RuleId, Severity] = {}


class Waiver(Spec):
    """Silences one rule for one app; ``reason`` is printed with every report.

    Attributes:
        rule: The id of the rule to silence: a configurable rule of validate, or a secret rule
            (its findings in the app's base files and rendered objects, never in fleet.py).
        reason: Why, printed with every validate report.
    """

    rule: WaivedRuleId
    reason: str = Field(min_length=1)


class Destination(Spec):
    """An AppProject destination: a server (or '*') and a namespace (or a glob).

    Attributes:
        server: An API server URL, or '*'.
        namespace: A namespace, or a glob such as 'team-*'.
    """

    server: str
    namespace: str


class Role(Spec):
    """An AppProject role.

    Attributes:
        name: The role's name.
        description: What it is for.
        policies: Argo CD RBAC policy lines ('p, proj:NAME:ROLE, applications, get, ...').
        groups: SSO groups that hold the role.
    """

    name: Name
    description: str = ""
    policies: list[str] = []
    groups: list[str] = []


class SyncWindow(Spec):
    """An AppProject sync window.

    Attributes:
        kind: 'allow' syncs only inside the window; 'deny' never inside it.
        schedule: When the window opens, as a cron expression.
        duration: How long it stays open.
        applications: App names (or Argo CD globs) it applies to.
        clusters: Cluster names (or globs) it applies to.
        namespaces: Namespaces (or globs) it applies to.
        manual_sync: Allow manual syncs while the window blocks automatic ones.
        time_zone: The time zone of `schedule`.
    """

    kind: Literal["allow", "deny"]
    schedule: str = Field(min_length=1)
    duration: Duration = "1h"
    applications: list[str] = []
    clusters: list[str] = []
    namespaces: list[str] = []
    manual_sync: bool = False
    time_zone: str = "UTC"


class NamespaceMeta(Spec):
    """Labels and annotations of a namespace the engines create (tenancy labels, pod-security
    levels): on Flux's Namespace object and through Argo CD's managedNamespaceMetadata.

    Attributes:
        labels: Labels of the namespace.
        annotations: Annotations of the namespace.
    """

    labels: Labels = {}
    annotations: Annotations = {}


class Project(Spec):
    """A project boundary: which repos, namespaces and resource kinds its apps may use.

    Attributes:
        name: The project's name; apps refer to it in `project`.
        description: What it is for.
        namespaces: Namespaces (or globs) its apps may deploy into.
        source_repos: Repositories its apps may read; empty: the fleet's `repo`.
        destinations: AppProject destinations; None: exactly where its apps are placed.
        cluster_resources: (group, kind) of cluster-scoped objects its apps may create; written,
            a boundary their kustomize bases are held to; unset, the kinds those bases ship (a
            chart's or another source's cluster-scoped kinds cannot be seen at build: write
            them here). Namespaces are permitted by name as the apps create them.
        namespace_resources_deny: (group, kind) of namespaced objects its apps may not create.
        roles: AppProject roles.
        sync_windows: When its apps may sync.
        service_account: Apply its apps as this ServiceAccount (tenant impersonation), which
            fleetgen creates and binds to ClusterRole admin in the namespaces of the project's
            apps on each cluster, and nowhere else; None: as the controller. On Argo CD it needs
            application.sync.impersonation.enabled "true" in argocd-cm and, so that the other
            projects still sync as the controller, enforced "false" (Argo CD 3.5 or later: an
            older floor is warned of).
        namespace_metadata: Namespace → its labels and annotations, declared once per namespace
            (on the project that owns it); needs Fleet(create_namespaces=True).
    """

    name: Name
    description: str = ""
    namespaces: list[NamespacePattern] = []
    source_repos: list[str] = []
    destinations: list[Destination] | None = None
    cluster_resources: list[tuple[str, str]] = []
    namespace_resources_deny: list[tuple[str, str]] = []
    roles: list[Role] = []
    sync_windows: list[SyncWindow] = []
    # Tenant impersonation: the engines apply this project's apps as this ServiceAccount (Flux:
    # serviceAccountName, in the Kustomization's namespace: the Flux namespace, or a hub's spoke
    # namespace; Argo CD: the project's destinationServiceAccounts, in each destination
    # namespace, with impersonation enabled). fleetgen emits the accounts and RoleBindings.
    service_account: Name | None = None
    namespace_metadata: dict[Name, NamespaceMeta] = {}
