"""``emit``: every Argo CD file of the Plan, per Argo CD instance (`Fleet.argocd_instances`), each
instance's ending with its ``bootstrap.yaml``, fleetgen's AppProject and the root Application
that syncs the instance's whole folder (``argocd/``, or an environment's own ``argocd-<env>/``)."""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Any

from fleetgen.emit.argocd.appsets import application_sets
from fleetgen.emit.argocd.clusters import registration
from fleetgen.emit.argocd.common import EARLY_WAVE, metadata
from fleetgen.emit.argocd.projects import projects
from fleetgen.emit.argocd.tenants import tenant_files
from fleetgen.emit.common import argocd_bootstrap
from fleetgen.emit.notices import argocd_readme
from fleetgen.model import IN_CLUSTER, ArgoInstance, Cluster, Fleet
from fleetgen.resolver.plan import Plan
from fleetgen.rules.argocd import API_VERSION
from fleetgen.util.layout import ARGOCD_DIR, BOOTSTRAP
from fleetgen.write.output import OutputFile

ROOT = "fleetgen"  # fleetgen's own AppProject and the root Application
# Why the root Application syncs in two waves and without PruneLast (gitops-engine
# syncContext.Sync: a wave waits for its objects to be healthy and a Degraded one fails the sync,
# except in the last wave; PruneLast would add a prune wave after it).
REGISTRATION_NOTE = (
    "Sync waves: AppProjects first (-1), everything else in the last wave (0), prunes\n"
    "included (no PruneLast). Argo CD fails a sync on an object that is Degraded before\n"
    "the last wave, so a cluster registration whose store entry is missing (its\n"
    "ExternalSecret Degraded) never holds back the ApplicationSets; the cluster\n"
    "generator picks the cluster up once its Secret appears."
)


def emit(plan: Plan) -> list[OutputFile]:
    """The files of each Argo CD instance, in its folder."""
    return [
        _in_folder(file, instance.directory)
        for instance in plan.fleet.argocd_instances
        for file in _instance_files(instance_plan(plan, instance), instance)
    ]


def instance_plan(plan: Plan, instance: ArgoInstance) -> Plan:
    """The part of ``plan`` (Argo CD's) that ``instance`` reconciles, its options as the fleet's:
    the placements of its environments."""
    envs = set(instance.envs)
    return replace(
        plan,
        fleet=plan.fleet.model_copy(update={"argocd": instance.options}),
        placements=tuple(p for p in plan.placements if p.env in envs),
    )


def _in_folder(file: OutputFile, directory: str) -> OutputFile:
    """``file`` (every instance file is emitted under ``argocd/``) moved to the instance's
    ``directory``."""
    if directory == ARGOCD_DIR:
        return file
    return replace(file, path=f"{directory}/{file.path.partition('/')[2]}")


def _instance_files(plan: Plan, instance: ArgoInstance) -> list[OutputFile]:
    """ApplicationSets, registrations, AppProjects, tenants, then the bootstrap that syncs them
    all (paths under ``argocd/``)."""
    files = application_sets(plan)
    files += [
        registration(plan, cluster)
        for cluster in sorted(_registered(plan), key=lambda c: c.name)
        if cluster.registration == "fleetgen"
    ]
    files += projects(plan) + tenant_files(plan)
    readme = argocd_readme(plan)
    if readme is not None:
        files.append(OutputFile(f"{ARGOCD_DIR}/README.md", text=readme))
    return [*files, _bootstrap(plan, instance)]


def _registered(plan: Plan) -> list[Cluster]:
    """The clusters Argo CD places something on, in spec order: those it registers."""
    placed = {p.cluster for p in plan.placements}
    return [cluster for cluster in plan.fleet.clusters if cluster.name in placed]


# Every (API group, kind) fleetgen can emit under argocd/, which the root Application applies:
# ApplicationSets, registrations (Secret or ExternalSecret), AppProjects, the tenants'
# Applications, the bootstrap itself. Fixed, never derived from the current output: Argo CD
# leaves alone a live object whose kind its project no longer permits (controller/state.go
# `CompareAppState` drops it from the live state), so a kind that left the output would never be
# pruned (the last ExternalSecret registration moved to AwsAuth kept overwriting its Secret).
ROOT_KINDS = (
    ("", "Secret"),
    ("argoproj.io", "AppProject"),
    ("argoproj.io", "Application"),
    ("argoproj.io", "ApplicationSet"),
    ("external-secrets.io", "ExternalSecret"),
)


def _bootstrap(plan: Plan, instance: ArgoInstance) -> OutputFile:
    """The root AppProject and Application of ``instance``; the project may manage the
    `ROOT_KINDS`."""
    fleet = plan.fleet
    namespace = fleet.argocd.namespace
    path = posixpath.join(fleet.output_dir, instance.directory)
    here = {"server": IN_CLUSTER, "namespace": namespace}
    project: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "AppProject",
        "metadata": metadata(ROOT, namespace, annotations=EARLY_WAVE),
        "spec": {
            "description": f"fleetgen: the generated Argo CD objects of fleet {fleet.name}",
            "sourceRepos": [fleet.repo],
            "destinations": [here],
            "clusterResourceWhitelist": [],
            "namespaceResourceWhitelist": [
                {"group": group, "kind": kind} for group, kind in ROOT_KINDS
            ],
        },
    }
    root: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "Application",
        "metadata": metadata(ROOT, namespace),
        "spec": {
            "project": ROOT,
            "source": {
                "repoURL": fleet.repo,
                "targetRevision": fleet.revision,
                "path": path,
                "directory": {"recurse": True},
            },
            "destination": here,
            "syncPolicy": {"automated": {"prune": True, "selfHeal": True}},
        },
    }
    comment = (
        f"{_serves(plan.fleet, instance)}"
        f"Apply once: {argocd_bootstrap(fleet, instance)}\n"
        f"The root Application then keeps Argo CD in sync with {path}/, this file "
        "included.\nProject fleetgen may manage only the kinds fleetgen generates there, in "
        f"namespace {namespace};\nthat includes cluster Secrets and AppProjects, so "
        f"guard who may change {path}/.\n{REGISTRATION_NOTE}"
    )
    return OutputFile(f"{ARGOCD_DIR}/{BOOTSTRAP}", (project, root), comment=comment)


def _serves(fleet: Fleet, instance: ArgoInstance) -> str:
    """Which environments ``instance`` serves, when the fleet has more than one instance."""
    if len(fleet.argocd_instances) == 1:
        return ""
    if instance.directory != ARGOCD_DIR:
        return (
            f"The Argo CD instance of environment {instance.envs[0]}: its clusters and apps only.\n"
        )
    if not instance.envs:
        return (
            "The fleet's Argo CD instance; every environment has one of its own, so it holds\n"
            "nothing but this file (it prunes what moved to an environment's instance).\n"
        )
    return f"The fleet's Argo CD instance, of environments {', '.join(instance.envs)}.\n"
