"""``check`` refuses what Argo CD would silently ignore or reject at sync time (reserved project
names, clashing generated names, cluster TLS, sync options, project access); ``warnings``
reports what is allowed but risky or has no effect in Argo CD."""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

from fleetgen.emit.argocd.bootstrap import ROOT, _registered
from fleetgen.emit.argocd.projects import (
    app_destinations,
    chart_repos,
    impersonation_warnings,
    reads_fleet_repo,
    remote_kind_warnings,
)
from fleetgen.emit.argocd.tenants import PROJECT as TENANTS
from fleetgen.emit.common import ca_command
from fleetgen.errors import HasOrigin, Problem, at
from fleetgen.model import App, Cluster, ExternalSecretRef, Spec, SyncPolicy
from fleetgen.model.apps import overrides_of
from fleetgen.resolver.layering import layer_object, sync_owner
from fleetgen.resolver.plan import Placement, Plan, Settings
from fleetgen.resolver.timing import TIMING_FIELDS
from fleetgen.rules.argocd import (
    GENERATE_PATHS,
    SECRET_TYPE,
    SYNC_WAVE,
    permitted,
    repo_permitted,
    server_url,
    written_repos,
)

RESERVED_PROJECTS = {
    "default": "Argo CD's built-in project, which apps never use",
    ROOT: "fleetgen's own project for the generated Argo CD objects",
    TENANTS: "fleetgen's project for the ServiceAccounts of tenants",
}
_TIMING_KEYS = frozenset(f"sync/{name}" for name in TIMING_FIELDS)  # in Settings.provenance
_SYNC_OPTION = re.compile(r"[A-Za-z]+=[!-~]+")


def check(plan: Plan) -> list[Problem]:
    """Spec problems Argo CD cannot express, or would reject or ignore at sync time."""
    fleet = plan.fleet
    return [
        *(
            at(p, f"project name {p.name!r} is reserved: {RESERVED_PROJECTS[p.name]}", fleet)
            for p in fleet.projects
            if p.name in RESERVED_PROJECTS
        ),
        *_name_clashes(plan),
        *_cluster_problems(plan),
        *_sync_option_problems(plan),
        *_app_problems(plan),
        *_post_render_problems(plan),
        *_access_problems(plan),
    ]


def warnings(plan: Plan) -> list[Problem]:
    """Allowed but risky or not expressible here: wildcard project sources or destinations,
    flags a manual sync ignores, a chart's Flux settings. (``depends_on``, which Argo CD cannot
    honour, is the fleet map's to warn of: only where no placement of the app honours it,
    `fleetgen.emit.fleetmap`.)"""
    found: list[Problem] = []
    for project in plan.fleet.projects:
        wild = [repo for repo in project.source_repos if "*" in repo]
        wild += [
            f"{d.server} {d.namespace}"
            for d in project.destinations or ()
            if "*" in d.server + d.namespace
        ]
        if wild:
            found.append(
                at(
                    project,
                    f"project {project.name!r} uses wildcards "
                    f"({'; '.join(wild)}): its apps may deploy anything there",
                    plan.fleet,
                )
            )
    settings = _distinct_settings(plan)
    manual = any(not s.sync.automated and _auto_flags(s.sync) for s in settings)
    ignored = {
        (p.app, p.env): flags
        for p in (plan.placements if manual else ())
        if not p.settings.sync.automated and (flags := _auto_flags(p.settings.sync))
    }
    apps = {app.name: app for app in plan.fleet.apps}
    for (app, env), flags in sorted(ignored.items()):
        found.append(
            at(
                apps[app],
                f"app {app!r} in environment {env!r}: sync is manual, so "
                f"{', '.join(flags)} has no effect in Argo CD",
                plan.fleet,
            )
        )
    found += [
        at(
            cluster,
            f"cluster {cluster.name!r}: insecure=True: Argo CD does not verify "
            "its API server's certificate, so anyone on the network path can "
            "impersonate it; set ca_data instead",
            plan.fleet,
        )
        for cluster in _registered(plan)
        if cluster.insecure and not isinstance(plan.credentials[cluster.name], ExternalSecretRef)
    ]
    found += (
        _chart_option_warnings(plan) + remote_kind_warnings(plan) + impersonation_warnings(plan)
    )
    return found + _self_heal_warnings(plan, settings) + _timing_warnings(plan, settings)


