"""Moving objects to a Kustomization of their own without deleting them on the way: a chart
app's HelmRelease, once the app depends on a Kustomize app, is applied by ``<app>.release``
(`fleetgen.emit.flux.dependencies`) instead of the root Kustomization of its cluster (bootstrap's,
which applies ``flux/clusters/<cluster>/``).

Moved in one commit, it would be uninstalled: the root Kustomization applies the new tree (the
wrapper, not the HelmRelease) and, in the same reconcile, prunes what left it — the HelmRelease —
before the new wrapper has applied it; helm-controller uninstalls a deleted HelmRelease.
kustomize-controller's ``deleteObjects`` (prune and finalize) deletes only live objects labelled
as the pruning Kustomization's (``ssa.DeleteOptions.Inclusions``, its owner labels) and not
annotated ``kustomize.toolkit.fluxcd.io/prune: disabled`` (``Exclusions``). So the move takes
three generations, each confirmed with ``fleetgen build --drained release/<cluster>/<app>`` once
Flux on the cluster applied the one before:

1. ``marked``: the objects stay in the root's file, annotated prune: disabled; no wrapper yet;
2. ``moved``: the wrapper applies them, still annotated: the root's prune skips them;
3. done: the annotation goes (the wrapper applies with the same field manager and drops it).

Objects the tree before did not hold unwrapped (a new app or cluster) take no generations; nor
does a move back out of a wrapper: the root applies the objects before it prunes the wrapper,
whose finalizer then finds them labelled as the root's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.inputs.record import Record
from fleetgen.manifests.k8s import kustomize_config, with_annotations
from fleetgen.rules.flux import PRUNE_DISABLED
from fleetgen.write.output import OutputFile, Wrapped

MARKED, MOVED = "marked", "moved"
Emitted = list[tuple[str, list[OutputFile]]]
Documents = Callable[[str], list[Any]]  # output path -> the documents the tree before holds


def settle_moves(
    emitted: Emitted, record: Record, before: Documents
) -> tuple[Emitted, dict[str, str]]:
    """``emitted`` with each wrapped HelmRelease at its generation, by the record and the
    documents of the tree ``before``; and the moves still under way (name -> stage)."""
    wrapped = {f.wrapped.name: f.wrapped for _, group in emitted for f in group if f.wrapped}
    if not wrapped:
        return emitted, {}
    objects = {
        f.wrapped.name: f.documents
        for _, group in emitted
        for f in group
        if f.wrapped and not any(kustomize_config(doc) for doc in f.documents)
    }
    stages = {
        name: stage
        for name, move in sorted(wrapped.items())
        if (stage := _stage(record, move, objects[name], before)) is not None
    }
    if not stages:
        return emitted, {}
    return [
        (emitter, _moved(group, wrapped, objects, stages)) for emitter, group in emitted
    ], stages


def _stage(record: Record, move: Wrapped, objects: Iterable[Any], before: Documents) -> str | None:
    """The generation of ``move`` this build writes (None: done, or nothing to move)."""
    stage, confirmed = record.moving.get(move.name), move.name in record.confirmed
    if stage == MARKED:
        return MOVED if confirmed else MARKED
    if stage == MOVED:
        return None if confirmed else MOVED
    held = {_identity(d) for d in before(move.home) if isinstance(d, dict)}
    return MARKED if any(_identity(d) in held for d in objects) else None


def _moved(
    group: list[OutputFile],
    wrapped: Mapping[str, Wrapped],
    objects: Mapping[str, tuple[Any, ...]],
    stages: Mapping[str, str],
) -> list[OutputFile]:
    """The files of one emitter at the generations ``stages`` say."""
    marked = {name for name, stage in stages.items() if stage == MARKED}
    into: dict[str, list[str]] = {}
    for name in sorted(marked):
        into.setdefault(wrapped[name].home, []).append(name)
    found = []
    for file in group:
        move = file.wrapped
        if move is not None and move.name in marked:
            continue  # generation 1: no wrapper directory yet
        if move is not None and move.name in stages:
            found.append(replace(file, documents=_annotated(file.documents)))
        elif file.path in into:
            found.append(_unwrapped(file, [wrapped[n] for n in into[file.path]], objects))
        else:
            found.append(file)
    return found


def _unwrapped(
    file: OutputFile, moves: list[Wrapped], objects: Mapping[str, tuple[Any, ...]]
) -> OutputFile:
    """The home ``file`` with the wrappers of ``moves`` replaced by their objects, annotated,
    and their gates as they read unwrapped: the root applies the objects in this generation, so
    a gate ``dependsOn`` the root alone (a missing wrapper would hold it: kustomize-controller's
    ``checkDependencies``) and reads the root's source, whose revision that function compares
    only between Kustomizations of one ``sourceRef`` (`fleetgen.emit.flux.dependencies.gate`)."""
    wrappers = {m.wrapper for m in moves}
    gates = {_identity(m.gate): m.gate for m in moves if m.gate is not None}
    drains = file.drains or ("",) * len(file.documents)
    kept = [
        (gates.get(_identity(doc), doc), drain)
        for doc, drain in zip(file.documents, drains, strict=True)
        if not (doc.get("kind") == "Kustomization" and doc["metadata"]["name"] in wrappers)
    ]
    added = [doc for m in moves for doc in _annotated(objects[m.name])]
    return replace(
        file,
        documents=(*(doc for doc, _ in kept), *added),
        drains=(*(drain for _, drain in kept), *("",) * len(added)) if file.drains else (),
    )


def _annotated(documents: Iterable[Any]) -> tuple[Any, ...]:
    """``documents`` annotated prune: disabled (kustomize's own file stays as it is)."""
    return tuple(
        doc
        if kustomize_config(doc)
        else {**doc, "metadata": with_annotations(doc["metadata"], PRUNE_DISABLED)}
        for doc in documents
    )


def _identity(document: Mapping[str, Any]) -> tuple[str, str, str]:
    meta = document.get("metadata") or {}
    return str(document.get("kind")), str(meta.get("namespace")), str(meta.get("name"))
