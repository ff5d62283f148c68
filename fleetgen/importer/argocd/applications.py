"""Argo CD's Applications: each an app instance on the cluster its destination names, in its
project, with its sync policy, source, ignored differences and cascade; an app of apps (a folder
holding only Argo CD objects) is not one: its Applications are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleetgen.importer.argocd.app_source import set_source
from fleetgen.importer.argocd.clusters import destination_cluster
from fleetgen.importer.argocd.clustervars import reads_elsewhere, settle
from fleetgen.importer.argocd.common import ARGO, ARGO_NAMESPACE, Path, Reader, spec_call
from fleetgen.importer.argocd.projects import BUILT_IN, permits, project_name
from fleetgen.importer.argocd.subscriptions import PREFIX as NOTIFICATIONS, subscribe
from fleetgen.importer.argocd.valuefiles import read as value_files, sources_of
from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import Finding, unmapped
from fleetgen.importer.repo import (
    Doc,
    Unreadable,
    at,
    mapping,
    mappings,
    namespaces_of,
    relative_path,
    strings,
)
from fleetgen.manifests.k8s import CLUSTER_SCOPED
from fleetgen.model.fields import to_dns_label
from fleetgen.rules.argocd import RESOURCES_FINALIZER
from fleetgen.util.templating import Call

_ARGO_KINDS = ("Application", "ApplicationSet", "AppProject")
_ARGO = "argocd.argoproj.io/"  # the prefix of Argo CD's own annotations
_WAVE = f"{_ARGO}sync-wave"
_WAVE_TODO = (
    "Argo CD orders Applications by wave only under an app of apps: say the order with depends_on"
)
_ARGO_TODO = (
    "an annotation of Argo CD's own, which fleetgen writes where it needs one on its "
    "Applications: set it by hand if it matters"
)
# The fields of an ApplicationSet template's metadata (ApplicationSetTemplateMeta).
_TEMPLATE_META = ("name", "namespace", "labels", "annotations", "finalizers")
# The Application fields import maps (and below them, the parts it reads).
_APPLICATION_MAPPED = {
    "project": (),
    "source": ("repoURL", "path", "targetRevision", "chart", "helm", "kustomize", "directory"),
    "sources": (),
    "destination": ("server", "name", "namespace"),
    "syncPolicy": ("automated", "syncOptions", "retry"),
    "ignoreDifferences": (),
}
# Below those, the fields of the sync policy import reads.
_SYNC_READ: dict[tuple[str, ...], tuple[str, ...]] = {
    ("syncPolicy", "automated"): ("enabled", "prune", "selfHeal", "allowEmpty"),
    ("syncPolicy", "retry"): ("limit", "backoff"),
    ("syncPolicy", "retry", "backoff"): ("duration", "factor", "maxDuration"),
}
# The fields of an ignoreDifferences entry IgnoreDifference carries: (its key, the field).
_IGNORE_KEYS = (
    ("group", "group"),
    ("kind", "kind"),
    ("name", "name"),
    ("namespace", "namespace"),
    ("jsonPointers", "json_pointers"),
    ("jqPathExpressions", "jq_path_expressions"),
    ("managedFieldsManagers", "managed_fields_managers"),
)


def is_parent(reader: Reader, doc: Doc) -> bool:
    """Whether an Application deploys only Argo CD objects of this repository (an app of
    apps): they are imported themselves."""
    found = mapping(doc.spec.get("source"))
    path = relative_path(str(found.get("path", ""))) if found.get("path") else None
    if path is None or not (reader.repo.root / path).is_dir():
        return False
    inside = list(reader.repo.under(path))
    return bool(inside) and all(d.group.startswith(ARGO) and d.kind in _ARGO_KINDS for d in inside)


def application(
    reader: Reader,
    origin: Doc,
    obj: Mapping[str, Any],
    name: str | None = None,
    runtime: dict[str, Any] | None = None,
) -> None:
    """An Application (or one an ApplicationSet generated, located at ``origin``, whose
    generator selects clusters another tool registers by the ``runtime`` selector)."""
    spec = mapping(obj.get("spec"))
    meta = mapping(obj.get("metadata"))
    app = name or to_dns_label(str(meta.get("name", "")), "app")
    target = destination_cluster(reader, origin, mapping(spec.get("destination")))
    cluster = target.draft.name
    sources = sources_of(spec)
    if len(sources.deployed) > 1:
        reader.draft.findings.append(
            origin.finding(
                f"{app}: {len(sources.deployed)} sources",
                "fleetgen apps have one source: the first is imported; add the others as apps",
                ("spec", "sources"),
            )
        )
    project = str(spec.get("project") or BUILT_IN)
    instance = Instance(app, cluster, origin, project=project_name(reader, origin, project))
    every = dict([*sources.deployed, *sources.refs.values()])
    permits(reader, origin, app, project, target, spec, list(every.items()))
    namespace = at(spec, "destination", "namespace")
    instance.namespace = str(namespace) if namespace else None
    instance.uses = {instance.namespace} if instance.namespace else set()
    instance.sync = _sync(mapping(spec.get("syncPolicy")))
    where = ("spec", "template", "spec") if origin.kind == "ApplicationSet" else ("spec",)
    reader.draft.findings += _unread(origin, spec, where)
    if not sources.deployed:
        reader.draft.findings.append(
            origin.finding(
                f"{app}: its sources are only referenced (ref): it deploys nothing",
                "nothing to add, unless it should deploy something",
                (*where, "sources"),
            )
        )
        return
    if target.external and reads_elsewhere(reader, origin, app, spec, target, sources.deployed[0]):
        return
    at_source, source = sources.deployed[0]
    if not set_source(reader, origin, instance, source, (*where, *at_source)):
        return
    _named_namespaces(reader, instance)
    if target.external:
        instance.runtime = runtime or {}
        if not settle(reader, origin, instance, target):
            return
    if instance.chart is not None:
        value_files(reader, origin, instance, sources, target if target.external else None)
    _kept(reader, origin, instance, obj)
    subscribe(reader, origin, instance, obj, str(spec.get("project") or BUILT_IN))
    created = "CreateNamespace=true" in strings(at(spec, "syncPolicy", "syncOptions"))
    reader.namespaces_created.append((origin, app, created))
    reader.draft.instances.append(instance)


def _unread(origin: Doc, spec: Mapping[str, Any], where: Path) -> list[Finding]:
    """A finding for each field of an Application's ``spec`` (written at ``where``) import
    does not read, below its sync policy too."""
    found = unmapped(origin, _APPLICATION_MAPPED, {}, spec, where)
    for path, keys in _SYNC_READ.items():
        policy = mapping(at(spec, *path))
        label = ".".join(("spec", *path))
        found += unmapped(origin, dict.fromkeys(keys, ()), {}, policy, (*where, *path), label)
    return found


def _named_namespaces(reader: Reader, instance: Instance) -> None:
    """A folder here whose every namespaced object names a namespace, and which ships a
    Namespace or puts objects in another than the destination's: the app is ``namespace=None``,
    its manifests say where things go (fleetgen creates an app's own namespace, and refuses a
    base that ships it). Argo CD's destination namespace fills in only namespaced objects
    without one (controller/state.go ``NormalizeTargetObjects``), where fleetgen's namespace=
    puts every object in it. A folder kustomize cannot build here (a chart it inflates, a
    remote base) is judged by its kustomization's ``namespace``, which places every object."""
    if instance.namespace is None or instance.path is None or instance.chart or instance.source:
        return
    try:
        docs = reader.repo.deployed(instance.path)
        named = {doc.namespace for doc in docs if (doc.group, doc.kind) not in CLUSTER_SCOPED}
    except Unreadable:  # said where the folder is read
        docs = list(reader.repo.under(instance.path))
        kustomization = reader.repo.kustomization(instance.path)
        named = {str(kustomization.obj.get("namespace") or "") if kustomization else ""}
    ships = any(doc.kind == "Namespace" and doc.group == "" for doc in docs)
    used = named | namespaces_of(d for d in docs if d.kind == "Namespace")
    if named and "" not in named and (ships or used != {instance.namespace}):
        instance.namespace = None
        instance.uses = used