# What each Flux-only HelmChart option means where Argo CD places the chart.
_REMEDIATION = (
    "helm-controller's remediation; an Application retries a failed sync by "
    "SyncPolicy(retry=Retry(...)) instead"
)
_CHART_OPTIONS = {
    "interval": "how often Flux checks the chart's source; Argo CD re-reads sources on its own "
    "period (argocd-cm timeout.reconciliation, for every Application)",
    "verify": "Argo CD verifies no chart signature: its placements deploy the chart unverified",
    "install_retries": _REMEDIATION,
    "upgrade_retries": _REMEDIATION,
    "test": "Argo CD never runs Helm tests (gitops-engine's hook/helm Types maps only the pre- "
    "and post-install and -upgrade hooks; a test hook is skipped)",
}


def _chart_option_warnings(plan: Plan) -> list[Problem]:
    """The Flux settings of a chart (`_CHART_OPTIONS`) on an app Argo CD places: one warning
    each, at the HelmChart, saying what it means there."""
    found = []
    for app in _placed_apps(plan):
        chart = app.chart
        if chart is None:
            continue
        for name, meaning in _CHART_OPTIONS.items():
            if getattr(chart, name) not in (None, False):
                found.append(
                    at(
                        chart,
                        f"app {app.name!r}: HelmChart({name}=...) is a Flux setting, which its "
                        f"Argo CD placements ignore: {meaning}",
                        plan.fleet,
                    )
                )
    return found


def _distinct_settings(plan: Plan) -> list[Settings]:
    """The placements' Settings, each object once (the placements on one overlay share one):
    what a warning tests before it walks the placements."""
    return list({id(p.settings): p.settings for p in plan.placements}.values())


def _self_heal_warnings(plan: Plan, settings: Iterable[Settings]) -> list[Problem]:
    """``self_heal`` where RollingSync syncs: the ApplicationSet controller turns automated sync
    off on every Application it generates and syncs them itself, wave by wave, when they go out
    of sync with Git (``disableAutomatedSync`` in ``applicationset/progressivesync``; Argo CD 3.3:
    ``ApplicationSetReconciler.syncDesiredApplications``), so no Application heals drift.
    ``settings``: `_distinct_settings`."""
    fleet = plan.fleet
    if not any(s.sync.self_heal for s in settings):
        return []
    rolling = {env.name for env in fleet.environments if env.rollout is not None}
    affected: dict[int, tuple[Spec, str, list[str]]] = {}
    for p in plan.placements:
        if p.env in rolling and p.settings.sync.self_heal:
            layer = sync_owner(fleet, p, "self_heal")
            where = affected.setdefault(id(layer), (layer, p.env, []))
            where[2].append(p.app)
    return [
        at(
            layer,
            f"environment {env!r} rolls out with RollingSync, which turns automated "
            "sync off on its Applications and syncs them itself when a change arrives: "
            f"self_heal=True has no effect on the Argo CD placements of app(s) "
            f"{', '.join(sorted(set(names)))}; drift stays until the next change",
            fleet,
        )
        for layer, env, names in affected.values()
    ]


def _timing_warnings(plan: Plan, settings: Iterable[Settings]) -> list[Problem]:
    """Flux timing (``interval``, ``timeout``, ``retry_interval``, ``wait``) set by a layer that
    reaches Argo CD placements: an Application has no such settings (only ``retry``).
    ``settings``: `_distinct_settings`."""
    if all(_TIMING_KEYS.isdisjoint(s.provenance) for s in settings):
        return []
    affected: dict[int, tuple[Spec, set[str], set[str]]] = {}
    for p in plan.placements:
        for name in TIMING_FIELDS:
            if f"sync/{name}" in p.settings.provenance:
                layer = sync_owner(plan.fleet, p, name)
                _, names, apps = affected.setdefault(id(layer), (layer, set(), set()))
                names.add(name)
                apps.add(p.app)
    return [
        at(
            layer,
            f"{', '.join(sorted(names))}: Flux settings, which the Argo CD placements "
            f"of app(s) {', '.join(sorted(apps))} do not have (an Application syncs "
            "when Git changes and retries by retry=Retry(...)); they apply to Flux "
            "placements only",
            plan.fleet,
        )
        for layer, names, apps in affected.values()
    ]


