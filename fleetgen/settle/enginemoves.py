"""Placements that change engine (`App`/`Cluster`/`Environment(engine=...)`) while the engine they
leave would delete their workloads on the way out.

Both engines act on the same commit, each on its own: the new one takes the workloads over
(kustomize-controller's server-side apply leaves Argo CD's tracking annotation in place; Argo
CD's sync adopts what Flux applied), and the old one's deletion, whenever it lands, deletes what
it still finds as its own. Leaving Argo CD, the Application's resources finalizer does (argo-cd
controller/appcontroller.go ``finalizeApplicationDeletion``); leaving Flux, the Kustomization's
finalizer (kustomize-controller ``finalize`` where ``finalizerShouldDeleteResources``: not
suspended, ``deletionPolicy: Delete``, or ``MirrorPrune`` with ``prune: true``) or a HelmRelease's
uninstall (helm-controller ``reconcileDelete``, unless suspended), which leaves only what the
keep post-renderer annotated. Whatever came first, the workloads are down until the new engine
applies again (a Kustomization's ``interval``; for an Application with ``selfHeal: false`` the
next commit). In orphan mode both engines adopt the same objects (same uid), so the safe move
takes two commits: orphan where the placement runs, then move. `engine_problems` refuses the
one-commit move, reading the engine objects of the tree before (the files its manifest lists).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fleetgen.errors import Problem, at
from fleetgen.model import App, Cluster, Fleet
from fleetgen.rules.flux import PRUNE_DISABLED, gate_name, keeps_objects, wrapper_name
from fleetgen.settle.handover import finalizes, generated, metadata, new_labels, old_labels
from fleetgen.settle.moves import Documents
from fleetgen.util.layout import argocd_part
from fleetgen.write.journal import MANIFEST
from fleetgen.write.output import APP_LABEL, CLUSTER_LABEL, OutputFile

Pair = tuple[str, str]  # (app, cluster)
FLUX = "flux/"  # the output folder Flux's files are in
NAMES = {"argocd": "Argo CD", "flux": "Flux"}


def engine_problems(fleet: Fleet, files: Iterable[OutputFile], before: Documents) -> list[Problem]:
    """A problem per app (one naming its engine) or cluster whose placements move to another
    engine than the tree ``before`` runs them on, where that engine deletes the workloads."""
    files = list(files)
    listed = _listed(before)
    then = {p.partition("/")[0] for p in listed if argocd_part(p) == "applicationsets"}
    old_flux = [path for path in listed if path.startswith(FLUX)]
    new_flux = [f for f in files if f.path.startswith(FLUX)]
    moved: dict[Pair, str] = {}  # -> the engine left
    if then and new_flux:
        leaving = _argocd_cascades(fleet, listed, before, then)
        moved |= dict.fromkeys(leaving & _flux_pairs(f.documents for f in new_flux), "argocd")
    argocd = [f for f in files if argocd_part(f.path) in ("applicationsets", "clusters")]
    if old_flux and argocd:
        leaving = _flux_pairs((before(path) for path in old_flux), cascading=True)
        moved |= dict.fromkeys(leaving & _argocd_pairs(fleet, argocd), "flux")
    grouped: dict[tuple[int, str], tuple[App | Cluster, list[Pair]]] = {}
    for pair, left in sorted(moved.items()):
        where = _deciding(fleet, *pair)
        grouped.setdefault((id(where), left), (where, []))[1].append(pair)
    return [
        at(where, _message(where, pairs, left), fleet)
        for (_, left), (where, pairs) in grouped.items()
    ]


def _listed(before: Documents) -> list[str]:
    """The output paths the manifest of the tree ``before`` lists (none without one)."""
    found = before(MANIFEST)
    files = found[0].get("files") if found and isinstance(found[0], dict) else None
    return sorted(str(path) for path in files) if isinstance(files, dict) else []


def _argocd_cascades(
    fleet: Fleet, listed: list[str], before: Documents, then: set[str]
) -> set[Pair]:
    """The placements the ApplicationSets of the tree ``before`` generate with the resources
    finalizer."""
    found: set[Pair] = set()
    for path in listed:
        folder = path.partition("/")[0]
        if folder in then and argocd_part(path) == "applicationsets":
            appsets = [d for d in before(path) if isinstance(d, dict) and finalizes(d)]
            found |= generated(appsets, old_labels(before, folder), fleet)
    return found


def _argocd_pairs(fleet: Fleet, files: list[OutputFile]) -> set[Pair]:
    """The placements the ApplicationSets of ``files`` generate."""
    found: set[Pair] = set()
    for file in files:
        if argocd_part(file.path) == "applicationsets":
            labels = new_labels(files, file.path.partition("/")[0])
            found |= generated(file.documents, labels, fleet)
    return found


def _flux_pairs(files: Iterable[Iterable[Any]], cascading: bool = False) -> set[Pair]:
    """The placements of the Kustomizations and HelmReleases in ``files`` (by their app and
    cluster labels; ``cascading``: only those whose deletion deletes the workloads)."""
    found: set[Pair] = set()
    for documents in files:
        for document in documents:
            if not isinstance(document, dict) or document.get("kind") not in _APPLIERS:
                continue
            labels = metadata(document).get("labels") or {}
            app, cluster = labels.get(APP_LABEL), labels.get(CLUSTER_LABEL)
            if (
                app is None
                or cluster is None
                or metadata(document).get("name")
                in (
                    wrapper_name(app),  # deleting it deletes the HelmRelease, which says the rest
                    gate_name(app),  # applies nothing
                )
            ):
                continue
            if not cascading or _deletes(document):
                found.add((str(app), str(cluster)))
    return found


_APPLIERS = ("Kustomization", "HelmRelease")


def _deletes(document: Mapping[str, Any]) -> bool:
    """Whether deleting a Flux Kustomization or HelmRelease deletes what it applied."""
    annotations = metadata(document).get("annotations") or {}
    spec = document.get("spec") or {}
    if PRUNE_DISABLED.items() <= annotations.items() or spec.get("suspend") is True:
        return False  # never pruned; or suspended: its finalizer deletes nothing
    if document.get("kind") == "HelmRelease":
        return not keeps_objects(document)
    policy = spec.get("deletionPolicy", "MirrorPrune")
    return policy in ("Delete", "WaitForTermination") or (
        policy == "MirrorPrune" and spec.get("prune") is True
    )


def _deciding(fleet: Fleet, app: str, cluster: str) -> App | Cluster:
    """Where a placement's move is reported: at its App where that names the engine, else at
    its Cluster (whose engine=, or whose environment's, its placements follow)."""
    found = next(a for a in fleet.apps if a.name == app)
    return (
        found if found.engine is not None else next(c for c in fleet.clusters if c.name == cluster)
    )


def _message(where: App | Cluster, pairs: list[Pair], left: str) -> str:
    old, new = NAMES[left], NAMES["flux" if left == "argocd" else "argocd"]
    subject = f"{'app' if isinstance(where, App) else 'cluster'} {where.name!r}"
    placements = ", ".join(f"{app} on {cluster}" for app, cluster in pairs)
    return (
        f"{subject}: {placements} move{'s' if len(pairs) == 1 else ''} from {old} to {new} "
        f"while {old} deletes the workloads of what leaves it (cascade_delete=True): both "
        f"engines act on the commit on their own, so {old} would delete what {new} takes over. "
        "First set cascade_delete=False for them where they run now (App(cascade_delete=False) "
        f"or their Environment's), build, commit and let {old} sync, so {_ORPHANED[left]}; "
        "then move them (cascade_delete=True may come back with the move)"
    )


_ORPHANED = {
    "argocd": "the Applications lose their resources finalizer",
    "flux": "the Kustomizations turn deletionPolicy: Orphan and the HelmReleases keep their "
    "objects",
}
