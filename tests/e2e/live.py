"""What is live on a cluster under Flux: an object's identity, whether it is there, and what
each Flux object manages — a Kustomization's inventory, a HelmRelease's release as Helm stored it.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fleetgen.manifests.yamlio import load_all
from tests.e2e.flux import NAMESPACE
from tests.e2e.kube import Kube, NotFound
from tests.e2e.processes import wait_for

# The version each group is read at (what fleetgen emits and the CRDs built serve).
VERSIONS = {
    "": "v1",
    "apps": "apps/v1",
    "kustomize.toolkit.fluxcd.io": "kustomize.toolkit.fluxcd.io/v1",
    "helm.toolkit.fluxcd.io": "helm.toolkit.fluxcd.io/v2",
    "source.toolkit.fluxcd.io": "source.toolkit.fluxcd.io/v1",
    "external-secrets.io": "external-secrets.io/v1",
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


@dataclass(frozen=True)
class Site:
    """Where a fleet cluster's objects are: its Flux objects in ``namespace`` on ``flux`` (its
    own API server, or its hub's), the logs of the Flux there, and what they apply on
    ``spoke`` (a hub's spoke, reached through kubeConfig) or else on ``flux``."""

    flux: Kube
    logs: list[Path]
    namespace: str = NAMESPACE
    spoke: Kube | None = None

    @property
    def workloads(self) -> Kube:
        return self.spoke or self.flux

    def plane(self, file: str) -> Kube:
        """The API server an output file's objects are applied to: a spoke's folder
        (``flux/spokes/<spoke>/``) on the spoke, the rest where Flux runs."""
        return self.workloads if "/flux/spokes/" in f"/{file}" else self.flux

    def snapshot(self) -> Snapshot:
        return Snapshot.take(self.flux, self.namespace, self.spoke)


def get(kube: Kube, obj: Obj) -> dict[str, Any] | None:
    """The live object, None when it is not there."""
    try:
        found: dict[str, Any] = kube.get(obj.api_version, obj.kind, obj.name, obj.namespace or None)
    except NotFound:
        return None
    return found


def terminating(kube: Kube, obj: Obj) -> bool:
    """Whether ``obj`` is being deleted and held there (a finalizer that cannot complete)."""
    return "deletionTimestamp" in (get(kube, obj) or {}).get("metadata", {})


def kept(kube: Kube, obj: Obj, said: str) -> dict[str, Any]:
    """``obj`` live and not being deleted, as a diff verdict ``said`` it stays; fails else."""
    live = get(kube, obj)
    assert live is not None, f"diff: {said}; live: deleted"
    assert "deletionTimestamp" not in live["metadata"], f"{obj} is being deleted"
    return live


def stuck(kube: Kube, obj: Obj, timeout: float, logs: Sequence[Path]) -> None:
    """Wait until ``obj`` hangs terminating, as a diff verdict ``stuck`` says."""
    wait_for(f"{obj} terminating", lambda: terminating(kube, obj), timeout, logs)


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
    """A cluster's Flux objects with what each manages, each HelmRelease's Helm version, and the
    uid of each of these objects (an object deleted and created again gets a new one)."""

    managed: dict[Obj, list[Obj]]
    versions: dict[Obj, int]
    uids: dict[Obj, str]

    @classmethod
    def take(cls, kube: Kube, namespace: str = NAMESPACE, target: Kube | None = None) -> Snapshot:
        """The Flux objects in ``namespace`` on ``kube``; what they manage on ``target`` (a hub's
        spoke, reached through kubeConfig), else on ``kube``."""
        target = target or kube
        managed: dict[Obj, list[Obj]] = {}
        versions: dict[Obj, int] = {}
        for doc in kube.list(KUSTOMIZE, "Kustomization", namespace):
            managed[Obj(KUSTOMIZE, "Kustomization", namespace, doc["metadata"]["name"])] = (
                inventory(doc)
            )
        for doc in kube.list(HELM, "HelmRelease", namespace):
            obj = Obj(HELM, "HelmRelease", namespace, doc["metadata"]["name"])
            managed[obj] = released(target, doc)
            stored = helm_release(target, doc)
            versions[obj] = stored["version"] if stored else 0
        uids = {}
        held = {o for objs in managed.values() for o in objs}
        for plane, objs in ((kube, set(managed)), (target, held)):
            for obj in objs:
                live = get(plane, obj)
                if live is not None:
                    uids[obj] = live["metadata"]["uid"]
        return cls(managed, versions, uids)
