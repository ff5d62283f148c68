"""Kubernetes' own rules that more than one layer needs: ConfigMap keys, object identity, which
images a kustomize ``images`` entry rewrites, which API groups are Kubernetes' own and which
kinds are cluster-scoped.

`configmap_key_problem` serves the spec's field types (`fleetgen.model.fields`) and the YAML writer
(`fleetgen.manifests.yamlio`); `Key` and `identity` serve ``diff`` and ``validate``;
`image_matches` serves
``resolve``; `BUILT_IN_GROUPS`, `CLUSTER_SCOPED`, `CRD_SCOPES` and `crd_scope` the workspace
inventory and ``validate``. Nothing here imports more of fleetgen than the YAML scalar rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.manifests.yamlscalar import needs_quotes

# The API groups Kubernetes itself serves (every group of kubernetes-validate's schemas, Kubernetes
# 1.25-1.37). Not every ``*.k8s.io`` group is one: Gateway API (``gateway.networking.k8s.io``),
# volume snapshots (``snapshot.storage.k8s.io``) and other SIG projects ship CRDs in such groups,
# so a kind there is a custom kind, whose scope and schema come from its CRD.
BUILT_IN_GROUPS: frozenset[str] = frozenset(
    (
        "",
        "admission.k8s.io",
        "admissionregistration.k8s.io",
        "apiextensions.k8s.io",
        "apiregistration.k8s.io",
        "apps",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "autoscaling",
        "batch",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "extensions",
        "flowcontrol.apiserver.k8s.io",
        "imagepolicy.k8s.io",
        "internal.apiserver.k8s.io",
        "lifecycle.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "policy",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
        "storagemigration.k8s.io",
    )
)

# The built-in cluster-scoped kinds, (API group, kind) (kubectl api-resources --namespaced=false,
# Kubernetes 1.35): kustomize's namespace rewrite leaves these alone, and sets every other's.
CLUSTER_SCOPED: tuple[tuple[str, str], ...] = (
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "VolumeAttributesClass"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("node.k8s.io", "RuntimeClass"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("certificates.k8s.io", "ClusterTrustBundle"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("resource.k8s.io", "DeviceClass"),
    ("resource.k8s.io", "ResourceSlice"),
)
# The scope of well-known custom kinds in ``*.k8s.io`` groups, (group, kind) -> cluster-scoped, as
# their CRDs say (``spec.scope``): Gateway API's standard channel (kubernetes-sigs/gateway-api
# config/crd/standard), kubernetes-csi/external-snapshotter's client/config/crd and
# kubernetes-sigs/network-policy-api's AdminNetworkPolicy. A CRD in the repository or rendered by
# a base says otherwise and wins; a kind in none of these has no known scope ("not checked").
CRD_SCOPES: Mapping[tuple[str, str], bool] = {
    ("gateway.networking.k8s.io", "GatewayClass"): True,
    ("gateway.networking.k8s.io", "Gateway"): False,
    ("gateway.networking.k8s.io", "HTTPRoute"): False,
    ("gateway.networking.k8s.io", "GRPCRoute"): False,
    ("gateway.networking.k8s.io", "TLSRoute"): False,
    ("gateway.networking.k8s.io", "TCPRoute"): False,
    ("gateway.networking.k8s.io", "UDPRoute"): False,
    ("gateway.networking.k8s.io", "ReferenceGrant"): False,
    ("gateway.networking.k8s.io", "BackendTLSPolicy"): False,
    ("snapshot.storage.k8s.io", "VolumeSnapshotClass"): True,
    ("snapshot.storage.k8s.io", "VolumeSnapshotContent"): True,
    ("snapshot.storage.k8s.io", "VolumeSnapshot"): False,
    ("policy.networking.k8s.io", "AdminNetworkPolicy"): True,
    ("policy.networking.k8s.io", "BaselineAdminNetworkPolicy"): True,
}
_CONFIGMAP_KEY = re.compile(r"[-._a-zA-Z0-9]{1,253}")
_IMAGE_TAG = r"(:[a-zA-Z0-9_.{}-]*)?"
_IMAGE_DIGEST = r"(@sha256:[a-zA-Z0-9_.{}-]*)?"


def configmap_key_problem(key: str) -> str | None:
    """Why ``key`` cannot be a key of a generated ConfigMap, or None.

    Keys that a YAML reader could take for a non-string are refused: kustomize v5's generator
    writes keys unquoted and fails on ``1``, ``true``, ``1e3``, ``2024-01-01`` and the like.
    """
    if not _CONFIGMAP_KEY.fullmatch(key):
        return f"invalid ConfigMap key {key!r}: use 1-253 letters, digits, '-_.'"
    if needs_quotes(key):
        return (
            f"ConfigMap key {key!r} reads as a number, boolean, null or date in YAML, and"
            " kustomize's configMapGenerator fails on such keys; rename it"
        )
    return None


@dataclass(frozen=True, slots=True, order=True)
class Key:
    """The identity of one object; ``scope`` says where it lives (a cluster, the Argo CD hub, a
    file)."""

    scope: str
    group: str
    kind: str
    namespace: str
    name: str


def identity(scope: str, doc: Any) -> Key:
    """(scope, group, kind, namespace, name) of a Kubernetes-shaped document."""
    if not isinstance(doc, dict):
        return Key(scope, "", "", "", "")
    api = str(doc.get("apiVersion") or "")
    metadata = doc.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    return Key(
        scope,
        api.rpartition("/")[0] if "/" in api else "",
        str(doc.get("kind") or ""),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or ""),
    )


def with_annotations(meta: Mapping[str, Any], annotations: Mapping[str, str]) -> dict[str, Any]:
    """The ObjectMeta ``meta`` with ``annotations`` added (keys sorted)."""
    found = {**(meta.get("annotations") or {}), **annotations}
    return {**meta, "annotations": dict(sorted(found.items()))}


def kustomize_config(doc: Mapping[str, Any]) -> bool:
    """Whether ``doc`` is kustomize's own file (a kustomization or Component): no object a
    cluster ever holds."""
    return str(doc.get("apiVersion", "")).startswith("kustomize.config.k8s.io/")


def group_of(api_version: Any) -> str:
    """The API group of an ``apiVersion`` (``""`` for ``v1`` and for what is no string)."""
    return api_version.rpartition("/")[0] if isinstance(api_version, str) else ""


def crd_scope(doc: Mapping[str, Any]) -> tuple[tuple[str, str], bool] | None:
    """((group, kind), cluster-scoped) of a CustomResourceDefinition, None for anything else."""
    if doc.get("kind") != "CustomResourceDefinition":
        return None
    spec = doc.get("spec")
    names = spec.get("names") if isinstance(spec, dict) else None
    if not isinstance(names, dict) or not isinstance(spec, dict):
        return None
    group, kind = spec.get("group"), names.get("kind")
    if not isinstance(group, str) or not isinstance(kind, str):
        return None
    return (group, kind), spec.get("scope") == "Cluster"


def image_matches(image: str, name: str) -> bool:
    """Whether a kustomize ``images`` entry named ``name`` rewrites the container image ``image``.

    As kustomize's ``image.IsImageMatched`` (v5.5, as in the controllers fleetgen supports):
    ``name`` is put into a regular expression as it is and must match the whole reference up to
    an optional tag and ``@sha256`` digest, so ``nginx`` does not match ``docker.io/library/nginx``.
    A name that is no valid expression matches nothing.
    """
    try:
        return re.fullmatch(name + _IMAGE_TAG + _IMAGE_DIGEST, image) is not None
    except re.error:
        return False


def image_name(reference: str) -> str:
    """An image reference without its tag and digest (kustomize's ``image.Split``: a ``:`` before
    the first ``/`` is a registry port)."""
    slash = max(reference.find("/"), 0)
    cuts = [i for i in (reference.find("@", slash), reference.find(":", slash)) if i >= 0]
    return reference[: min(cuts)] if cuts else reference


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` match a LabelSelector as written in a manifest (``matchLabels``,
    ``matchExpressions``), with Kubernetes' semantics (metav1.LabelSelectorAsSelector); an
    entry of another shape than the API's, or an unknown operator, matches nothing."""
    match_labels = selector.get("matchLabels")
    if isinstance(match_labels, Mapping) and any(
        labels.get(str(key)) != str(value) for key, value in match_labels.items()
    ):
        return False
    expressions = selector.get("matchExpressions")
    for expression in expressions if isinstance(expressions, list) else ():
        if not isinstance(expression, Mapping):
            return False
        key, written = str(expression.get("key")), expression.get("values")
        values = [str(v) for v in written] if isinstance(written, list) else []
        present = key in labels
        if not {
            "In": present and labels.get(key) in values,
            "NotIn": not present or labels.get(key) not in values,
            "Exists": present,
            "DoesNotExist": not present,
        }.get(str(expression.get("operator")), False):
            return False
    return True
