"""Removals that complete: what a build keeps, annotated ``fleetgen.io/draining: "true"``, after
the spec stops using it, until the controllers are done with it.

Deleting a placement in cascade mode needs things the same change would otherwise remove in the
same sync: the cluster's registration (argo-cd ``finalizeApplicationDeletion`` drops the cascade
when ``GetDestinationCluster`` fails), the AppProject entries that permit the placement's objects
(``getPermittedAppLiveObjects`` skips what ``IsLiveResourcePermitted`` refuses) and, for a Flux
hub spoke, its kubeconfig, namespace and accounts (kustomize-controller ``finalize`` needs a client
of the spoke). Emitters mark such documents with a drain name (`OutputFile.drains`); the record
(`fleetgen.inputs.record`) holds them in cascade mode. When a build no longer emits any document of
a name the record holds, the documents stay as the tree holds them, annotated; when it emits an
AppProject whose lists lost entries, the entries stay. A draining thing ends when ``build
--drained NAME`` confirms it (`Record.confirmed`) or the spec emits it again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from yaml import YAMLError

from fleetgen.errors import Problem, SpecError
from fleetgen.inputs.load import Loaded
from fleetgen.inputs.record import (
    ChartStamp,
    Drain,
    Items,
    Kept,
    Record,
    digest,
    done_when,
    ref,
)
from fleetgen.manifests.k8s import kustomize_config, with_annotations
from fleetgen.manifests.yamlio import load_all
from fleetgen.model.fields import repo_path
from fleetgen.resolver.plan import Placement
from fleetgen.rules.argocd import SECRET_TYPE
from fleetgen.settle.enginemoves import engine_problems
from fleetgen.settle.handover import handover_problems
from fleetgen.settle.moves import settle_moves
from fleetgen.settle.takeover import taken_over
from fleetgen.settle.tenants import order_problems, with_empty_folders, without_confirmed
from fleetgen.util.templating import render
from fleetgen.write.journal import RECORD
from fleetgen.write.output import OutputFile

DRAINING = "fleetgen.io/draining"
# The lists of a document whose entries a deletion may still need, by kind: what argo-cd
# ``IsLiveResourcePermitted`` and ``applyImpersonationConfig`` read of an AppProject.
NARROWING: Mapping[str, tuple[str, ...]] = {
    "AppProject": (
        "destinations",
        "clusterResourceWhitelist",
        "namespaceResourceWhitelist",
        "destinationServiceAccounts",
    )
}
Emitted = list[tuple[str, list[OutputFile]]]


def settle(
    loaded: Loaded,
    emitted: Emitted,
    placements: Sequence[Placement],
    cascade: bool,
    charts: Mapping[str, ChartStamp],
) -> Emitted:
    """``emitted`` (of ``placements``) with what its removals still need kept, by the committed
    record of ``loaded``, and the record to commit with it (listed in the fleet map too);
    ``cascade``: deletions delete (else nothing is held for later removals); ``charts``: the
    chart stamps to record. Raises SpecError when a kept document cannot be read back."""
    record, previous = loaded.record, _Previous(loaded)
    emitted, moving = settle_moves(emitted, record, previous.documents)
    held = _held(emitted)
    draining: dict[str, Drain] = {}
    for name in sorted({*record.holds, *record.draining, *held}):
        drain = _drain(record, name, held.get(name, {}), previous)
        if drain.documents or drain.items:
            draining[name] = drain
    draining = _not_emitted(draining, emitted)
    outputs = [f for _, group in emitted for f in group]
    draining, taken = taken_over(loaded.fleet, draining, outputs)
    draining = without_confirmed(draining, record, outputs)
    problems = [
        *previous.problems,
        *taken,
        *order_problems(record, previous.where(RECORD)),
        *handover_problems(loaded.fleet, outputs, previous.documents),
        *engine_problems(loaded.fleet, placements, previous.documents, previous.read),
    ]
    if problems:
        raise SpecError(problems)
    files = with_empty_folders(_kept(emitted, draining), loaded.fleet.output_dir)
    holds = {
        name: {r: digest(doc) for r, doc in docs.items()} for name, docs in _held(files).items()
    }
    return _recorded(files, Record(charts, holds if cascade else {}, draining, moving=moving))


def _recorded(emitted: Emitted, record: Record) -> Emitted:
    """``emitted`` with the record file (unless there is nothing to record) and the fleet map's
    list of what drains."""
    if record.empty:
        return emitted
    groups = [
        (name, [_with_draining(f, record) for f in files]) if name == "fleetmap" else (name, files)
        for name, files in emitted
    ]
    return [*groups, ("record", [OutputFile(RECORD, text=record.to_text())])]


def _with_draining(file: OutputFile, record: Record) -> OutputFile:
    """The fleet map ``file`` (the one file of the emitter ``fleetmap``) with a section listing
    what drains or moves (`Record.pending`; none: unchanged)."""
    pending = record.pending
    if not pending or file.text is None:
        return file
    rows = [
        (name, kept, done_when(name, record.draining.get(name)))
        for name, kept in sorted(pending.items())
    ]
    return replace(file, text=file.text + render("draining.md.j2", rows=rows))


def _not_emitted(draining: dict[str, Drain], emitted: Emitted) -> dict[str, Drain]:
    """``draining`` without the kept documents the output holds anyway (an object another
    name marks now, or the spec emits again unmarked): an object is never written twice."""
    if not any(drain.documents for drain in draining.values()):
        return draining
    present = {
        ref(f.path, d)
        for _, group in emitted
        for f in group
        for d in f.documents
        if isinstance(d, dict)
    }
    found = {}
    for name, drain in draining.items():
        kept = tuple(k for k in drain.documents if ref(k.path, k.document) not in present)
        if kept or drain.items:
            found[name] = replace(drain, documents=kept)
    return found


def _held(emitted: Emitted) -> dict[str, dict[str, dict[str, Any]]]:
    """Drain name -> reference -> each document the files mark with it."""
    found: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for _, group in emitted:
        for file in group:
            for names, document in zip(file.drains, file.documents, strict=False):
                for name in names.split():
                    found[name][ref(file.path, document)] = document
    return found


def _drain(
    record: Record, name: str, emitted: Mapping[str, dict[str, Any]], previous: _Previous
) -> Drain:
    """What ``name`` keeps in this build."""
    before = record.draining.get(name, Drain())
    confirmed = name in record.confirmed
    if not emitted:  # the spec no longer uses it: every document stays, until confirmed
        if confirmed:
            return Drain()
        kept = {ref(k.path, k.document): k for k in before.documents}
        for found, sha in sorted(record.holds.get(name, {}).items()):
            if found not in kept and (document := previous.document(found, sha)) is not None:
                kept[found] = Kept(found.partition("#")[0], annotated(document))
        return Drain(tuple(kept.values()))
    items: dict[str, Items] = {}
    for found, document in emitted.items():
        fields = NARROWING.get(document.get("kind", ""), ())
        if fields:
            kept_items = _kept_items(record, name, found, document, fields, previous)
            if kept_items:
                items[found] = kept_items
    return Drain(items=items)


def _kept_items(
    record: Record,
    name: str,
    found: str,
    document: Mapping[str, Any],
    fields: tuple[str, ...],
    previous: _Previous,
) -> Items:
    """The entries of ``document``'s lists that a build before had and that still drain."""
    before = record.draining.get(name, Drain())
    draining = before.items.get(found, {})
    carried = {} if name in record.confirmed else draining
    now = _lists(document, fields)
    kept = {f: [e for e in carried.get(f, []) if e not in now[f]] for f in fields}
    sha = record.holds.get(name, {}).get(found)
    earlier = [k.document for k in before.documents if ref(k.path, k.document) == found]
    if sha is not None and sha != digest(merged(document, kept)):
        earlier += [d for d in (previous.document(found, sha),) if d is not None]
    for old in earlier:
        for f, entries in _lists(old, fields).items():
            kept[f] += [
                e
                for e in entries
                if e not in now[f] and e not in draining.get(f, []) and e not in kept[f]
            ]
    return {f: entries for f, entries in kept.items() if entries}


