"""Tenant accounts a cluster leaving Argo CD hands over to another name for the same server (a
rename, or two names for one server): they do not drain.

A kept ``<old>.tenants`` and the new ``<new>.tenants`` would apply the same ServiceAccounts and
RoleBindings to the same server, both automated with ``selfHeal``: each re-applies what the
other's apply re-stamped (the tracking id names the Application that applied last: argo-cd
``SetAppInstance``, ``GetAppName``), and once the drain is confirmed ``<old>.tenants`` would
prune them whenever it had applied last (gitops-engine ``syncContext`` prunes the live objects
the cache attributes to it that it no longer targets). So what ``<new>.tenants`` applies is not
kept; and a kept ``<old>.tenants`` left with nothing to keep goes at once: it has no resources
finalizer, so its removal deletes nothing (``finalizeApplicationDeletion`` deletes only when
``CascadedDeletion()``), and ``<new>.tenants``' sync adopts the objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.emit.argocd.tenants import DIRECTORY
from fleetgen.errors import Problem, at
from fleetgen.inputs.record import Drain, Kept
from fleetgen.manifests.k8s import identity
from fleetgen.model import Fleet
from fleetgen.settle.tenants import application_cluster
from fleetgen.write.output import OutputFile


def taken_over(
    fleet: Fleet, draining: Mapping[str, Drain], emitted: Iterable[OutputFile]
) -> tuple[dict[str, Drain], list[Problem]]:
    """``draining`` without the kept tenant objects that an ``emitted`` ``<cluster>.tenants``
    of another cluster applies on the same server, nor the ``<old>.tenants`` Applications this
    leaves with nothing to keep; and a problem (at the new Cluster in fleet.py) per such object
    the new one applies differently (a deletion still draining may need the kept form)."""
    files = list(emitted)
    servers = servers_of(k.document for d in draining.values() for k in d.documents)
    servers |= servers_of(d for f in files for d in f.documents)
    placed = {  # keyed by the object's identity on its server
        identity(servers[cluster], document): (cluster, document)
        for file in files
        if (cluster := tenant_folder(file.path)) in servers
        for document in file.documents
        if isinstance(document, dict)
    }
    found: dict[str, Drain] = {}
    problems: list[Problem] = []
    taken: dict[str, set[str]] = {}  # drain name -> the clusters it lost objects of
    for name, drain in draining.items():
        kept: list[Kept] = []
        for document in drain.documents:
            old = tenant_folder(document.path)
            server = servers.get(old or "", "")
            new, now = placed.get(identity(server, document.document), (old, None))
            if new == old or now is None:
                kept.append(document)
                continue
            taken.setdefault(name, set()).add(str(old))
            if not _covers(now, document.document):
                problems.append(_differs(fleet, name, document.document, str(old), str(new)))
        found[name] = replace(drain, documents=tuple(kept))
    return _without_applications(found, taken), problems


def _differs(fleet: Fleet, name: str, kept: Mapping[str, Any], old: str, new: str) -> Problem:
    """The problem of cluster ``new`` applying differently an object ``name`` keeps on ``old``."""
    key = identity("", kept)
    cluster = next(c for c in fleet.clusters if c.name == new)
    return at(
        cluster,
        f"cluster {new} applies {key.kind} {key.namespace}/{key.name} on the server of {old}, "
        f"which {name} keeps as {old} had it for the deletions still running there: rename "
        f"{old} in a commit of its own, and change its tenants in the next",
        cluster,
    )


def _without_applications(
    draining: Mapping[str, Drain], taken: Mapping[str, set[str]]
) -> dict[str, Drain]:
    """``draining`` without the drains left empty, and without the ``<cluster>.tenants``
    Application of a cluster that lost objects to another name for its server, in each drain
    that keeps nothing else of its folder (in all where none does)."""
    keeping = {tenant_folder(k.path) for d in draining.values() for k in d.documents}
    going = set().union(*taken.values()) - keeping
    found = {}
    for name, drain in draining.items():
        own = {tenant_folder(k.path) for k in drain.documents}
        drop = going | (taken.get(name, set()) - own)
        kept = tuple(k for k in drain.documents if application_cluster(k.document) not in drop)
        if kept or drain.items:
            found[name] = replace(drain, documents=kept)
    return found


def servers_of(documents: Iterable[Any]) -> dict[str, str]:
    """Cluster -> the server of each ``<cluster>.tenants`` Application among ``documents``."""
    return {
        cluster: str(((document.get("spec") or {}).get("destination") or {}).get("server"))
        for document in documents
        if isinstance(document, dict) and (cluster := application_cluster(document))
    }


def tenant_folder(path: str) -> str | None:
    """The cluster of an output file under ``tenants/<cluster>/`` (None for any other)."""
    top, _, rest = path.partition("/")
    return rest.partition("/")[0] if top == DIRECTORY and "/" in rest else None


def _covers(now: Mapping[str, Any], kept: Mapping[str, Any]) -> bool:
    """Whether the object as ``now`` applies it grants all ``kept`` did: the same but for the
    annotations (a kept one is marked draining) and RoleBinding subjects it may add to."""
    subjects = now.get("subjects") or []
    return _bare(now) == _bare(kept) and all(s in subjects for s in kept.get("subjects") or [])


def _bare(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` without its annotations and subjects."""
    meta = {k: v for k, v in (document.get("metadata") or {}).items() if k != "annotations"}
    return {k: v for k, v in document.items() if k != "subjects"} | {"metadata": meta}
