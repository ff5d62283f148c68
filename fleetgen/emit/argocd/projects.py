"""AppProjects ``argocd/projects/<project>.yaml``: a project's boundary as Argo CD enforces it
(what Argo CD permits by them: `fleetgen.rules.argocd`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fleetgen.emit.argocd.common import EARLY_WAVE, metadata
from fleetgen.emit.common import unenforced_impersonation
from fleetgen.errors import Problem, at
from fleetgen.inputs.record import project_drain
from fleetgen.model import App, Fleet, Project, SyncWindow
from fleetgen.resolver.plan import Placement, Plan
from fleetgen.rules.argocd import (
    API_VERSION,
    RESOURCES_FINALIZER,
    repo_url,
    server_url,
    written_repos,
)
from fleetgen.write.output import OutputFile

NAMESPACE_NOTE = (
    "Cluster-scoped kinds are denied unless listed; Namespace is allowed by name\n"
    "(clusterResourceWhitelist[].name) for the namespaces that its apps create\n"
    "with CreateNamespace=true."
)
NO_NAMESPACE_NOTE = (
    "Cluster-scoped kinds are denied unless listed; Namespace is not allowed:\n"
    "Fleet(create_namespaces=False), the namespaces are provisioned elsewhere."
)


def projects(plan: Plan) -> list[OutputFile]:
    """One AppProject per project of the fleet."""
    by_project: dict[str, list[Placement]] = {project.name: [] for project in plan.fleet.projects}
    app_project = {app.name: app.project for app in plan.fleet.apps}
    for placement in plan.placements:
        by_project[app_project[placement.app]].append(placement)
    return [
        _project_file(plan, project, by_project[project.name]).draining_as(
            project_drain(project.name)
        )
        for project in sorted(plan.fleet.projects, key=lambda p: p.name)
    ]


def _destinations(
    plan: Plan, project: Project, placements: Sequence[Placement]
) -> list[dict[str, str]]:
    """The project's destinations as written, else exactly where its apps are placed."""
    if project.destinations is not None:
        return [{"server": d.server, "namespace": d.namespace} for d in project.destinations]
    clusters = {cluster.name: cluster for cluster in plan.fleet.clusters}
    apps = {app.name: app for app in plan.fleet.apps}
    pairs = sorted(
        {
            (p.cluster, namespace)
            for p in placements
            for namespace in app_destinations(plan, apps[p.app], p)
        }
    )
    return [
        {"server": server_url(clusters[name].server), "name": name, "namespace": namespace}
        for name, namespace in pairs
    ]


def app_destinations(plan: Plan, app: App, placement: Placement) -> list[str]:
    """The namespaces the Application of ``app``'s ``placement`` needs: its namespace; for an
    App(namespace=None), "" (its Application's own destination, which Argo CD checks against the
    project: ``ValidatePermissions``) and each namespace its manifests put objects in (checked
    object by object at sync: controller ``validateSyncPermissions``)."""
    if placement.namespace is not None:
        return [placement.namespace]
    return ["", *sorted(plan.namespaces_of(app))]


