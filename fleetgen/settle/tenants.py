"""The removal of a cluster's tenant accounts on Argo CD: Application ``<cluster>.tenants`` prunes
them before it goes.

The Application has no resources finalizer, so its removal deletes nothing (argo-cd
``finalizeApplicationDeletion`` deletes only when ``CascadedDeletion()``); its automated sync
prunes what leaves its folder, skipping every object annotated ``Prune=false`` (gitops-engine
``syncContext.pruneObject`` → ``isPruningDisabled``), as the tenants' Namespaces always are. So a
tenant leaving a cluster goes in steps (`fleetgen.settle.draining` keeps the documents):

1. ``tenant/<project>/<cluster>``: the tenant's accounts stay while its placements delete, the
   Application with them;
2. ``tenants/<cluster>`` (no tenant left there): the Application stays, with a folder that applies
   nothing (`with_empty_folders`), and prunes the accounts;
3. confirming that removes the Application and the cluster's entries of project
   fleetgen-tenants (`without_confirmed`).

Where other tenants stay, the emitted Application prunes the leaving tenant's accounts once
step 1 is confirmed, and project fleetgen-tenants keeps the entries that prune needs until
``project/fleetgen-tenants`` is confirmed. `order_problems` refuses a confirmation that would
cut a step short.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.emit.argocd.tenants import DIRECTORY, PROJECT
from fleetgen.emit.common import KUSTOMIZATION
from fleetgen.errors import Problem
from fleetgen.inputs.record import (
    Drain,
    Items,
    Kept,
    Record,
    cluster_drain,
    project_drain,
    tenants_drain,
)
from fleetgen.model.fields import repo_path
from fleetgen.settle.moves import Emitted
from fleetgen.write.output import OutputFile

_SUFFIX = f".{DIRECTORY}"
_EMPTY_COMMENT = (
    "Applies nothing: Application {cluster}.tenants prunes the tenants' accounts here (its\n"
    "Namespaces stay: Prune=false) until `fleetgen build --drained tenants/{cluster}`."
)


def order_problems(record: Record, where: str) -> list[Problem]:
    """A problem (at the record, ``where``) per confirmation that would remove what a kept
    ``<cluster>.tenants`` still needs: the accounts' own drains must be confirmed before
    ``tenants/<cluster>``, and that before the cluster's registration (``GetDestinationCluster``)
    or the project's entries (CompareAppState keeps only the live objects
    ``IsLiveResourcePermitted`` allows, so only those are pruned)."""
    found = []
    applications = _kept_applications(record)
    for cluster, holders in sorted(applications.items()):
        last = tenants_drain(cluster)
        tenants = sorted(name for name in holders if name != last)
        if last in record.confirmed and tenants:
            found.append(
                f"--drained {last}: Application {cluster}.tenants still applies the accounts "
                f"kept while {', '.join(tenants)} drains; confirm that first, commit, and once "
                f"Argo CD has pruned them confirm {last}"
            )
        if last in record.confirmed and not tenants:
            continue
        for needed in (cluster_drain(cluster), project_drain(PROJECT)):
            if needed in record.confirmed:
                found.append(
                    f"--drained {needed}: Application {cluster}.tenants, kept to prune the "
                    f"tenants' accounts, still needs it (argo-cd CompareAppState). Confirm "
                    f"{' and '.join([*tenants, last])} first, each in a commit of its own once "
                    f"Argo CD is done, then {needed}"
                )
    found += _pruning(record, set(applications))
    return [Problem(message, where) for message in found]


def _pruning(record: Record, kept: set[str]) -> list[str]:
    """A message per tenant drain on a cluster whose Application stays (not ``kept`` for
    later) confirmed with project fleetgen-tenants: the Application prunes the accounts only
    once the drain is confirmed, and needs the project's entries to."""
    name = project_drain(PROJECT)
    if name not in record.confirmed:
        return []
    return [
        f"--drained {name}: Application {drain.rpartition('/')[2]}.tenants prunes the "
        f"accounts {drain} kept only once that is confirmed, and needs the project's entries "
        f"to (argo-cd CompareAppState): confirm {drain} first, commit, and once Argo CD has "
        f"pruned them confirm {name}"
        for drain, what in sorted(record.draining.items())
        if drain in record.confirmed
        and drain.rpartition("/")[2] not in kept
        and any(k.path.startswith(f"{DIRECTORY}/") for k in what.documents)
    ]


def _kept_applications(record: Record) -> dict[str, set[str]]:
    """Cluster -> the drain names that keep its ``<cluster>.tenants`` Application."""
    found: dict[str, set[str]] = {}
    for name, drain in record.draining.items():
        for kept in drain.documents:
            cluster = application_cluster(kept.document)
            if cluster:
                found.setdefault(cluster, set()).add(name)
    return found


def application_cluster(document: Mapping[str, Any]) -> str | None:
    """The cluster of a ``<cluster>.tenants`` Application (None for any other document)."""
    name = str((document.get("metadata") or {}).get("name", ""))
    spec = document.get("spec") or {}
    if document.get("kind") != "Application" or spec.get("project") != PROJECT:
        return None
    return name.removesuffix(_SUFFIX) if name.endswith(_SUFFIX) else None