def _placed_apps(plan: Plan) -> list[App]:
    """The apps Argo CD places somewhere, in spec order."""
    placed = {p.app for p in plan.placements}
    return [app for app in plan.fleet.apps if app.name in placed]


def _auto_flags(sync: SyncPolicy) -> list[str]:
    flags = {"prune": sync.prune, "self_heal": sync.self_heal, "allow_empty": sync.allow_empty}
    return [f"{name}=True" for name, value in flags.items() if value]


def _name_clashes(plan: Plan) -> Iterator[Problem]:
    """Generated names that two different (app, cluster) or (app, env) pairs produce."""
    # "<app>-<x>" of two such pairs is one name only if one app's name is the other's followed
    # by "-" and more (one app gives one name per x): only those apps' names need building.
    prefixed = _hyphen_prefixed({app.name for app in plan.fleet.apps})
    placements = [p for p in plan.placements if p.app in prefixed]
    applications = (
        (f"{p.app}-{p.cluster}", f"app {p.app!r} on cluster {p.cluster!r}", p.app)
        for p in placements
    )
    sets = (
        (f"{p.app}-{p.env}", f"app {p.app!r} in environment {p.env!r}", p.app) for p in placements
    )
    yield from _clashes(applications, "Application", plan)
    yield from _clashes(sets, "ApplicationSet", plan)


def _hyphen_prefixed(names: set[str]) -> set[str]:
    """The names that are another of ``names`` followed by "-" and more, and those others."""
    found = set()
    for name in names:
        for index, char in enumerate(name):
            if char == "-" and name[:index] in names:
                found |= {name, name[:index]}
    return found


def _clashes(names: Iterable[tuple[str, str, str]], what: str, plan: Plan) -> Iterator[Problem]:
    apps = {app.name: app for app in plan.fleet.apps}
    sources: dict[str, dict[str, str]] = defaultdict(dict)  # name -> source -> app
    for name, source, app in names:
        sources[name][source] = app
    for name, by_source in sorted(sources.items()):
        for source, app in sorted(by_source.items()) if len(by_source) > 1 else ():
            others = ", ".join(sorted(set(by_source) - {source}))
            yield at(
                apps[app],
                f"{what} name {name!r} of {source} is also the name of "
                f"{others}; rename an app, cluster or environment",
                plan.fleet,
            )


def _cluster_problems(plan: Plan) -> Iterator[Problem]:
    seen: dict[str, str] = {}
    for cluster in _registered(plan):
        server = server_url(cluster.server)
        if server in seen:
            yield at(
                cluster,
                f"cluster {cluster.name!r} has the server URL of cluster "
                f"{seen[server]!r} ({server}); Argo CD identifies a cluster by its "
                "server, so one cluster cannot be registered twice",
                plan.fleet,
            )
        seen.setdefault(server, cluster.name)
        yield from _tls_problems(plan, cluster)
        yield from _reserved(cluster, cluster.labels, SECRET_TYPE, "label", plan)
        yield from _reserved(cluster, cluster.annotations, SYNC_WAVE, "annotation", plan)


