"""The inventory of one app base as kustomize builds it (`kustomize_base`): its kustomizations,
resources, ConfigMaps, workloads, images, namespaces, cluster-scoped kinds, remote entries and
secret material. `Inventory` gathers a plain directory's manifests too
(`fleetgen.inputs.plaindirs`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from fleetgen.inputs.filesecrets import SecretFound, SecretScan
from fleetgen.inputs.objects import (
    CLUSTER_SCOPED_KINDS,
    configmap_data,
    configmaps_read,
    container_images,
    is_object,
    namespace_fields,
    object_name,
    objects_of,
    pod_spec,
)
from fleetgen.inputs.reading import (
    Document,
    Reader,
    as_list,
    as_mapping,
    find_kustomization,
    node_of,
    nodes_of,
)
from fleetgen.manifests.k8s import CRD_SCOPES, crd_scope, group_of
from fleetgen.manifests.yamlio import node_line
from fleetgen.rules import remotebase

# Workloads whose pod template a changed ConfigMap should roll (a Job's template is immutable).
ROLLING_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet"})


@dataclass(frozen=True, slots=True)
class RemoteEntry:
    """A remote base or component a kustomization of the base lists (`remotebase.is_remote`):
    the kustomization file, the 1-based line of the entry, and the entry as written."""

    file: str
    line: int
    url: str


@dataclass(frozen=True, slots=True)
class NamespaceField:
    """A field of a plain directory's object that kustomize's namespace transformer sets (Flux's
    ``targetNamespace``) and Argo CD's destination namespace does not: its file and line, the
    object (``Kind name``), the field, and its value (None: absent, the transformer adds it)."""

    file: str
    line: int
    object: str
    field: str
    value: str | None


@dataclass(frozen=True, slots=True)
class Base:
    """What fleetgen knows about one kustomize base: an app's, or a directory a layer adds to
    its overlays as a resource or a Component (`fleetgen.model.apps.layer_inputs`); or one plain
    directory of manifests an app reads."""

    path: str
    kustomization: str | None = None
    # The kustomization's apiVersion and kind as written ("" when it says none).
    api_version: str = ""
    kind: str = ""
    file: bool = False  # the path is a file (no kustomization: not a base)
    configmaps: frozenset[str] = frozenset()
    resources: frozenset[tuple[str, str]] = frozenset()  # (kind, name)
    complete: bool = True  # False when the base pulls in things fleetgen cannot see
    problems: tuple[str, ...] = ()
    # Images of containers and initContainers; None when not known (a kustomization of the base
    # rewrites them with ``images``).
    images: frozenset[str] | None = None
    # (kind, name) of each ROLLING_KINDS workload -> the ConfigMaps its pod template reads.
    workloads: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    # The data (and binaryData) of the base's plain ConfigMap resources, by name.
    configmap_data: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # The ConfigMaps the pod spec of any of its objects reads (`configmaps_read`), and whether
    # any of its objects has a pod spec (`pod_spec`).
    configmaps_read: frozenset[str] = frozenset()
    pods: bool = False
    # The namespaces its objects are in as kustomize builds the base: each object's
    # metadata.namespace, unless a kustomization above it rewrites it (the outermost rewrite
    # wins: it sets every namespace below it).
    namespaces: frozenset[str] = frozenset()
    # The names of the Namespace objects it ships as kustomize builds it (a rewrite renames them).
    namespace_objects: frozenset[str] = frozenset()
    # (group, kind) of the cluster-scoped objects it ships: built-in kinds (`k8s.CLUSTER_SCOPED`),
    # well-known custom kinds (`k8s.CRD_SCOPES`: GatewayClass, not Gateway) and kinds whose CRD
    # the base ships itself. A custom kind of unknown scope is not listed.
    cluster_kinds: frozenset[tuple[str, str]] = frozenset()
    # Secret material in the files its kustomizations read (`SecretScan.scan_documents`,
    # `SecretScan.scan_kustomization`).
    secrets: tuple[SecretFound, ...] = ()
    # The remote entries its kustomizations list, which kustomize fetches at build time and
    # fleetgen never reads (so the base is not ``complete``).
    remotes: tuple[RemoteEntry, ...] = ()
    # A plain directory (no kustomization, files in it): the engines read its manifests as they
    # are (`fleetgen.inputs.plaindirs`), and `digest` covers every file under it (paths and
    # bytes).
    plain: bool = False
    digest: str = ""
    namespace_fields: tuple[NamespaceField, ...] = ()  # of a plain directory's objects


def kustomize_base(read: Reader, path: str, found: tuple[str, bytes]) -> Base:
    """The base at ``path`` whose kustomization is ``found`` (its file name and bytes), as
    kustomize builds it."""
    inventory = Inventory()
    inventory.add_kustomization(read, path, found, depth=0)
    return inventory.base(
        path,
        kustomization=found[0],
        api_version=inventory.api_version,
        kind=inventory.kind,
        remotes=tuple(sorted(inventory.remotes, key=lambda r: (r.file, r.line))),
    )


@dataclass
class Inventory(SecretScan):
    """What a base's kustomizations and manifests hold, gathered as they are read."""

    configmaps: set[str] = field(default_factory=set)
    resources: set[tuple[str, str]] = field(default_factory=set)
    complete: bool = True
    images: set[str] = field(default_factory=set)
    images_known: bool = True
    workloads: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    configmap_data: dict[str, dict[str, str]] = field(default_factory=dict)
    configmaps_read: set[str] = field(default_factory=set)
    pods: bool = False
    namespaces: set[str] = field(default_factory=set)
    namespace_objects: set[str] = field(default_factory=set)
    kinds: set[tuple[str, str]] = field(default_factory=set)  # (group, kind) of each object
    crd_scopes: dict[tuple[str, str], bool] = field(default_factory=dict)  # of the CRDs shipped
    namespaced: bool = False  # whether an object read so far is one kustomize namespaces
    remotes: list[RemoteEntry] = field(default_factory=list)
    api_version: str = ""  # of the outermost kustomization
    kind: str = ""
    namespace_fields: list[NamespaceField] = field(default_factory=list)

    def base(self, path: str, **extra: Any) -> Base:
        """The Base at ``path`` this inventory found (``extra``: its other fields)."""
        return Base(
            path=path,
            configmaps=frozenset(self.configmaps),
            resources=frozenset(self.resources),
            complete=self.complete,
            problems=tuple(self.problems),
            images=frozenset(self.images) if self.images_known else None,
            workloads=self.workloads,
            configmap_data=self.configmap_data,
            configmaps_read=frozenset(self.configmaps_read),
            pods=self.pods,
            namespaces=frozenset(self.namespaces),
            namespace_objects=frozenset(self.namespace_objects),
            cluster_kinds=self.cluster_scoped(),
            secrets=tuple(sorted(self.secrets, key=lambda f: (f.file, f.line, f.field, f.rule))),
            namespace_fields=tuple(self.namespace_fields),
            **extra,
        )

    def cluster_scoped(self) -> frozenset[tuple[str, str]]:
        """The kinds of the objects read that are cluster-scoped: built-in, well-known or by a
        CRD the base ships (which wins)."""
        scopes = {**dict.fromkeys(CLUSTER_SCOPED_KINDS, True), **CRD_SCOPES, **self.crd_scopes}
        return frozenset(kind for kind in self.kinds if scopes.get(kind))

    def add_kustomization(
        self, read: Reader, directory: str, found: tuple[str, bytes], depth: int
    ) -> None:
        path = posixpath.join(directory, found[0])
        documents = self.documents(path, found[1])
        index = next((i for i, doc in enumerate(documents) if doc is not None), 0)
        doc = documents[index] if documents else None
        if not isinstance(doc, dict):
            return
        if depth == 0:
            self.api_version, self.kind = (
                value if isinstance(value := doc.get(key), str) else ""
                for key in ("apiVersion", "kind")
            )
        self.scan_kustomization(read, directory, (path, found[1], index), doc)
        self._find_remotes((path, found[1], index), doc)
        if depth > 8 or any(
            doc.get(key) for key in ("namePrefix", "nameSuffix", "helmCharts", "components")
        ):
            self.complete = False
        if doc.get("images"):
            self.images_known = False
        for generator in doc.get("configMapGenerator") or []:
            if isinstance(generator, dict) and isinstance(generator.get("name"), str):
                self.configmaps.add(generator["name"])
        rewrite = doc.get("namespace") if isinstance(doc.get("namespace"), str) else ""
        outer = self.namespaces, self.namespace_objects, self.namespaced
        if rewrite:  # what the resources below say, this rewrite overrides
            self.namespaces, self.namespace_objects, self.namespaced = set(), set(), False
        self.namespaced |= bool(doc.get("configMapGenerator") or doc.get("secretGenerator"))
        for key in ("resources", "components"):  # kustomize accumulates both from disk
            for entry in as_list(doc.get(key)):
                if isinstance(entry, str) and not remotebase.is_remote(entry):
                    target = posixpath.normpath(posixpath.join(directory, entry))
                    self._add_resource(read, target, depth, key)
        if rewrite:  # kustomize's namespace transformer: the outermost rewrite wins
            self.namespaces = outer[0] | ({rewrite} if self.namespaced else set())
            self.namespace_objects = outer[1] | ({rewrite} if self.namespace_objects else set())
            self.namespaced |= outer[2]

    def _find_remotes(self, file: Document, doc: dict[str, Any]) -> None:
        """The remote entries of a kustomization's ``resources`` and ``components``, at their
        lines (``file``: its path, bytes and the index of its document)."""
        found = [
            (key, index, entry)
            for key in ("resources", "components")
            for index, entry in enumerate(as_list(doc.get(key)))
            if isinstance(entry, str) and remotebase.is_remote(entry)
        ]
        node = node_of(file[1], file[2]) if found else None
        for key, index, entry in found:
            self.remotes.append(RemoteEntry(file[0], node_line(node, (key, index)) or 1, entry))
        self.complete &= not found

    def _add_resource(self, read: Reader, path: str, depth: int, key: str) -> None:
        """A ``resources`` or ``components`` entry (``key``): a file, or a directory whose
        kustomization (a Component's too) is read in turn."""
        if path.startswith(".."):
            self.complete = False
            return
        data = read(path)
        if data is not None:
            self._add_file(path, data)
            return
        nested = find_kustomization(read, path)
        if nested is None:
            self.problems.append(f"{key[:-1]} {path!r} listed in a kustomization does not exist")
        else:
            self.add_kustomization(read, path, nested, depth + 1)

    def _add_file(self, path: str, data: bytes) -> list[Any]:
        """The objects of a manifest file, and what the secret rules find in them; its
        documents (`SecretScan.documents`)."""
        documents = self.documents(path, data)
        for doc in documents:
            if doc is not None:
                self._add_object(doc)
        self.scan_documents(path, data, documents)
        return documents

    def add_manifests(
        self, path: str, data: bytes, seen: dict[tuple[str, str, str, str], str]
    ) -> None:
        """A file of a plain directory: `_add_file`, each document a Kubernetes object (else
        kustomize-controller's generated kustomization fails, while Argo CD skips the file), no
        object twice (``seen``: each object's (group, kind, namespace, name) -> its file), and
        the fields a namespace rewrite would set (`_namespace_fields`)."""
        documents = self._add_file(path, data)
        nodes: list[yaml.Node | None] = []  # parsed once a field needs its line
        for index, doc in enumerate(documents):
            for where, item in objects_of(doc):
                place = f"document {index + 1}" + (f" item {where[1] + 1}" if where else "")
                if where:  # an item of a List, which both engines apply as an object of its own
                    self._add_object(item)
                if not is_object(item):
                    self.problems.append(
                        f"{path}: {place} is not a Kubernetes object (apiVersion, kind and "
                        "metadata.name): kustomize-controller's generated kustomization fails "
                        "on it while Argo CD skips the file; move it out"
                    )
                    continue
                metadata = item["metadata"]
                namespace = str(metadata.get("namespace") or "")
                key = (group_of(item["apiVersion"]), item["kind"], namespace, metadata["name"])
                if key in seen:
                    self.problems.append(
                        f"{path}: {object_name(item)} is also in {seen[key]}: "
                        "kustomize-controller refuses the duplicate, Argo CD applies one of "
                        "them; keep one"
                    )
                seen.setdefault(key, path)
                for field_path, value in namespace_fields(item):
                    nodes = nodes or nodes_of(data, len(documents))
                    line = node_line(nodes[index], (*where, *field_path)) or 1
                    self.namespace_fields.append(
                        NamespaceField(
                            path,
                            line,
                            object_name(item),
                            "/".join(map(str, field_path)),
                            None if value is None else str(value),
                        )
                    )

    def _add_object(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            return
        kind, name = doc.get("kind"), (doc.get("metadata") or {}).get("name")
        namespace = as_mapping(doc.get("metadata")).get("namespace")
        if isinstance(namespace, str) and namespace:
            self.namespaces.add(namespace)
        group = group_of(doc.get("apiVersion"))
        if isinstance(kind, str):
            self.kinds.add((group, kind))
        # kustomize's namespace rewrite knows only the built-in cluster-scoped kinds: it sets the
        # namespace of every other object, custom cluster-scoped ones included.
        if (group, kind) not in CLUSTER_SCOPED_KINDS:
            self.namespaced = True
        if (scope := crd_scope(doc)) is not None:
            self.crd_scopes[scope[0]] = scope[1]
        if isinstance(kind, str) and isinstance(name, str):
            self.resources.add((kind, name))
            if kind == "Namespace":
                self.namespace_objects.add(name)
            if kind == "ConfigMap":
                self.configmaps.add(name)
                self.configmap_data[name] = configmap_data(doc)
            if kind in ROLLING_KINDS:
                self.workloads[(kind, name)] = configmaps_read(doc)
        self.configmaps_read |= configmaps_read(doc)
        self.pods |= bool(pod_spec(doc))
        if kind != "CustomResourceDefinition":
            self.images.update(container_images(doc))
