"""The Argo CD emitter: cluster registrations, AppProjects, ApplicationSets and a root app.

Files under ``argocd/``: ``clusters/<cluster>.yaml``, ``projects/<project>.yaml``,
``applicationsets/<app>.yaml`` and ``bootstrap.yaml`` (fleetgen's AppProject and the root
Application that syncs the whole directory). ``check`` refuses what Argo CD would silently
ignore or reject at sync time; ``warnings`` reports what is allowed but risky.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from fleetgen.emit.argocd.appsets import DEPENDS_ON_NOTE, application_sets
from fleetgen.emit.argocd.clusters import registration
from fleetgen.emit.argocd.common import (
    API_VERSION,
    EARLY_WAVE,
    GENERATE_PATHS,
    SECRET_TYPE,
    SYNC_WAVE,
    metadata,
    server_url,
)
from fleetgen.emit.argocd.projects import chart_repos, permitted, projects, repo_permitted
from fleetgen.errors import HasOrigin, Problem, at
from fleetgen.model import ExternalSecretRef, SyncPolicy
from fleetgen.output import OutputFile
from fleetgen.plan import Placement, Plan

ROOT = "fleetgen"  # fleetgen's own AppProject and the root Application
RESERVED_PROJECTS = {"default": "Argo CD's built-in project, which apps never use",
                     ROOT: "fleetgen's own project for the generated Argo CD objects"}
IN_CLUSTER = "https://kubernetes.default.svc"
_SYNC_OPTION = re.compile(r"[A-Za-z]+=[!-~]+")


def check(plan: Plan) -> list[Problem]:
    """Spec problems Argo CD cannot express, or would reject or ignore at sync time."""
    fleet = plan.fleet
    problems = [
        *(at(p, f"project name {p.name!r} is reserved: {RESERVED_PROJECTS[p.name]}", fleet)
          for p in fleet.projects if p.name in RESERVED_PROJECTS),
        *_name_clashes(plan), *_cluster_problems(plan), *_sync_option_problems(plan),
        *_app_problems(plan), *_access_problems(plan),
    ]
    return sorted(problems, key=lambda p: (p.file, p.line, p.message))


def warnings(plan: Plan) -> list[Problem]:
    """Allowed but risky or not expressible here: wildcard project sources or destinations,
    flags a manual sync ignores, ``depends_on`` (no ordering between Argo CD Applications)."""
    found: list[Problem] = []
    for project in plan.fleet.projects:
        wild = [repo for repo in project.source_repos if "*" in repo]
        wild += [f"{d.server} {d.namespace}" for d in project.destinations or ()
                 if "*" in d.server + d.namespace]
        if wild:
            found.append(at(project, f"project {project.name!r} uses wildcards "
                                     f"({'; '.join(wild)}): its apps may deploy anything there",
                            plan.fleet))
    ignored = {(p.app, p.env): flags for p in plan.placements
               if not p.settings.sync.automated and (flags := _auto_flags(p.settings.sync))}
    apps = {app.name: app for app in plan.fleet.apps}
    for (app, env), flags in sorted(ignored.items()):
        found.append(at(apps[app], f"app {app!r} in environment {env!r}: sync is manual, so "
                                   f"{', '.join(flags)} has no effect in Argo CD", plan.fleet))
    found += [at(app, f"app {app.name!r}: depends_on is honoured by Flux only; {DEPENDS_ON_NOTE}",
                 plan.fleet)
              for app in plan.fleet.apps if app.depends_on]
    return found


def emit(plan: Plan) -> list[OutputFile]:
    """Registrations, AppProjects, ApplicationSets, then the bootstrap that syncs them all."""
    files = [registration(plan, cluster)
             for cluster in sorted(plan.fleet.clusters, key=lambda c: c.name)]
    files += projects(plan) + application_sets(plan)
    return [*files, _bootstrap(plan, files)]


def _auto_flags(sync: SyncPolicy) -> list[str]:
    flags = {"prune": sync.prune, "self_heal": sync.self_heal, "allow_empty": sync.allow_empty}
    return [f"{name}=True" for name, value in flags.items() if value]


def _name_clashes(plan: Plan) -> Iterator[Problem]:
    """Generated names that two different (app, cluster) or (app, env) pairs produce."""
    applications = ((f"{p.app}-{p.cluster}", f"app {p.app!r} on cluster {p.cluster!r}", p.app)
                    for p in plan.placements)
    sets = ((f"{p.app}-{p.env}", f"app {p.app!r} in environment {p.env!r}", p.app)
            for p in plan.placements)
    yield from _clashes(applications, "Application", plan)
    yield from _clashes(sets, "ApplicationSet", plan)


def _clashes(names: Iterable[tuple[str, str, str]], what: str, plan: Plan) -> Iterator[Problem]:
    apps = {app.name: app for app in plan.fleet.apps}
    sources: dict[str, dict[str, str]] = defaultdict(dict)  # name -> source -> app
    for name, source, app in names:
        sources[name][source] = app
    for name, by_source in sorted(sources.items()):
        for source, app in sorted(by_source.items()) if len(by_source) > 1 else ():
            others = ", ".join(sorted(set(by_source) - {source}))
            yield at(apps[app], f"{what} name {name!r} of {source} is also the name of "
                                f"{others}; rename an app, cluster or environment", plan.fleet)


def _cluster_problems(plan: Plan) -> Iterator[Problem]:
    seen: dict[str, str] = {}
    for cluster in plan.fleet.clusters:
        server = server_url(cluster)
        if server in seen:
            yield at(cluster, f"cluster {cluster.name!r} has the server URL of cluster "
                              f"{seen[server]!r} ({server}); Argo CD identifies a cluster by its "
                              "server, so one cluster cannot be registered twice", plan.fleet)
        seen.setdefault(server, cluster.name)
        if cluster.ca_data and isinstance(plan.credentials[cluster.name], ExternalSecretRef):
            yield at(cluster, f"cluster {cluster.name!r}: ca_data goes with AwsAuth or ExecAuth "
                              "credentials; with an ExternalSecretRef the store's config JSON "
                              "carries tlsClientConfig.caData", plan.fleet)
        yield from _reserved(cluster, cluster.labels, SECRET_TYPE, "label", plan)
        yield from _reserved(cluster, cluster.annotations, SYNC_WAVE, "annotation", plan)


def _reserved(where: HasOrigin, keys: Iterable[str], key: str, what: str,
              plan: Plan) -> Iterator[Problem]:
    if key in keys:
        yield at(where, f"{what} {key!r} is set by fleetgen on the generated Argo CD object; "
                        "remove it", plan.fleet)


def _sync_policies(plan: Plan) -> Iterator[SyncPolicy]:
    fleet = plan.fleet
    yield fleet.sync
    yield from (env.sync for env in fleet.environments)
    for app in fleet.apps:
        for layer in [app, *app.per_env.values(), *app.per_cluster.values()]:
            if layer.sync is not None:
                yield layer.sync


def _sync_option_problems(plan: Plan) -> Iterator[Problem]:
    for sync in _sync_policies(plan):
        for option in sync.sync_options:
            if not _SYNC_OPTION.fullmatch(option):
                yield at(sync, f"sync option {option!r} is not of the form Name=value (e.g. "
                               "'CreateNamespace=true'); Argo CD ignores anything else",
                         plan.fleet)


def _app_problems(plan: Plan) -> Iterator[Problem]:
    fleet = plan.fleet
    if ";" in fleet.output_dir:
        yield at(fleet, f"output_dir {fleet.output_dir!r} contains ';', which separates the "
                        f"paths of Argo CD's {GENERATE_PATHS} annotation", fleet)
    bases = {o.app: o.base for o in plan.env_overlays}
    for app in fleet.apps:
        yield from _reserved(app, app.annotations, GENERATE_PATHS, "annotation", plan)
        if ";" in bases.get(app.name, ""):
            yield at(app, f"app {app.name!r}: path {app.path!r} contains ';', which separates "
                          f"the paths of Argo CD's {GENERATE_PATHS} annotation", fleet)


def _access_problems(plan: Plan) -> Iterator[Problem]:
    """Apps that the project's own sources or destinations would refuse."""
    fleet = plan.fleet
    apps = {app.name: app for app in fleet.apps}
    clusters = {cluster.name: cluster for cluster in fleet.clusters}
    projects_by_name = {project.name: project for project in fleet.projects}
    for project in fleet.projects:
        if project.source_repos and not repo_permitted(project.source_repos, fleet.repo):
            yield at(project, f"project {project.name!r}: source_repos do not permit the fleet "
                              f"repo {fleet.repo}, which every Application reads", fleet)
    by_project: dict[str, list[Placement]] = defaultdict(list)
    for p in plan.placements:
        by_project[apps[p.app].project].append(p)
    for project in fleet.projects:
        for repo in chart_repos(by_project[project.name]) if project.source_repos else ():
            if not repo_permitted(project.source_repos, repo):
                yield at(project, f"project {project.name!r}: source_repos do not permit the "
                                  f"chart repository {repo} that its apps read; add it",
                         fleet)
    refused: dict[str, list[str]] = defaultdict(list)
    for p in plan.placements:
        project = projects_by_name[apps[p.app].project]
        if project.destinations is not None and not permitted(
                project.destinations, server_url(clusters[p.cluster]), apps[p.app].namespace):
            refused[p.app].append(p.cluster)
    for app_name, names in refused.items():
        app = apps[app_name]
        yield at(app, f"app {app_name!r}: project {app.project!r} destinations do not permit "
                      f"namespace {app.namespace!r} on cluster(s) {', '.join(names)}", fleet)