def _tls_problems(plan: Plan, cluster: Cluster) -> Iterator[Problem]:
    """How an AwsAuth/ExecAuth registration verifies the API server: Argo CD's REST config takes
    its TLS settings from ``tlsClientConfig`` alone (``Cluster.RawRestConfig``), so without
    ``caData`` the system trust store decides, which a managed cluster's own CA is not in."""
    credentials = plan.credentials[cluster.name]
    name = cluster.name
    if isinstance(credentials, ExternalSecretRef):
        for field, key, value in (
            ("ca_data", "caData", cluster.ca_data),
            ("insecure", "insecure", cluster.insecure),
        ):
            if value:
                yield at(
                    cluster,
                    f"cluster {name!r}: {field} goes with AwsAuth or ExecAuth "
                    "credentials; with an ExternalSecretRef the store's config "
                    f"JSON carries tlsClientConfig.{key}",
                    plan.fleet,
                )
    elif credentials is not None and cluster.ca_data and cluster.insecure:
        yield at(
            cluster,
            f"cluster {name!r}: set ca_data or insecure=True, not both (client-go "
            "refuses a CA together with the insecure flag); drop insecure",
            plan.fleet,
        )
    elif credentials is not None and not cluster.ca_data and not cluster.insecure:
        yield at(
            cluster,
            f"cluster {name!r}: {type(credentials).__name__} credentials need the "
            "cluster's CA: without it Argo CD verifies the API server against the "
            "system trust store, which the cluster's own CA is not in, and every "
            f"sync fails with x509; keep what `{ca_command(credentials)}` prints in a file "
            f'of the repository and set Cluster(ca_data=CaFile("certs/{name}.pem")) '
            "(`fleetgen add cluster --ca-file FILE`; --ca-data FILE inlines it), or "
            "insecure=True to skip verification",
            plan.fleet,
        )


def _reserved(
    where: HasOrigin, keys: Iterable[str], key: str, what: str, plan: Plan
) -> Iterator[Problem]:
    if key in keys:
        yield at(
            where,
            f"{what} {key!r} is set by fleetgen on the generated Argo CD object; remove it",
            plan.fleet,
        )


def _sync_policies(plan: Plan) -> Iterator[SyncPolicy]:
    fleet = plan.fleet
    yield fleet.sync
    yield from (env.sync for env in fleet.environments)
    for app in fleet.apps:
        for layer in [app, *overrides_of(app)]:
            if layer.sync is not None:
                yield layer.sync


def _sync_option_problems(plan: Plan) -> Iterator[Problem]:
    for sync in _sync_policies(plan):
        for option in sync.sync_options:
            if not _SYNC_OPTION.fullmatch(option):
                yield at(
                    sync,
                    f"sync option {option!r} is not of the form Name=value (e.g. "
                    "'ServerSideApply=true'); Argo CD ignores anything else",
                    plan.fleet,
                )


def _app_problems(plan: Plan) -> Iterator[Problem]:
    fleet = plan.fleet
    if ";" in fleet.output_dir:
        yield at(
            fleet,
            f"output_dir {fleet.output_dir!r} contains ';', which separates the "
            f"paths of Argo CD's {GENERATE_PATHS} annotation",
            fleet,
        )
    bases = {o.app: o.base for o in plan.env_overlays}
    for app in _placed_apps(plan):
        yield from _reserved(app, app.annotations, GENERATE_PATHS, "annotation", plan)
        if ";" in (bases.get(app.name) or ""):
            yield at(
                app,
                f"app {app.name!r}: path {app.path!r} contains ';', which separates "
                f"the paths of Argo CD's {GENERATE_PATHS} annotation",
                fleet,
            )