def _kept(reader: Reader, origin: Doc, instance: Instance, obj: Mapping[str, Any]) -> None:
    """What an Application keeps besides its source: the differences it ignores, whether
    deleting it deletes what it deployed, its labels and annotations."""
    spec = mapping(obj.get("spec"))
    meta = mapping(obj.get("metadata"))
    fields = []
    ignored = [
        spec_call("IgnoreDifference", item, _IGNORE_KEYS)
        for item in mappings(spec.get("ignoreDifferences"))
    ]
    if ignored:
        fields.append(("ignore_differences", ignored))
    instance.app_fields = (*instance.app_fields, *fields)
    instance.cascade = RESOURCES_FINALIZER in strings(meta.get("finalizers"))
    _metadata(reader, origin, instance, meta)
    if origin.kind == "ApplicationSet":
        reader.draft.findings += _template_meta(origin, meta)


def _metadata(reader: Reader, origin: Doc, instance: Instance, meta: Mapping[str, Any]) -> None:
    """An Application's labels and annotations, for App(labels=..., annotations=...) but its
    subscriptions (`subscriptions.subscribe`: Notify) and Argo CD's own annotations
    (``argocd.argoproj.io/``), which steer how an app of apps syncs it
    (fleetgen's Applications are made by ApplicationSets): a finding each, its sync wave an
    order to say with depends_on."""
    instance.labels = {str(k): str(v) for k, v in mapping(meta.get("labels")).items()}
    annotations = {str(k): str(v) for k, v in mapping(meta.get("annotations")).items()}
    instance.annotations = {
        k: v for k, v in annotations.items() if not k.startswith((_ARGO, NOTIFICATIONS))
    }
    for key, value in annotations.items():
        if not key.startswith(_ARGO):
            continue
        what, todo = (
            (f"sync wave {value}", _WAVE_TODO)
            if key == _WAVE
            else (f"annotation {key!r} not mapped", _ARGO_TODO)
        )
        reader.draft.findings.append(
            origin.finding(f"{instance.name}: {what}", todo, (*_meta_at(origin), "annotations"))
        )