def _project_file(plan: Plan, project: Project, placements: Sequence[Placement]) -> OutputFile:
    fleet = plan.fleet
    apps = {p.app for p in placements}
    spec: dict[str, Any] = {"description": project.description} if project.description else {}
    spec["sourceRepos"] = written_repos(project.source_repos) or source_repos(
        fleet.repo, placements
    )
    spec["destinations"] = _destinations(plan, project, placements)
    if project.service_account:
        spec["destinationServiceAccounts"] = [
            {
                "server": d["server"],
                "namespace": d["namespace"],
                "defaultServiceAccount": _impersonated(
                    project.service_account, d["namespace"], fleet.argocd.namespace
                ),
            }
            for d in spec["destinations"]
        ]
    spec["clusterResourceWhitelist"] = [
        *(
            {"group": group, "kind": kind}
            for group, kind in plan.permitted_cluster_kinds(project, apps)
        ),
        *(
            {"group": "", "kind": "Namespace", "name": namespace}
            for namespace in _created_namespaces(plan, placements)
        ),
    ]
    if project.namespace_resources_deny:
        spec["namespaceResourceBlacklist"] = [
            {"group": group, "kind": kind} for group, kind in project.namespace_resources_deny
        ]
    if project.roles:
        spec["roles"] = [
            _drop_empty(
                {
                    "name": role.name,
                    "description": role.description,
                    "policies": role.policies,
                    "groups": role.groups,
                }
            )
            for role in project.roles
        ]
    if project.sync_windows:
        spec["syncWindows"] = [
            _sync_window(plan, window, placements) for window in project.sync_windows
        ]
    doc = {
        "apiVersion": API_VERSION,
        "kind": "AppProject",
        "metadata": metadata(
            project.name,
            fleet.argocd.namespace,
            annotations=EARLY_WAVE,
            finalizers=[RESOURCES_FINALIZER],
        ),
        "spec": spec,
    }
    where = (
        "as written in fleet.py"
        if project.destinations is not None
        else ("exactly where its apps are placed")
    )
    note = NAMESPACE_NOTE if fleet.create_namespaces else NO_NAMESPACE_NOTE
    comment = f"AppProject {project.name}: destinations are {where}.\n{note}"
    shipped = sorted({name for app in apps for name in plan.namespace_objects.get(app, ())})
    if shipped:
        comment += (
            f"\nNamespace {', '.join(shipped)}: shipped by its apps with "
            "App(namespace=None),\nallowed by name."
        )
    if project.service_account:
        comment += _impersonation_note(fleet, project.service_account)
    return OutputFile(f"argocd/projects/{project.name}.yaml", (doc,), comment=comment)


def _impersonation_note(fleet: Fleet, account: str) -> str:
    """What argocd-cm needs for a tenant's apps to sync as its ``account``, and what else that
    setting does to projects without destinationServiceAccounts (`unenforced_impersonation`)."""
    note = (
        f"\nApps sync as ServiceAccount {account} in their namespace"
        "\n(created by argocd/tenants.yaml): in argocd-cm set"
        '\napplication.sync.impersonation.enabled: "true"'
    )
    if unenforced_impersonation(fleet):
        return note + (
            ' and\napplication.sync.impersonation.enforced: "false": enforced (the default)'
            "\nfails every Application of a project without destinationServiceAccounts."
        )
    return note + (
        ";\nbefore Argo CD 3.5 that fails every Application of a project without"
        "\ndestinationServiceAccounts, fleetgen's root among them (see the build's warning)."
    )


def impersonation_warnings(plan: Plan) -> list[Problem]:
    """A tenant's project placed by Argo CD while an instance may run a release before
    `ARGOCD_UNENFORCED_IMPERSONATION_SINCE`: the impersonation its apps need would fail every
    Application of the projects without a service account, fleetgen's root among them."""
    if unenforced_impersonation(plan.fleet):
        return []
    apps = {app.name: app for app in plan.fleet.apps}
    placed = {apps[p.app].project for p in plan.placements}
    return [
        at(
            project,
            f"project {project.name!r}: its apps sync as ServiceAccount "
            f"{project.service_account!r} only with application.sync.impersonation.enabled, "
            "which Argo CD before 3.5 enforces on every project: the root Application and "
            'the apps of projects without service_account would fail to sync ("no matching '
            'service account found"); once every instance runs Argo CD 3.5 or later set '
            'ArgoOptions(min_version="3.5") and application.sync.impersonation.enforced: '
            '"false" in argocd-cm',
            plan.fleet,
        )
        for project in plan.fleet.projects
        if project.service_account and project.name in placed
    ]


