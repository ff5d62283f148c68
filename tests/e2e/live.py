"""What is live on a cluster under Flux: an object's identity, whether it is there, and what
each Flux object manages — a Kustomization's inventory, a HelmRelease's release as Helm stored it.
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fleetgen.manifests.yamlio import load_all
from tests.e2e.flux import NAMESPACE
from tests.e2e.kube import Kube, NotFound

# The version each group is read at (what fleetgen emits and the CRDs built serve).
VERSIONS = {
    "": "v1",
    "apps": "apps/v1",
    "kustomize.toolkit.fluxcd.io": "kustomize.toolkit.fluxcd.io/v1",
    "helm.toolkit.fluxcd.io": "helm.toolkit.fluxcd.io/v2",
    "source.toolkit.fluxcd.io": "source.toolkit.fluxcd.io/v1",
    "argoproj.io": "argoproj.io/v1alpha1",
    "rbac.authorization.k8s.io": "rbac.authorization.k8s.io/v1",
}
KUSTOMIZE, HELM = VERSIONS["kustomize.toolkit.fluxcd.io"], VERSIONS["helm.toolkit.fluxcd.io"]


@dataclass(frozen=True, order=True)
class Obj:
    """An object's identity on a cluster."""

    api_version: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"

    @classmethod
    def of(cls, doc: dict[str, Any], namespace: str = "") -> Obj:
        meta = doc["metadata"]
        return cls(doc["apiVersion"], doc["kind"], meta.get("namespace", namespace), meta["name"])


def get(kube: Kube, obj: Obj) -> dict[str, Any] | None:
    """The live object, None when it is not there."""
    try:
        found: dict[str, Any] = kube.get(obj.api_version, obj.kind, obj.name, obj.namespace or None)
    except NotFound:
        return None
    return found


def inventory(kustomization: dict[str, Any]) -> list[Obj]:
    """What a Kustomization applied: its ``status.inventory`` (ids ``ns_name_group_kind``)."""
    entries = (kustomization.get("status", {}).get("inventory") or {}).get("entries") or []
    found = []
    for entry in entries:
        namespace, name, group, kind = entry["id"].split("_")
        found.append(Obj(f"{group}/{entry['v']}" if group else entry["v"], kind, namespace, name))
    return found


def helm_release(kube: Kube, release: dict[str, Any]) -> dict[str, Any] | None:
    """The latest release Helm stored for a HelmRelease (its storage Secret, decoded): version,
    chart metadata, config (the values) and manifest; None when none is stored."""
    spec = release["spec"]
    namespace = spec.get("storageNamespace") or spec.get("targetNamespace") or NAMESPACE
    name = spec.get("releaseName") or release["metadata"]["name"]
    query = urlencode({"labelSelector": f"owner=helm,name={name}"})
    secrets = kube.request("GET", f"/api/v1/namespaces/{namespace}/secrets?{query}")["items"]
    if not secrets:
        return None
    latest = max(secrets, key=lambda s: int(s["metadata"]["labels"]["version"]))
    data = base64.b64decode(base64.b64decode(latest["data"]["release"]))
    stored: dict[str, Any] = json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    return stored


def released(kube: Kube, release: dict[str, Any]) -> list[Obj]:
    """The objects of a HelmRelease's latest release (its manifest)."""
    stored = helm_release(kube, release)
    if stored is None:
        return []
    namespace = stored["namespace"]
    found = []
    for doc in load_all(stored["manifest"]):
        if isinstance(doc, dict) and doc.get("kind"):
            obj = Obj.of(doc, namespace)
            scoped = kube.namespaced(obj.api_version, obj.kind)
            found.append(obj if scoped else Obj(obj.api_version, obj.kind, "", obj.name))
    return found


@dataclass(frozen=True)
class Snapshot:
    """A cluster's Flux objects with what each manages, and each HelmRelease's Helm version."""

    managed: dict[Obj, list[Obj]]
    versions: dict[Obj, int]

    @classmethod
    def take(cls, kube: Kube) -> Snapshot:
        managed: dict[Obj, list[Obj]] = {}
        versions: dict[Obj, int] = {}
        for doc in kube.list(KUSTOMIZE, "Kustomization", NAMESPACE):
            managed[Obj(KUSTOMIZE, "Kustomization", NAMESPACE, doc["metadata"]["name"])] = (
                inventory(doc)
            )
        for doc in kube.list(HELM, "HelmRelease", NAMESPACE):
            obj = Obj(HELM, "HelmRelease", NAMESPACE, doc["metadata"]["name"])
            managed[obj] = released(kube, doc)
            stored = helm_release(kube, doc)
            versions[obj] = stored["version"] if stored else 0
        return cls(managed, versions)