def without_confirmed(
    draining: Mapping[str, Drain], record: Record, emitted: Iterable[OutputFile]
) -> dict[str, Drain]:
    """``draining`` without the entries project fleetgen-tenants keeps for the clusters whose
    ``tenants/<cluster>`` this build confirms (their Application goes and needs them no more),
    nor the whole project once it keeps no destination."""
    servers = {
        str((kept.document.get("spec") or {}).get("destination", {}).get("server"))
        for name, drain in record.draining.items()
        if name in record.confirmed and name.startswith(tenants_drain(""))
        for kept in drain.documents
        if application_cluster(kept.document)
    }
    name = project_drain(PROJECT)
    if not servers or name not in draining:
        return dict(draining)
    staying = [
        entry
        for file in emitted
        for document in file.documents
        if isinstance(document, dict) and _is_project(document)
        for entry in (document.get("spec") or {}).get("destinations") or ()
    ]
    drain = draining[name]
    items = {
        found: narrowed
        for found, lists in drain.items.items()
        if (narrowed := _without(lists, servers, staying))
    }
    documents = tuple(k for k in (_narrowed(k, servers) for k in drain.documents) if k)
    found = {n: d for n, d in draining.items() if n != name}
    if documents or items:
        found[name] = Drain(documents, items)
    return found


def _is_project(document: Mapping[str, Any]) -> bool:
    return (document.get("metadata") or {}).get("name") == PROJECT and document.get(
        "kind"
    ) == "AppProject"


def _without(lists: Items, servers: set[str], staying: Iterable[Mapping[str, Any]]) -> Items:
    """Kept AppProject ``lists`` without the destinations on ``servers`` and the Namespace kinds
    no other destination (kept, or ``staying``) names."""
    destinations = [d for d in lists.get("destinations", ()) if d.get("server") not in servers]
    namespaces = {d.get("namespace") for d in (*destinations, *staying)}
    found = {
        **lists,
        "destinations": destinations,
        "clusterResourceWhitelist": [
            entry
            for entry in lists.get("clusterResourceWhitelist", ())
            if entry.get("kind") != "Namespace" or entry.get("name") in namespaces
        ],
    }
    return {field: entries for field, entries in found.items() if entries}


def _narrowed(kept: Kept, servers: set[str]) -> Kept | None:
    """The kept project fleetgen-tenants without the entries of ``servers`` (None once it has no
    destination left); any other kept document as it is."""
    if not _is_project(kept.document):
        return kept
    spec = kept.document.get("spec") or {}
    lists = _without(spec, servers, ())
    if not lists.get("destinations"):
        return None
    fields = ("destinations", "clusterResourceWhitelist")
    spec = {**spec, **{f: lists.get(f, []) for f in fields}}
    return replace(kept, document={**kept.document, "spec": spec})


def with_empty_folders(emitted: Emitted, output_dir: str) -> Emitted:
    """``emitted`` with an empty kustomization for each kept ``<cluster>.tenants`` Application
    whose folder holds nothing any more, and that Application allowed to sync it: its automated
    sync otherwise refuses to prune every resource (argo-cd ``autoSync``: "auto-sync will wipe
    out all resources" unless ``allowEmpty``). kustomize builds ``resources: []`` to nothing."""
    folders = {file.path.rpartition("/")[0] for _, group in emitted for file in group}
    prefix = f"{repo_path(output_dir)}/"
    empty = {
        folder
        for _, group in emitted
        for file in group
        for document in file.documents
        if isinstance(document, dict)
        and application_cluster(document)
        and (folder := _folder(document).removeprefix(prefix)) not in folders
    }
    if not empty:
        return emitted
    groups = [
        (emitter, [_allowing_empty(file, empty, prefix) for file in group])
        for emitter, group in emitted
    ]
    new = [
        OutputFile(
            f"{folder}/kustomization.yaml",
            ({**KUSTOMIZATION, "resources": []},),
            comment=_EMPTY_COMMENT.format(cluster=folder.rpartition("/")[2]),
        )
        for folder in sorted(empty)
    ]
    return [*groups, ("draining", new)]


def _folder(document: Mapping[str, Any]) -> str:
    return str(((document.get("spec") or {}).get("source") or {}).get("path", ""))


def _allowing_empty(file: OutputFile, empty: set[str], prefix: str) -> OutputFile:
    """``file`` with each ``<cluster>.tenants`` Application of a folder in ``empty`` allowed to
    sync it empty."""
    documents = tuple(
        _allowed(document)
        if isinstance(document, dict)
        and application_cluster(document)
        and _folder(document).removeprefix(prefix) in empty
        else document
        for document in file.documents
    )
    return replace(file, documents=documents) if documents != file.documents else file


def _allowed(application: Mapping[str, Any]) -> dict[str, Any]:
    spec = application["spec"]
    automated = {**spec["syncPolicy"]["automated"], "allowEmpty": True}
    policy = {**spec["syncPolicy"], "automated": automated}
    return {**application, "spec": {**spec, "syncPolicy": policy}}
