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

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fleetgen.errors import Problem, at
from fleetgen.model import App, Cluster, Environment, Fleet
from fleetgen.resolver.plan import Placement
from fleetgen.rules.flux import PRUNE_DISABLED, gate_name, keeps_objects, wrapper_name
from fleetgen.settle.handover import finalizes, generated, metadata, old_labels
from fleetgen.settle.moves import Documents
from fleetgen.util.layout import argocd_part
from fleetgen.write.journal import MANIFEST
from fleetgen.write.output import APP_LABEL, CLUSTER_LABEL

Pair = tuple[str, str]  # (app, cluster)
Read = Callable[[str], bytes | None]  # output path -> the bytes of the tree before
FLUX = "flux/"  # the output folder Flux's files are in
NAMES = {"argocd": "Argo CD", "flux": "Flux"}


def engine_problems(
    fleet: Fleet, placements: Iterable[Placement], before: Documents, read: Read
) -> list[Problem]:
    """A problem per app (one naming its engine) or cluster whose ``placements`` move to another
    engine than the tree ``before`` runs them on, where that engine deletes the workloads.
    Only what may hold a moving placement is parsed: the ApplicationSets of the apps now on Flux,
    the Flux files whose cluster labels (their text, by ``read``) name a cluster now on Argo CD."""
    now: dict[str, set[Pair]] = {"argocd": set(), "flux": set()}
    for placement in placements:
        now[placement.engine].add((placement.app, placement.cluster))
    listed = _listed(before)
    moved: dict[Pair, str] = {}  # -> the engine left
    if now["flux"]:
        apps = {app for app, _ in now["flux"]}
        moved |= dict.fromkeys(
            _argocd_cascades(fleet, listed, before, apps) & now["flux"], "argocd"
        )
    if now["argocd"]:
        clusters = {cluster for _, cluster in now["argocd"]}
        old_flux = (p for p in listed if p.startswith(FLUX) and _may_name(read(p), clusters))
        leaving = _flux_pairs(before(path) for path in old_flux)
        moved |= dict.fromkeys(leaving & now["argocd"], "flux")
    grouped: dict[tuple[int, str], tuple[App | Cluster | Environment, list[Pair]]] = {}
    for pair, left in sorted(moved.items()):
        where = _deciding(fleet, *pair)
        grouped.setdefault((id(where), left), (where, []))[1].append(pair)
    return [
        at(where, _message(where, pairs, left), fleet)
        for (_, left), (where, pairs) in grouped.items()
    ]


def _may_name(data: bytes | None, clusters: set[str]) -> bool:
    """Whether a Flux file of the tree before (its bytes) may hold a Kustomization or HelmRelease
    of one of ``clusters``: a cluster label naming one, or an applier with no label read."""
    if data is None:
        return False
    named = {m.decode() for m in _CLUSTER_LABEL.findall(data)}
    return bool(named & clusters) or (not named and _APPLIER_KIND.search(data) is not None)


def _listed(before: Documents) -> list[str]:
    """The output paths the manifest of the tree ``before`` lists (none without one)."""
    found = before(MANIFEST)
    files = found[0].get("files") if found and isinstance(found[0], dict) else None
    return sorted(str(path) for path in files) if isinstance(files, dict) else []


def _argocd_cascades(
    fleet: Fleet, listed: list[str], before: Documents, apps: set[str]
) -> set[Pair]:
    """The placements of ``apps`` the ApplicationSets of the tree ``before`` generate with the
    resources finalizer (``<instance>/applicationsets/<app>.yaml``)."""
    found: set[Pair] = set()
    for path in listed:
        name = path.rpartition("/")[2].removesuffix(".yaml")
        if argocd_part(path) == "applicationsets" and name in apps:
            folder = path.partition("/")[0]
            appsets = [d for d in before(path) if isinstance(d, dict) and finalizes(d)]
            found |= generated(appsets, old_labels(before, folder), fleet)
    return found


def _flux_pairs(files: Iterable[Iterable[Any]]) -> set[Pair]:
    """The placements of the Kustomizations and HelmReleases in ``files`` whose deletion
    deletes the workloads (by their app and cluster labels)."""
    found: set[Pair] = set()
    for documents in files:
        for document in documents:
            if not isinstance(document, dict) or document.get("kind") not in _APPLIERS:
                continue
            meta = metadata(document)
            labels = meta.get("labels") or {}
            app, cluster = labels.get(APP_LABEL), labels.get(CLUSTER_LABEL)
            # a wrapper's deletion deletes its HelmRelease, which says the rest; a gate applies
            # nothing
            ordering = app is not None and meta.get("name") in (wrapper_name(app), gate_name(app))
            if app is not None and cluster is not None and not ordering and _deletes(document):
                found.add((str(app), str(cluster)))
    return found


_APPLIERS = ("Kustomization", "HelmRelease")
# A cluster label as fleetgen writes it (block style, the name plain or quoted: Go-safe YAML),
# and an applier's kind: what `_may_name` reads of a file's bytes before parsing it.
_CLUSTER_LABEL = re.compile(rb"%s: ['\"]?([a-z0-9.-]+)" % re.escape(CLUSTER_LABEL.encode()))
_APPLIER_KIND = re.compile(rb"kind: (?:%s)\b" % b"|".join(k.encode() for k in _APPLIERS))


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


def _deciding(fleet: Fleet, app: str, cluster: str) -> App | Cluster | Environment:
    """Where a placement's move is reported: the deepest layer that names its engine now, its
    App, else its Cluster, else its Environment (the cluster where none does)."""
    found = next(a for a in fleet.apps if a.name == app)
    if found.engine is not None:
        return found
    host = next(c for c in fleet.clusters if c.name == cluster)
    env = next(e for e in fleet.environments if e.name == host.env)
    return env if host.engine is None and env.engine is not None else host


def _message(where: App | Cluster | Environment, pairs: list[Pair], left: str) -> str:
    old, new = NAMES[left], NAMES["flux" if left == "argocd" else "argocd"]
    subject = f"{type(where).__name__.lower()} {where.name!r}"
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
