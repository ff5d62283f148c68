"""The Flux Kustomization object, and where a cluster's Kustomizations live (`Home`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fleetgen.emit.flux.sources import source_ref
from fleetgen.model import Fleet
from fleetgen.resolver.plan import Plan

KUSTOMIZE_API = "kustomize.toolkit.fluxcd.io/v1"
GATE_DIR = "flux/gate"  # an empty kustomization, what gate Kustomizations apply

Ref = tuple[str, str]  # (namespace, name) of a Kustomization


@dataclass(frozen=True, slots=True)
class Home:
    """Where the Kustomizations of one cluster live, and what every one of them carries."""

    file: str  # output path of the file that holds them
    namespace: str  # their namespace
    comment: str  # header comment of that file
    spec: Mapping[str, Any] = field(default_factory=dict)  # e.g. kubeConfig for a spoke
    depends_on: tuple[Ref, ...] = ()
    source: Mapping[str, str] | None = None  # its own GitRepository; None: the fleet's
    # where the HelmReleases wrapped in Kustomizations of their own lie (output-relative):
    # flux/releases/<the cluster the objects live on>[/<spoke>]
    releases: str = ""


def releases_dir(cluster: str) -> str:
    """Where the wrapped HelmReleases that live on ``cluster`` lie (output-relative)."""
    return f"flux/releases/{cluster}"


def cluster_dir(cluster: str) -> str:
    """The directory ``flux bootstrap --path`` points at for ``cluster`` (output-relative)."""
    return f"flux/clusters/{cluster}"


def root_ref(fleet: Fleet) -> Ref:
    """The root Kustomization of a cluster, which applies ``flux/clusters/<cluster>/``:
    ``flux bootstrap`` names it after its namespace (flux2 ``sync.Options{Name: namespace}``),
    with ``prune`` and without ``wait``."""
    return (fleet.flux.namespace, fleet.flux.namespace)


def flux_dir(plan: Plan) -> str:
    """``<output_dir>`` as Flux paths spell it: ``./output``."""
    return f"./{plan.fleet.output_dir}"


def kustomization(
    fleet: Fleet,
    name: str,
    home: Home,
    path: str,
    *,
    prune: bool,
    cascade: bool,
    labels: Mapping[str, str],
    annotations: Mapping[str, str] | None = None,
    depends_on: Iterable[Ref] = (),
    extra: Mapping[str, Any] | None = None,
    source: Mapping[str, str] | None = None,
    wait: bool = True,
) -> dict[str, Any]:
    """A Kustomization named ``name`` in ``home`` that applies ``path`` (``./``-relative) of
    ``source`` (default: the fleet's GitRepository); ``cascade``: its removal deletes what it
    applied (``deletionPolicy``); ``wait``: it is Ready once what it applied is healthy (else
    once its ``healthChecks`` are, or it applied)."""
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": home.namespace,
        "labels": dict(sorted(labels.items())),
    }
    if annotations:
        metadata["annotations"] = dict(sorted(annotations.items()))
    spec: dict[str, Any] = {
        "interval": fleet.flux.interval,
        "sourceRef": dict(source or home.source or source_ref(fleet)),
        "path": path,
        "prune": prune,
        "deletionPolicy": "Delete" if cascade else "Orphan",
    }
    if wait:  # Ready, which dependsOn waits for, then means healthy, not just applied
        spec["wait"] = True
    refs = sorted({*home.depends_on, *depends_on})
    if refs:
        spec["dependsOn"] = [_ref(ref, home.namespace) for ref in refs]
    spec.update(extra or {})
    spec.update(home.spec)
    return {
        "apiVersion": KUSTOMIZE_API,
        "kind": "Kustomization",
        "metadata": metadata,
        "spec": dict(sorted(spec.items(), key=lambda item: _SPEC_ORDER[item[0]])),
    }


_SPEC_ORDER = {
    key: index
    for index, key in enumerate(
        (
            "interval",
            "retryInterval",
            "timeout",
            "sourceRef",
            "path",
            "prune",
            "wait",
            "deletionPolicy",
            "dependsOn",
            "healthChecks",
            "ignore",
            "kubeConfig",
            "serviceAccountName",
            "targetNamespace",
            "suspend",
        )
    )
}


def _ref(ref: Ref, own_namespace: str) -> dict[str, str]:
    namespace_, name = ref
    return (
        {"name": name} if namespace_ == own_namespace else {"name": name, "namespace": namespace_}
    )
