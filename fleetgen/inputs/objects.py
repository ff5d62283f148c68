"""What fleetgen reads from one Kubernetes object of a base: its name, the objects of a List,
the fields a namespace rewrite sets, a ConfigMap's data, the ConfigMaps a workload reads and the
images of its containers.
"""

from __future__ import annotations

from typing import Any

from fleetgen.inputs.reading import as_list, as_mapping
from fleetgen.manifests.k8s import CLUSTER_SCOPED, group_of

CLUSTER_SCOPED_KINDS = frozenset(CLUSTER_SCOPED)


def object_name(doc: Any) -> str:
    """``Kind name`` of an object, as far as it says."""
    if not isinstance(doc, dict):
        return ""
    name = as_mapping(doc.get("metadata")).get("name")
    return " ".join(str(part) for part in (doc.get("kind"), name) if part)


def objects_of(doc: Any) -> list[tuple[tuple[str, int] | tuple[()], Any]]:
    """The objects of a document, each with where it is in it: a List's items (both engines
    apply each: kustomize's resource factory, Argo CD's ``EachListItem``), else the document
    itself (none for an empty one)."""
    if doc is None:
        return []
    kind = doc.get("kind") if isinstance(doc, dict) else None
    items = doc.get("items") if isinstance(doc, dict) else None
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        return [(("items", index), item) for index, item in enumerate(items)]
    return [((), doc)]


def is_object(doc: Any) -> bool:
    """Whether a document is a Kubernetes object as kustomize reads one: a mapping with an
    apiVersion, a kind and a metadata.name."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("apiVersion"), str)
        and isinstance(doc.get("kind"), str)
        and isinstance(as_mapping(doc.get("metadata")).get("name"), str)
    )


def namespace_fields(doc: dict[str, Any]) -> list[tuple[tuple[str | int, ...], Any]]:
    """The fields of ``doc`` kustomize's namespace transformer sets that Argo CD's destination
    namespace leaves (kustomize api/filters/namespace and its field specs in
    builtinpluginconsts/namespace.go), each with its value (None: absent): a namespace the
    object states (not on a built-in cluster-scoped kind), an APIService's service namespace
    (added when absent), a CustomResourceDefinition's conversion webhook service namespace, and
    the namespace of RoleBinding and ClusterRoleBinding subjects named ``default`` (added when
    absent). The metadata.name of a Namespace, which it renames too, is in
    ``namespace_objects``."""
    kind, group = doc["kind"], group_of(doc["apiVersion"])
    spec = as_mapping(doc.get("spec"))
    found: list[tuple[tuple[str | int, ...], Any]] = []
    namespace = doc["metadata"].get("namespace")
    if namespace and (group, kind) not in CLUSTER_SCOPED_KINDS:
        found.append((("metadata", "namespace"), namespace))
    if (group, kind) == ("apiregistration.k8s.io", "APIService"):
        service = as_mapping(spec.get("service"))
        found.append((("spec", "service", "namespace"), service.get("namespace")))
    webhook = as_mapping(
        as_mapping(as_mapping(spec.get("conversion")).get("webhook")).get("clientConfig")
    )
    if kind == "CustomResourceDefinition" and "namespace" in as_mapping(webhook.get("service")):
        where = ("spec", "conversion", "webhook", "clientConfig", "service", "namespace")
        found.append((where, webhook["service"]["namespace"]))
    if kind in ("RoleBinding", "ClusterRoleBinding"):
        found += [
            (("subjects", index, "namespace"), as_mapping(subject).get("namespace"))
            for index, subject in enumerate(as_list(doc.get("subjects")))
            if as_mapping(subject).get("name") == "default"
        ]
    return found


def configmap_data(doc: dict[str, Any]) -> dict[str, str]:
    """A ConfigMap's data and binaryData (their keys never overlap), values as text."""
    return {
        str(key): str(value)
        for section in ("data", "binaryData")
        for key, value in as_mapping(doc.get(section)).items()
    }


def pod_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """The pod spec of an object: a Pod's ``spec``, a CronJob's job template's pod template,
    else ``spec.template.spec`` (Deployment, StatefulSet, DaemonSet, Job, ReplicaSet and custom
    kinds shaped as they are); empty where there is none."""
    spec = as_mapping(doc.get("spec"))
    if doc.get("kind") == "Pod":
        return spec
    if doc.get("kind") == "CronJob":
        spec = as_mapping(as_mapping(spec.get("jobTemplate")).get("spec"))
    return as_mapping(as_mapping(spec.get("template")).get("spec"))


def configmaps_read(doc: dict[str, Any]) -> frozenset[str]:
    """The ConfigMaps an object's pod spec (`pod_spec`) reads: envFrom, env valueFrom
    configMapKeyRef, volumes (``configMap`` and projected sources)."""
    pod = pod_spec(doc)
    refs: list[Any] = []
    for container in as_list(pod.get("containers")) + as_list(pod.get("initContainers")):
        container = as_mapping(container)
        refs += [
            as_mapping(source).get("configMapRef") for source in as_list(container.get("envFrom"))
        ]
        refs += [
            as_mapping(as_mapping(env).get("valueFrom")).get("configMapKeyRef")
            for env in as_list(container.get("env"))
        ]
    for volume in map(as_mapping, as_list(pod.get("volumes"))):
        refs.append(volume.get("configMap"))
        refs += [
            as_mapping(source).get("configMap")
            for source in as_list(as_mapping(volume.get("projected")).get("sources"))
        ]
    return frozenset(name for ref in refs if isinstance(name := as_mapping(ref).get("name"), str))


def container_images(node: Any) -> list[str]:
    """The ``image`` of every item of a ``containers`` or ``initContainers`` list anywhere in an
    object: what kustomize's images transformer rewrites (``imagetag.LegacyFilter``)."""
    images: list[str] = []
    if isinstance(node, list):
        for item in node:
            images += container_images(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            images += container_images(value)
            if key in ("containers", "initContainers"):
                images += [
                    image
                    for item in as_list(value)
                    if isinstance(image := as_mapping(item).get("image"), str)
                ]
    return images