def _lists(document: Mapping[str, Any], fields: Iterable[str]) -> dict[str, list[Any]]:
    spec = document.get("spec") or {}
    return {f: list(spec.get(f) or ()) for f in fields}


def merged(document: Mapping[str, Any], items: Items) -> dict[str, Any]:
    """``document`` with the kept ``items`` appended to its lists, annotated when any are."""
    if not any(items.values()):
        return dict(document)
    spec = dict(document.get("spec") or {})
    for f, entries in items.items():
        if entries:
            spec[f] = [*(spec.get(f) or ()), *entries]
    return annotated({**document, "spec": spec})


def annotated(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` annotated as draining, and made inert where it would act again:

    - a Flux Kustomization orphans what it applied when it is finally deleted
      (kustomize-controller ``finalizerShouldDeleteResources``): its cascade ran when the
      placements left, and the client it would need goes with it;
    - an Argo CD cluster registration keeps only its secret-type label, so that no
      ApplicationSet cluster generator (a label selector) places an app on it again.
    """
    kind, api_version = document.get("kind"), str(document.get("apiVersion", ""))
    if kustomize_config(document):
        return dict(document)
    found = {**document, "metadata": with_annotations(document.get("metadata") or {}, _MARK)}
    if kind == "Kustomization" and api_version.startswith("kustomize.toolkit.fluxcd.io/"):
        found["spec"] = {**found.get("spec", {}), "deletionPolicy": "Orphan"}
    elif kind == "Secret" and _registration(found["metadata"]):
        found["metadata"] = {**found["metadata"], "labels": dict(_REGISTRATION_LABEL)}
    elif kind == "ExternalSecret" and _registration(_template_meta(found)):
        spec = found["spec"]
        target = spec["target"]
        meta = {**_template_meta(found), "labels": dict(_REGISTRATION_LABEL)}
        template = {**target["template"], "metadata": meta}
        found["spec"] = {**spec, "target": {**target, "template": template}}
    return found


_REGISTRATION_LABEL = {SECRET_TYPE: "cluster"}
_MARK = {DRAINING: "true"}


def _registration(meta: Any) -> bool:
    """Whether ``meta`` (ObjectMeta) is an Argo CD cluster registration's."""
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return isinstance(labels, dict) and labels.items() >= _REGISTRATION_LABEL.items()


def _template_meta(document: Mapping[str, Any]) -> Any:
    """An ExternalSecret's ``spec.target.template.metadata`` (None where it has none)."""
    target = (document.get("spec") or {}).get("target") or {}
    return (target.get("template") or {}).get("metadata")


def _kept(emitted: Emitted, draining: Mapping[str, Drain]) -> Emitted:
    """``emitted`` with the kept list entries merged and the kept documents added to their
    files (in new files, in a group of their own, where none is left)."""
    items = {found: kept for drain in draining.values() for found, kept in drain.items.items()}
    extra: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for drain in draining.values():  # a document kept for several names is written once
        for kept in drain.documents:
            extra[kept.path].setdefault(ref(kept.path, kept.document), kept.document)
    groups = [
        (emitter, [_with_kept(file, items, [*extra.pop(file.path, {}).values()]) for file in group])
        for emitter, group in emitted
    ]
    new = [
        OutputFile(path, tuple(docs.values()), comment=_KEPT_COMMENT)
        for path, docs in sorted(extra.items())
    ]
    return [*groups, ("draining", new)] if new else groups


def _with_kept(
    file: OutputFile, items: Mapping[str, Items], added: list[dict[str, Any]]
) -> OutputFile:
    """``file`` with the kept entries of its documents' lists merged and ``added`` after them."""
    refs = [ref(file.path, document) for document in file.documents]
    if not added and not any(found in items for found in refs):
        return file
    documents = tuple(
        merged(document, items[found]) if found in items else document
        for found, document in zip(refs, file.documents, strict=True)
    )
    drains = (*(file.drains or ("",) * len(refs)), *("",) * len(added))
    return replace(file, documents=(*documents, *added), drains=drains)


_KEPT_COMMENT = (
    "Kept while a removal drains (fleetgen.io/draining): `fleetgen build --drained NAME` drops it\n"
    "once the controllers are done; `fleetgen diff` and output/README.md name what drains."
)


@dataclass
class _Previous:
    """The documents of the output folder as the spec's repository holds it (the tree the
    record describes)."""

    loaded: Loaded
    problems: list[Problem] = field(default_factory=list)
    _files: dict[str, list[Any]] = field(default_factory=dict)

    def documents(self, path: str) -> list[Any]:
        """The documents of the output file ``path`` (none where it is absent or not YAML)."""
        if path not in self._files:
            data = self.read(path)
            try:
                self._files[path] = load_all(data) if data is not None else []
            except YAMLError:
                self._files[path] = []
        return self._files[path]

    def read(self, path: str) -> bytes | None:
        """The bytes of the output file ``path`` (None where it is absent)."""
        return self.loaded.read(self.where(path))

    def where(self, path: str) -> str:
        """The repository path of the output file ``path``."""
        return f"{repo_path(self.loaded.fleet.output_dir)}/{path}"

    def document(self, found: str, sha: str) -> dict[str, Any] | None:
        """The document ``found`` refers to, if the tree still holds it as recorded."""
        path = found.partition("#")[0]
        where = self.where(path)
        for document in self.documents(path):
            if (
                isinstance(document, dict)
                and ref(path, document) == found
                and digest(document) == sha
            ):
                return document
        self.problems.append(
            Problem(
                f"{found.partition('#')[2]} in {path} is not as the last build wrote it (see "
                f"{RECORD}): a removal must keep it while the controllers delete; restore "
                "the output folder from Git and build again",
                where,
            )
        )
        return None
