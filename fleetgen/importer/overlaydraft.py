"""The fleet of a repository of Kustomize overlays (`fleetgen.importer.overlays`): an environment
per role the folders have, a cluster per cluster's folder (and one named after an environment
none of whose folders is a cluster's), and per app and cluster an instance whose overlay folder
fleet.py adds as a layer, as it is (`Instance.overlay`). The engines' objects that deploy the
overlays are not in the repository: what fleet.py says in their stead is a finding."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from fleetgen.importer.draft import ClusterDraft, Draft, Engine, Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.overlays import OverlaySet, Role
from fleetgen.importer.repo import Doc, Repo, Unreadable, namespaces_of
from fleetgen.model.clusters import IN_CLUSTER

SPEC = "fleet.py"
# The sync policy of the Applications kept elsewhere is unknown: fleetgen's default for a new
# environment (`fleetgen add env`), said in a finding.
_SYNC = {"automated": True, "prune": True}
_PLACEHOLDER = "https://{name}.invalid"  # an Argo CD cluster's API server, unknown here
Layer = Literal["per_env", "per_cluster"]


def draft(
    repo: Repo, engine: Engine, sets: Sequence[OverlaySet], roles: Mapping[str, Role]
) -> Draft:
    """The fleet of the overlay folders ``sets``, each folder name in the role ``roles`` gives
    it, deployed by ``engine``."""
    found = Draft(engine)
    env_of = _clusters(roles)
    first: dict[str, Doc] = {}  # cluster -> the first folder that reaches it
    built: dict[str, list[Doc] | None] = {}
    for overlay_set in sets:
        for cluster, (path, layer) in _folders(overlay_set, roles, env_of).items():
            origin = _origin(repo, path)
            if path not in built:
                built[path] = _deployed(repo, path, origin, found.findings)
            if built[path] is None:
                continue
            first.setdefault(cluster, origin)
            instance = Instance(overlay_set.app, cluster, origin, path=path, overlay=layer)
            instance.uses, instance.sync = namespaces_of(built[path] or []), dict(_SYNC)
            found.instances.append(instance)
    for cluster, env in env_of.items():
        if cluster in first:
            found.clusters.append(_cluster(cluster, env, engine, first[cluster], found.findings))
    if found.instances:
        found.findings.append(_sync_finding())
    found.findings += _outside(repo, sets)
    return found


def _outside(repo: Repo, sets: Sequence[OverlaySet]) -> list[Finding]:
    """A finding for each file of objects outside every app folder: nothing deploys them."""
    folders = [found.folder for found in sets]
    files: dict[str, Doc] = {}
    for doc in repo.docs:
        if not any(f == "." or doc.file.startswith(f"{f}/") for f in folders):
            files.setdefault(doc.file, doc)
    return [
        doc.finding(
            f"{doc.kind} {doc.name!r} is in no app folder (APP/base/, APP/overlays/NAME/): not "
            "imported",
            "add its folder as an app, or delete it if nothing deploys it",
        )
        for doc in files.values()
    ]


def _clusters(roles: Mapping[str, Role]) -> dict[str, str]:
    """Cluster -> its environment: the clusters the folders name, and for an environment without
    any, one named after it."""
    env_of = {role.cluster: role.env for role in roles.values() if role.cluster}
    for role in roles.values():
        if role.env not in env_of.values():
            env_of[role.env] = role.env
    return env_of


def _folders(
    overlay_set: OverlaySet, roles: Mapping[str, Role], env_of: Mapping[str, str]
) -> dict[str, tuple[str, Layer]]:
    """Cluster -> the overlay folder of one app deployed there and the layer it is kept in: the
    cluster's own folder (per_cluster), else its environment's (per_env)."""
    chosen: dict[str, tuple[str, Layer]] = {}
    for name, path in overlay_set.overlays:
        role = roles[name]
        if role.cluster is not None:
            chosen[role.cluster] = (path, "per_cluster")
    for name, path in overlay_set.overlays:
        for cluster, env in env_of.items():
            if roles[name].cluster is None and env == roles[name].env:
                chosen.setdefault(cluster, (path, "per_env"))
    return dict(sorted(chosen.items()))


def _origin(repo: Repo, path: str) -> Doc:
    """Where an overlay folder is written: its kustomization."""
    found = repo.kustomization(path)
    assert found is not None, path  # an overlay folder is one with a kustomization
    return found


def _deployed(repo: Repo, path: str, origin: Doc, findings: list[Finding]) -> list[Doc] | None:
    """What an overlay folder deploys, None (a finding) when kustomize cannot build it."""
    try:
        return repo.deployed(path)
    except Unreadable as error:
        findings.append(
            origin.finding(
                f"kustomize cannot build {path} ({error})", "fix the folder, rerun import"
            )
        )
        return None


def _cluster(
    name: str, env: str, engine: Engine, origin: Doc, findings: list[Finding]
) -> ClusterDraft:
    """A cluster: on Flux its own (each cluster's Flux applies to itself); on Argo CD at an API
    server the repository does not say, registered by another tool until fleet.py says more."""
    if engine == "flux":
        return ClusterDraft(name, env, IN_CLUSTER, origin)
    server = _PLACEHOLDER.format(name=name)
    findings.append(
        origin.finding(
            f"cluster {name!r}: its API server is not in the repository (fleet.py has the "
            f"placeholder {server}, registration='external')",
            "set Cluster(server=...) to its API server, and credentials=... for fleetgen to "
            "register it in Argo CD (or keep registration='external' where another tool does)",
        )
    )
    return ClusterDraft(name, env, server, origin, registration="external")


def _sync_finding() -> Finding:
    return Finding(
        SPEC,
        0,
        "the engines' objects that deploy the overlays are not in the repository: fleet.py "
        "syncs automatically and prunes (SyncPolicy(automated=True, prune=True))",
        "set Fleet(sync=...) to what they do",
    )
