"""ApplicationSets that change Argo CD instance (`Fleet.argocd_instances`): an environment that
gets an Argo CD of its own, or gives it up.

The instance the environment leaves prunes its ApplicationSets, and Kubernetes' garbage
collector deletes the Applications they own; an Application carrying the resources finalizer
then has Argo CD delete its workloads (argo-cd controller/appcontroller.go
``finalizeApplicationDeletion``) while the other instance deploys them again: an outage. Without
the finalizer the workloads stay and the other instance adopts them (same Application names, so
the same tracking label). The ApplicationSet controller drops the finalizer from live
Applications when the template loses it (applicationset_controller.go
``createOrUpdateInCluster``: ``found.Finalizers = generatedApp.Finalizers``, keeping only the
pre/post-delete hook finalizers), so the safe move takes two commits: orphan first, then move.

A single cluster moving to an environment of another instance is the same hazard under other
ApplicationSet names (``api-prod`` leaves, ``api-staging`` generates ``api-<cluster>``): both
instances track the workloads by the bare Application name (argo-cd util/argo ``GetAppName``, the
``argocd.argoproj.io/instance`` label), so the leaving instance's finalizer deletes what the
other just adopted. `cluster_problems` refuses it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fleetgen.errors import Problem, at
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model import Fleet
from fleetgen.rules.argocd import RESOURCES_FINALIZER, SECRET_TYPE
from fleetgen.settle.moves import Documents
from fleetgen.util.layout import BOOTSTRAP, argocd_directory, argocd_part
from fleetgen.write.output import APP_LABEL, ENV_LABEL, OutputFile


def handover_problems(
    fleet: Fleet, files: Iterable[OutputFile], before: Documents
) -> list[Problem]:
    """A problem per environment whose cascading ApplicationSets the build moves to another Argo
    CD instance than the tree ``before`` has them in (at the Environment in fleet.py)."""
    files = list(files)
    now = {instance.directory for instance in fleet.argocd_instances}
    folders = [argocd_directory(None), *(argocd_directory(env.name) for env in fleet.environments)]
    then = {folder for folder in folders if before(f"{folder}/{BOOTSTRAP}")}
    if len(now | then) == 1:
        return []  # one instance before and after: nothing changes hands
    moved: dict[str, tuple[str, str]] = {}  # env -> (from folder, to folder)
    for file in files:
        if argocd_part(file.path) != "applicationsets":
            continue
        folder, name = file.path.partition("/")[0], file.path.rpartition("/")[2]
        for old in sorted(then - {folder}):
            for env in _cascading(before(f"{old}/applicationsets/{name}"), file.documents):
                moved.setdefault(env, (old, folder))
    envs = {env.name: env for env in fleet.environments}
    return [
        at(envs[env], _message(env, old, new, fleet.output_dir), envs[env])
        for env, (old, new) in sorted(moved.items())
    ] + cluster_problems(fleet, files, before, then, set(moved))


def cluster_problems(
    fleet: Fleet,
    files: Iterable[OutputFile],
    before: Documents,
    then: set[str],
    refused: set[str],
) -> list[Problem]:
    """A problem per cluster (at its Cluster in fleet.py, except in the ``refused``
    environments) whose Applications cascading ApplicationSets generated in one instance folder
    of the tree ``before`` (among ``then``) are generated in another folder now."""
    now = [f for f in files if argocd_part(f.path) in ("applicationsets", "clusters")]
    moved: dict[str, tuple[str, str, set[str]]] = {}  # cluster -> (from, to, apps)
    for file in now:
        if argocd_part(file.path) != "applicationsets":
            continue
        folder, name = file.path.partition("/")[0], file.path.rpartition("/")[2]
        placed = generated(file.documents, new_labels(now, folder), fleet)
        for old in sorted(then - {folder}):
            documents = [
                d
                for d in before(f"{old}/applicationsets/{name}")
                if isinstance(d, dict) and finalizes(d)
            ]
            labels = old_labels(before, old)
            for app, cluster in generated(documents, labels, fleet) & placed:
                moved.setdefault(cluster, (old, folder, set()))[2].add(app)
    clusters = {cluster.name: cluster for cluster in fleet.clusters}
    return [
        at(clusters[name], _cluster_message(name, old, new, apps, fleet.output_dir), fleet)
        for name, (old, new, apps) in sorted(moved.items())
        if clusters[name].env not in refused
    ]


def old_labels(before: Documents, folder: str) -> Callable[[str], Mapping[str, str]]:
    """A cluster's registration labels in instance ``folder`` of the tree ``before``."""
    return lambda cluster: _registration_labels(before(f"{folder}/clusters/{cluster}.yaml"))


