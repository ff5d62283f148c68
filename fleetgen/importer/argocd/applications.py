"""Argo CD's Applications: each an app instance on the cluster its destination names, in its
project, with its sync policy, source, ignored differences and cascade; an app of apps (a folder
holding only Argo CD objects) is not one: its Applications are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleetgen.importer.argocd.app_source import set_source
from fleetgen.importer.argocd.clusters import destination_cluster
from fleetgen.importer.argocd.clustervars import reads_elsewhere, settle
from fleetgen.importer.argocd.common import ARGO, Reader, spec_call
from fleetgen.importer.argocd.projects import BUILT_IN, project_name
from fleetgen.importer.argocd.subscriptions import subscribe
from fleetgen.importer.argocd.valuefiles import read as value_files, sources_of
from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import unmapped
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
from fleetgen.inputs.reading import KUSTOMIZATION_FILES
from fleetgen.manifests.k8s import CLUSTER_SCOPED
from fleetgen.manifests.yamlio import load_all
from fleetgen.model.fields import to_dns_label
from fleetgen.rules.argocd import RESOURCES_FINALIZER
from fleetgen.util.templating import Call

_ARGO_KINDS = ("Application", "ApplicationSet", "AppProject")
# The Application fields import maps (and below them, the parts it reads).
_APPLICATION_MAPPED = {
    "project": (),
    "source": ("repoURL", "path", "targetRevision", "chart", "helm", "kustomize", "directory"),
    "sources": (),
    "destination": ("server", "name", "namespace"),
    "syncPolicy": ("automated", "syncOptions", "retry"),
    "ignoreDifferences": (),
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
    instance = Instance(
        app,
        cluster,
        origin,
        project=project_name(reader, origin, str(spec.get("project") or BUILT_IN)),
    )
    namespace = at(spec, "destination", "namespace")
    instance.namespace = str(namespace) if namespace else None
    instance.uses = {instance.namespace} if instance.namespace else set()
    instance.sync = _sync(mapping(spec.get("syncPolicy")))
    where = ("spec", "template", "spec") if origin.kind == "ApplicationSet" else ("spec",)
    reader.draft.findings += unmapped(origin, _APPLICATION_MAPPED, {}, spec, where)
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
    if not set_source(reader, origin, instance, sources.deployed[0][1]):
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
        named = {str(_kustomization(reader, instance.path).get("namespace") or "")}
    ships = any(doc.kind == "Namespace" and doc.group == "" for doc in docs)
    used = named | namespaces_of(d for d in docs if d.kind == "Namespace")
    if named and "" not in named and (ships or used != {instance.namespace}):
        instance.namespace = None
        instance.uses = used


def _kustomization(reader: Reader, path: str) -> Mapping[str, Any]:
    """The kustomization of folder ``path`` (empty when it has none, or not a mapping)."""
    for name in KUSTOMIZATION_FILES:
        file = reader.repo.root / path / name
        if file.is_file():
            return mapping(next(iter(load_all(file.read_bytes())), None))
    return {}


def _kept(reader: Reader, origin: Doc, instance: Instance, obj: Mapping[str, Any]) -> None:
    """What an Application keeps besides its source: the differences it ignores, whether
    deleting it deletes what it deployed; its sync wave a finding."""
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
    wave = mapping(meta.get("annotations")).get("argocd.argoproj.io/sync-wave")
    if wave is not None:
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: sync wave {wave}",
                "Argo CD orders Applications by wave "
                "only under an app of apps: say the order with depends_on",
            )
        )


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