def _post_render_problems(plan: Plan) -> Iterator[Problem]:
    """A chart app's ``images`` or ``patches`` on Argo CD placements, at each layer that sets
    them: an Application cannot post-render a chart. Its Helm source renders with ``helm
    template`` and no post-renderer (reposerver/repository ``helmTemplate``); a kustomize source
    inflating the chart (``helmCharts``) builds only with ``--enable-helm`` in argocd-cm's
    ``kustomize.buildOptions`` (the controller's manifest request carries argocd-cm's kustomize
    settings, ``GetKustomizeSettings`` in controller/state.go ``GetRepoObjs``; an Application
    has no build option of its own), and a config management plugin is installed in the
    repo-server: both settings of the whole Argo CD, which fleetgen does not own."""
    found: dict[int, tuple[Spec, str, set[str], list[str]]] = {}
    for p in plan.placements:
        if p.chart is None or not (p.settings.images or p.settings.patches):
            continue
        for key, layer in p.settings.provenance.items():
            if key.startswith(("image/", "patch/")):
                owner = layer_object(plan.fleet, p, layer)
                assert owner is not None  # images and patches come from an app's layers
                _, _, fields, clusters = found.setdefault(id(owner), (owner, p.app, set(), []))
                fields.add("images" if key.startswith("image/") else "patches")
                if p.cluster not in clusters:
                    clusters.append(p.cluster)
    for owner, app, fields, clusters in found.values():
        yield at(
            owner,
            f"app {app!r}: {' and '.join(sorted(fields))} post-render a chart's objects, which "
            f"Argo CD cannot do for its placements on {', '.join(clusters)}: an Application's "
            "Helm source has no post-renderer, and kustomize inflating a chart needs "
            "'--enable-helm' in argocd-cm's kustomize.buildOptions (or a config management "
            "plugin), a setting of the whole Argo CD; set them through values={...}, or place "
            "the app on Flux",
            plan.fleet,
        )


def _access_problems(plan: Plan) -> Iterator[Problem]:
    """Apps that the project's own sources or destinations would refuse."""
    fleet = plan.fleet
    apps = {app.name: app for app in fleet.apps}
    clusters = {cluster.name: cluster for cluster in fleet.clusters}
    projects_by_name = {project.name: project for project in fleet.projects}
    by_project: dict[str, list[Placement]] = defaultdict(list)
    for name, placements in plan.by_app().items():
        by_project[apps[name].project] += placements
    for project in fleet.projects:
        if (
            project.source_repos
            and not repo_permitted(project.source_repos, fleet.repo)
            and (reads_fleet_repo(by_project[project.name]) or not by_project[project.name])
        ):
            yield at(
                project,
                f"project {project.name!r}: source_repos do not permit the fleet "
                f"repo {fleet.repo}, which its apps' Applications read",
                fleet,
            )
    for app in _placed_apps(plan):
        patterns = projects_by_name[app.project].source_repos
        if app.source is not None and patterns and not repo_permitted(patterns, app.source.url):
            yield at(
                app.source,
                f"app {app.name!r}: its source {app.source.url} is outside the "
                f"source_repos of project {app.project!r}; add it there or "
                "move the app",
                fleet,
            )
    for project in fleet.projects:
        for repo in chart_repos(by_project[project.name]) if project.source_repos else ():
            if not repo_permitted(written_repos(project.source_repos), repo):
                yield at(
                    project,
                    f"project {project.name!r}: source_repos do not permit the "
                    f"chart repository {repo} that its apps read; add it",
                    fleet,
                )
    for app in _placed_apps(plan):
        if app.targets.runtime and projects_by_name[app.project].destinations is None:
            yield at(
                app.targets,
                f"app {app.name!r}: with Selector(runtime=True) its "
                "Applications may reach clusters fleet.py does not know, "
                f"which derived destinations would refuse: give project "
                f"{app.project!r} explicit destinations=[Destination(...)]",
                fleet,
            )
    # The apps of projects with destinations; the namespaces of each placement, each verdict once.
    needs = {
        app.name
        for app in fleet.apps
        if app.project in projects_by_name
        and projects_by_name[app.project].destinations is not None
    }
    allowed = functools.cache(
        lambda project, cluster, namespace: permitted(
            projects_by_name[project].destinations or (),
            server_url(clusters[cluster].server),
            namespace,
        )
    )
    refused: dict[tuple[str, str], list[str]] = defaultdict(list)
    for p in plan.placements if needs else ():  # no walk when no project lists destinations
        for namespace in app_destinations(plan, apps[p.app], p) if p.app in needs else ():
            if not allowed(apps[p.app].project, p.cluster, namespace):
                refused[p.app, namespace].append(p.cluster)
    for (app_name, namespace), names in refused.items():
        app = apps[app_name]
        yield at(
            app,
            f"app {app_name!r}: project {app.project!r} destinations do not permit "
            f"namespace {namespace!r} on cluster(s) {', '.join(names)}",
            fleet,
        )