def remote_kind_warnings(plan: Plan) -> list[Problem]:
    """An app placed by Argo CD whose base lists remote bases, in a project that leaves
    ``cluster_resources`` unset: its AppProject whitelists only the cluster-scoped kinds the
    base's own files ship (`Plan.permitted_cluster_kinds`; build reads no remote), and Argo CD
    syncs no cluster-scoped object whose kind is not listed (``IsGroupKindNamePermitted``).
    A tenant's project is left out: its apps may create no cluster-scoped object at all."""
    projects = {project.name: project for project in plan.fleet.projects}
    placed = {placement.app for placement in plan.placements}
    found = []
    for app in plan.fleet.apps:
        project = projects.get(app.project)
        if (
            app.name not in placed
            or app.name not in plan.remote_bases
            or project is None
            or project.service_account
            or "cluster_resources" in project.model_fields_set
        ):
            continue
        shipped = plan.permitted_cluster_kinds(project, [app.name])
        kinds = ", ".join(f"{group}/{kind}" if group else kind for group, kind in shipped)
        found.append(
            at(
                app,
                f"app {app.name!r}: its base lists remote bases "
                f"({', '.join(plan.remote_bases[app.name])}), whose cluster-scoped objects "
                f"Argo CD refuses at sync: project {app.project!r} leaves cluster_resources "
                f"unset, so its AppProject permits only the kinds the base's own files ship "
                f"({kinds or 'none'}); list every cluster-scoped kind the app creates in "
                "Project(cluster_resources=[...]) (validate --render names those refused)",
                plan.fleet,
            )
        )
    return found


def chart_repos(placements: Iterable[Placement]) -> list[str]:
    """The chart repositories the placements' chart apps read, as their Applications name them."""
    return sorted({repo_url(p.chart.repo) for p in placements if p.chart and p.chart.repo})


def remote_repos(placements: Iterable[Placement]) -> list[str]:
    """The other repositories and OCI artifacts the placements' apps read (`App.source`)."""
    return sorted({p.remote.source.url for p in placements if p.remote and p.remote.source})


def reads_fleet_repo(placements: Iterable[Placement]) -> bool:
    """Whether any of the placements reads the fleet repository (`Placement.reads_fleet_repo`)."""
    return any(p.reads_fleet_repo for p in placements)


def source_repos(fleet_repo: str, placements: Sequence[Placement]) -> list[str]:
    """A project's derived ``sourceRepos``: exactly what its apps read (the fleet repository
    also when it holds no Argo CD placement, as before any app is placed)."""
    own = [fleet_repo] if reads_fleet_repo(placements) or not placements else []
    return [*own, *chart_repos(placements), *remote_repos(placements)]


def _impersonated(account: str, destination: str, home: str) -> str:
    """The account Argo CD impersonates for an Application with ``destination`` namespace: the
    one in that namespace, or for an empty one (App(namespace=None)) the one of the Application's
    namespace ``home``, written out (what util/settings ``DeriveServiceAccountToImpersonate`` would
    default to)."""
    return account if destination else f"{home}:{account}"


def _created_namespaces(plan: Plan, placements: Sequence[Placement]) -> list[str]:
    """The Namespaces the project's ``placements`` create: those the engines create for them
    (unless ``create_namespaces=False``) and those an App(namespace=None) ships itself."""
    created = {p.namespace for p in placements if plan.fleet.create_namespaces}
    apps = {p.app for p in placements}
    shipped = {name for app in apps for name in plan.namespace_objects.get(app, ())}
    return sorted({name for name in created | shipped if name is not None})


def _sync_window(plan: Plan, window: SyncWindow, placements: Sequence[Placement]) -> dict[str, Any]:
    """A sync window; fleet app and cluster names also match their Applications and servers.

    Argo CD matches ``applications`` against Application names (``<app>-<cluster>``) and
    ``clusters`` against the destination server, which is how fleetgen's Applications name
    their cluster.
    """
    applications: dict[str, list[str]] = {}
    for placement in placements:
        applications.setdefault(placement.app, []).append(f"{placement.app}-{placement.cluster}")
    servers = {c.name: [server_url(c.server)] for c in plan.fleet.clusters}
    entry = {
        "kind": window.kind,
        "schedule": window.schedule,
        "duration": window.duration,
        "applications": _expand(window.applications, applications),
        "clusters": _expand(window.clusters, servers),
        "namespaces": window.namespaces,
        "manualSync": window.manual_sync,
        "timeZone": window.time_zone,
    }
    return _drop_empty(entry, keep=("manualSync",))


def _expand(names: Sequence[str], meaning: Mapping[str, Sequence[str]]) -> list[str]:
    """``names`` followed by what each of them means to Argo CD, without repeats."""
    return list(
        dict.fromkeys([*names, *(item for name in names for item in sorted(meaning.get(name, ())))])
    )


def _drop_empty(entry: dict[str, Any], keep: Sequence[str] = ()) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if value or key in keep}