def _template_meta(origin: Doc, meta: Mapping[str, Any]) -> list[Finding]:
    """What of a set's template's metadata Argo CD does not read: a field an Application
    template's metadata has not (the API server drops it), a namespace other than the set's
    (applicationset template ``GenerateApplications`` puts the Applications in the set's)."""
    found = [
        origin.finding(
            f"ApplicationSet {origin.name!r}: spec.template.metadata.{key} is no field of an "
            "Application template's metadata",
            "the API server drops it: delete it",
            (*_meta_at(origin), key),
        )
        for key in sorted(set(meta) - set(_TEMPLATE_META))
    ]
    namespace, own = str(meta.get("namespace") or ""), origin.namespace or ARGO_NAMESPACE
    if namespace and namespace != own:
        found.append(
            origin.finding(
                f"ApplicationSet {origin.name!r}: spec.template.metadata.namespace {namespace!r} "
                f"is not read: Argo CD puts its Applications in the set's namespace {own!r}",
                "delete it",
                (*_meta_at(origin), "namespace"),
            )
        )
    return found


def _meta_at(origin: Doc) -> Path:
    """Where an Application's metadata is written: its own, or its set's template's."""
    return ("spec", "template", "metadata") if origin.kind == "ApplicationSet" else ("metadata",)


def _sync(policy: Mapping[str, Any]) -> dict[str, Any]:
    """SyncPolicy fields of an Application's ``syncPolicy`` (CreateNamespace apart: a
    Fleet setting)."""
    sync: dict[str, Any] = {}
    automated = policy.get("automated")
    if isinstance(automated, Mapping):
        sync["automated"] = automated.get("enabled", True) is not False
        for key, name in (
            ("prune", "prune"),
            ("selfHeal", "self_heal"),
            ("allowEmpty", "allow_empty"),
        ):
            if automated.get(key):
                sync[name] = True
    options = [
        o for o in strings(policy.get("syncOptions")) if not o.startswith("CreateNamespace=")
    ]
    if options:
        sync["sync_options"] = options
    retry = mapping(policy.get("retry"))
    if retry:
        backoff = mapping(retry.get("backoff"))
        fields = {
            "limit": retry.get("limit"),
            "backoff_duration": backoff.get("duration"),
            "backoff_factor": backoff.get("factor"),
            "backoff_max_duration": backoff.get("maxDuration"),
        }
        sync["retry"] = Call("Retry", {k: v for k, v in fields.items() if v is not None})
    return sync
