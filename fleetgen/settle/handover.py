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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fleetgen.errors import Problem, at
from fleetgen.model import Fleet
from fleetgen.rules.argocd import RESOURCES_FINALIZER
from fleetgen.settle.moves import Documents
from fleetgen.util.layout import BOOTSTRAP, argocd_directory, argocd_part
from fleetgen.write.output import ENV_LABEL, OutputFile


def handover_problems(
    fleet: Fleet, files: Iterable[OutputFile], before: Documents
) -> list[Problem]:
    """A problem per environment whose cascading ApplicationSets the build moves to another Argo
    CD instance than the tree ``before`` has them in (at the Environment in fleet.py)."""
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
    ]


def _cascading(old: Iterable[Any], new: Iterable[Any]) -> list[str]:
    """The environments of the ApplicationSets in both ``new`` and ``old`` whose old generated
    Applications carry the resources finalizer."""
    names = {_meta(d).get("name") for d in new if isinstance(d, dict)}
    return [
        str((_meta(d).get("labels") or {}).get(ENV_LABEL, ""))
        for d in old
        if isinstance(d, dict) and _meta(d).get("name") in names and _finalizes(d)
    ]


def _meta(document: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = document.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _finalizes(appset: Mapping[str, Any]) -> bool:
    """Whether the Applications ``appset`` generates carry the resources finalizer."""
    template = (appset.get("spec") or {}).get("template") or {}
    return RESOURCES_FINALIZER in ((template.get("metadata") or {}).get("finalizers") or ())


def _message(env: str, old: str, new: str, output_dir: str) -> str:
    return (
        f"environment {env!r}: its ApplicationSets move from {output_dir}/{old}/ to "
        f"{output_dir}/{new}/ (another Argo CD instance) while their Applications cascade: "
        "the instance they leave would delete the workloads before the other deploys them "
        "again. First build with Environment(cascade_delete=False) (and no App(cascade_delete="
        "True) there) and let Argo CD sync, so the Applications lose their finalizer; then "
        "move the environment"
    )