def _kinds(files: Iterable[OutputFile]) -> list[tuple[str, str]]:
    """(group, kind) of every generated document, plus the bootstrap's own."""
    found = {("argoproj.io", "AppProject"), ("argoproj.io", "Application")}
    for file in files:
        for doc in file.documents:
            group, _, _ = doc["apiVersion"].rpartition("/")
            found.add((group, doc["kind"]))
    return sorted(found)


def _bootstrap(plan: Plan, files: Iterable[OutputFile]) -> OutputFile:
    fleet = plan.fleet
    namespace = fleet.argocd.namespace
    path = posixpath.join(fleet.output_dir, "argocd")
    here = {"server": IN_CLUSTER, "namespace": namespace}
    project: dict[str, Any] = {
        "apiVersion": API_VERSION, "kind": "AppProject",
        "metadata": metadata(ROOT, namespace, annotations=EARLY_WAVE),
        "spec": {"description": f"fleetgen: the generated Argo CD objects of fleet {fleet.name}",
                 "sourceRepos": [fleet.repo], "destinations": [here],
                 "clusterResourceWhitelist": [],
                 "namespaceResourceWhitelist": [{"group": group, "kind": kind}
                                                for group, kind in _kinds(files)]},
    }
    root: dict[str, Any] = {
        "apiVersion": API_VERSION, "kind": "Application",
        "metadata": metadata(ROOT, namespace),
        "spec": {"project": ROOT,
                 "source": {"repoURL": fleet.repo, "targetRevision": fleet.revision,
                            "path": path, "directory": {"recurse": True}},
                 "destination": here,
                 "syncPolicy": {"automated": {"prune": True, "selfHeal": True},
                                "syncOptions": ["PruneLast=true"]}},
    }
    comment = (f"Apply once: kubectl apply -n {namespace} -f {path}/bootstrap.yaml\n"
               f"The root Application then keeps Argo CD in sync with {path}/, this file "
               "included.\nProject fleetgen may manage only the kinds generated there, in "
               f"namespace {namespace};\nthat includes cluster Secrets and AppProjects, so "
               f"guard who may change {path}/.")
    return OutputFile("argocd/bootstrap.yaml", (project, root), comment=comment)