def new_labels(files: list[OutputFile], folder: str) -> Callable[[str], Mapping[str, str]]:
    """A cluster's registration labels in instance ``folder`` of ``files``."""
    by_path = {f.path: f.documents for f in files}
    return lambda cluster: _registration_labels(
        by_path.get(f"{folder}/clusters/{cluster}.yaml", ())
    )


def _registration_labels(documents: Iterable[Any]) -> Mapping[str, str]:
    """The labels of the cluster Secret the registration ``documents`` make (a Secret, or an
    ExternalSecret's template); none where there is none."""
    for document in documents:
        if not isinstance(document, dict):
            continue
        meta = metadata(document)
        if document.get("kind") == "ExternalSecret":
            target = (document.get("spec") or {}).get("target") or {}
            meta = metadata(target.get("template") or {})
        labels = meta.get("labels")
        if isinstance(labels, dict) and labels.get(SECRET_TYPE) == "cluster":
            return labels
    return {}


def generated(
    appsets: Iterable[Any], labels: Callable[[str], Mapping[str, str]], fleet: Fleet
) -> set[tuple[str, str]]:
    """The (app, cluster) pairs the cluster generators of ``appsets`` select among the fleet's
    clusters (``labels``: a cluster's registration labels in the same instance)."""
    found = set()
    for appset in appsets:
        if not isinstance(appset, dict):
            continue
        app = (metadata(appset).get("labels") or {}).get(APP_LABEL)
        for generator in (appset.get("spec") or {}).get("generators") or ():
            selector = ((generator or {}).get("clusters") or {}).get("selector")
            if not isinstance(selector, dict) or app is None:
                continue
            found |= {
                (str(app), cluster.name)
                for cluster in fleet.clusters
                if (found_labels := labels(cluster.name))
                and selector_matches(selector, found_labels)
            }
    return found


def _cascading(old: Iterable[Any], new: Iterable[Any]) -> list[str]:
    """The environments of the ApplicationSets in both ``new`` and ``old`` whose old generated
    Applications carry the resources finalizer."""
    names = {metadata(d).get("name") for d in new if isinstance(d, dict)}
    return [
        str((metadata(d).get("labels") or {}).get(ENV_LABEL, ""))
        for d in old
        if isinstance(d, dict) and metadata(d).get("name") in names and finalizes(d)
    ]


def metadata(document: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = document.get("metadata")
    return meta if isinstance(meta, dict) else {}


def finalizes(appset: Mapping[str, Any]) -> bool:
    """Whether the Applications ``appset`` generates carry the resources finalizer."""
    template = (appset.get("spec") or {}).get("template") or {}
    return RESOURCES_FINALIZER in ((template.get("metadata") or {}).get("finalizers") or ())


def _cluster_message(cluster: str, old: str, new: str, apps: set[str], output_dir: str) -> str:
    return (
        f"cluster {cluster!r}: the Applications of {', '.join(sorted(apps))} on it move from "
        f"{output_dir}/{old}/ to {output_dir}/{new}/ (another Argo CD instance) while they "
        "cascade: both instances track the workloads by Application name, so the instance "
        "they leave would delete what the other has just taken over (argo-cd "
        "finalizeApplicationDeletion). First set those placements to orphan where the cluster "
        "is now (Environment(cascade_delete=False) on its environment there, or "
        "App(cascade_delete=False) on those apps), build, commit and let Argo CD sync, so "
        "the Applications lose their finalizer; then move the cluster"
    )


def _message(env: str, old: str, new: str, output_dir: str) -> str:
    return (
        f"environment {env!r}: its ApplicationSets move from {output_dir}/{old}/ to "
        f"{output_dir}/{new}/ (another Argo CD instance) while their Applications cascade: "
        "the instance they leave would delete the workloads before the other deploys them "
        "again. First build with Environment(cascade_delete=False) (and no App(cascade_delete="
        "True) there) and let Argo CD sync, so the Applications lose their finalizer; then "
        "move the environment"
    )
