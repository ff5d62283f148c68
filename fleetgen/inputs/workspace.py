"""The inventory of what the spec refers to on disk: app bases (kustomize bases, or plain
directories of manifests) and what they contain, charts kept in the repository, and the CA
certificate files of clusters (`Certificate`).

``load`` takes it once so that ``resolve`` stays pure. Reading goes through a ``Reader`` so the
same scan works on the working tree and (for ``diff``) on a Git tree.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fleetgen.manifests.k8s import CLUSTER_SCOPED, CRD_SCOPES, crd_scope, group_of
from fleetgen.manifests.yamlio import document_nodes, load_all, node_line
from fleetgen.model.fields import ca_bundle, values_problem
from fleetgen.rules import remotebase, secrets as scanrules

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
# A plain directory's files as each engine reads them: Argo CD's directory source, every file
# these end in (reposerver ``findManifests``, its ``manifestFile`` pattern); kustomize-
# controller's generated kustomization, every .yaml and .yml file (fluxcd/pkg kustomize
# ``scanManifests``), both recursing into every folder.
ARGO_SUFFIXES = (".yaml", ".yml", ".json", ".jsonnet")
FLUX_SUFFIXES = (".yaml", ".yml")
# Files source-controller leaves out of every artifact without a leading dot (fluxcd/pkg
# sourceignore ``ExcludeCI``; the others it excludes are hidden, which a plain directory refuses).
SOURCE_EXCLUDED = frozenset(
    {"cloudbuild.yaml", "appveyor.yml", "codeship-services.yml", "codeship-steps.yml"}
)
SKIP_MARKER = b"+argocd:skip-file-rendering"  # Argo CD skips the file (``skipFileRenderingMarker``)
# Workloads whose pod template a changed ConfigMap should roll (a Job's template is immutable).
ROLLING_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet"})
_CLUSTER_SCOPED = frozenset(CLUSTER_SCOPED)

# (path relative to the repo root) -> bytes, or None when there is no such file.
Reader = Callable[[str], bytes | None]
# (directory relative to the repo root) -> the repo-relative paths of every file under it.
Lister = Callable[[str], Iterable[str]]


@dataclass(frozen=True, slots=True)
class SecretFound:
    """Secret material in a file of a base (`fleetgen.rules.secrets`): the file and 1-based line,
    the rule, the object (``Secret db``, ``secretGenerator db``; empty when unknown) and the
    field in it (``data/password``), and the secret's length: never any of its text."""

    file: str
    line: int
    rule: str
    description: str
    object: str
    field: str
    length: int


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
    # Secret material in the files its kustomizations read (`_Inventory._scan_documents`,
    # `_Inventory._scan_kustomization`).
    secrets: tuple[SecretFound, ...] = ()
    # The remote entries its kustomizations list, which kustomize fetches at build time and
    # fleetgen never reads (so the base is not ``complete``).
    remotes: tuple[RemoteEntry, ...] = ()
    # A plain directory (no kustomization, files in it): the engines read its manifests as they
    # are (`_scan_directory`), and `digest` covers every file under it (paths and bytes).
    plain: bool = False
    digest: str = ""
    namespace_fields: tuple[NamespaceField, ...] = ()  # of a plain directory's objects


@dataclass(frozen=True, slots=True)
class ChartDir:
    """A Helm chart kept in the repository: what its Chart.yaml says (None: no Chart.yaml)."""

    path: str
    name: str | None = None
    version: str | None = None
    problems: tuple[str, ...] = ()
    digest: str = ""  # of every file under the chart's folder (paths and bytes)


@dataclass(frozen=True, slots=True)
class Certificate:
    """A cluster's CA certificate file (``CaFile``): its content as ``Cluster.ca_data`` holds it,
    or why it cannot be used."""

    path: str
    ca_data: str | None = None  # base64 of the PEM CERTIFICATE blocks
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class ValuesFile:
    """A Helm values file kept in the repository (``values_files=``): its values, or why it is
    none (missing, not YAML, not one mapping of Helm values), and the secret material in it."""

    path: str
    values: Mapping[str, Any] | None = None
    problem: str | None = None
    secrets: tuple[SecretFound, ...] = ()


@dataclass(frozen=True, slots=True)
class Workspace:
    """Bases, charts, CA certificate files and Helm values files by repo-relative path."""

    bases: Mapping[str, Base] = field(default_factory=dict)
    charts: Mapping[str, ChartDir] = field(default_factory=dict)
    certificates: Mapping[str, Certificate] = field(default_factory=dict)
    values_files: Mapping[str, ValuesFile] = field(default_factory=dict)


def filesystem_reader(root: Path) -> Reader:
    """A Reader over a directory on disk."""

    def read(path: str) -> bytes | None:
        target = root / path
        return target.read_bytes() if target.is_file() else None

    return read


def filesystem_lister(root: Path) -> Lister:
    """A Lister over a directory on disk."""

    def files(directory: str) -> list[str]:
        return sorted(
            path.relative_to(root).as_posix()
            for path in (root / directory).rglob("*")
            if path.is_file()
        )

    return files


def scan(
    read: Reader,
    paths: Iterable[str],
    charts: Iterable[str] = (),
    files: Lister | None = None,
    certificates: Iterable[str] = (),
    values_files: Iterable[str] = (),
) -> Workspace:
    """Inventory every base in ``paths``, chart in ``charts``, CA certificate file in
    ``certificates`` and Helm values file in ``values_files`` (repo-relative, normalized);
    ``files`` lists a chart's files for its digest (required when there are charts) and a plain
    directory's (without it, a path without a kustomization is no base)."""
    found = sorted(set(charts))
    if found and files is None:
        raise ValueError("scanning charts needs a Lister")
    return Workspace(
        {path: _scan_base(read, path, files) for path in sorted(set(paths))},
        {path: _scan_chart(read, files, path) for path in found if files is not None},
        {path: _read_certificate(read, path) for path in sorted(set(certificates))},
        {path: _read_values_file(read, path) for path in sorted(set(values_files))},
    )


def _read_values_file(read: Reader, path: str) -> ValuesFile:
    """A values file as Helm reads one ``-f`` file: one YAML document, a mapping (an empty file
    is no values); its secret material by the rules of base files (`scanrules.in_object`)."""
    data = read(path)
    if data is None:
        return ValuesFile(path, problem="no such file")
    try:
        documents = load_all(data)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        return ValuesFile(path, problem=f"is not valid YAML: {problem}{where}")
    docs = [doc for doc in documents if doc is not None]
    if len(docs) > 1:
        return ValuesFile(path, problem=f"holds {len(docs)} YAML documents; Helm reads one")
    values = docs[0] if docs else {}
    problem = (
        values_problem(values, "values")
        if isinstance(values, dict)
        else f"is a YAML {type(values).__name__}, not a mapping of Helm values"
    )
    if problem is not None:
        return ValuesFile(path, problem=problem)
    inventory = _Inventory()
    inventory._scan_documents(path, data, documents)
    return ValuesFile(path, values, secrets=tuple(inventory.secrets))


def _read_certificate(read: Reader, path: str) -> Certificate:
    data = read(path)
    if data is None:
        return Certificate(path, problem="no such file")
    try:
        return Certificate(path, ca_bundle(data.decode("ascii")))
    except UnicodeDecodeError:
        return Certificate(path, problem="not a text file (PEM or base64)")
    except ValueError as error:
        return Certificate(path, problem=str(error))


def _digest(read: Reader, files: Iterable[str], path: str) -> str:
    """The digest of ``files``, those under the folder ``path``: their paths and bytes."""
    total = hashlib.sha256()
    for name in sorted(files):
        data = read(name) or b""
        total.update(f"{posixpath.relpath(name, path)}\0{len(data)}\0".encode())
        total.update(data)
    return total.hexdigest()


def _scan_chart(read: Reader, files: Lister, path: str) -> ChartDir:
    digest = _digest(read, files(path), path)
    data = read(posixpath.join(path, "Chart.yaml"))
    if data is None:
        return ChartDir(path, digest=digest)
    try:
        doc = yaml.load(data, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as error:
        return ChartDir(
            path,
            problems=(f"Chart.yaml is not valid YAML: {error}".replace("\n", " "),),
            digest=digest,
        )
    if not isinstance(doc, dict) or not all(
        isinstance(doc.get(k), str) and doc[k] for k in ("name", "version")
    ):
        return ChartDir(
            path, problems=("Chart.yaml needs a name and a version (strings)",), digest=digest
        )
    return ChartDir(path, doc["name"], doc["version"], digest=digest)


@dataclass(frozen=True, slots=True)
class Deps:
    """What an app's base reads: whole directories (one per kustomization) and single files."""

    dirs: frozenset[str]
    files: frozenset[str]


def base_deps(read: Reader, base: str) -> Deps:
    """The inputs of the base at ``base``, found by recording what the workspace scan reads."""
    reads: list[tuple[str, bool]] = []

    def recording(path: str) -> bytes | None:
        data = read(path)
        reads.append((path, data is not None))
        return data

    scan(recording, [base])
    dirs = {base} | {
        posixpath.dirname(path)
        for path, found in reads
        if found and posixpath.basename(path) in KUSTOMIZATION_FILES
    }
    files = {path for path, _ in reads if not any(_under(path, d) for d in dirs)}
    return Deps(frozenset(dirs), frozenset(files))


def _under(path: str, directory: str) -> bool:
    return directory in (".", "") or path.startswith(directory.rstrip("/") + "/")


def _find_kustomization(read: Reader, directory: str) -> tuple[str, bytes] | None:
    for name in KUSTOMIZATION_FILES:
        data = read(posixpath.join(directory, name))
        if data is not None:
            return name, data
    return None


def _scan_base(read: Reader, path: str, files: Lister | None) -> Base:
    found = _find_kustomization(read, path)
    if found is None:
        listed = sorted(files(path)) if files is not None else []
        if listed and read(path) is None:  # a directory of files: a plain directory
            return _scan_directory(read, path, listed)
        return Base(path=path, file=read(path) is not None)
    inventory = _Inventory()
    inventory.add_kustomization(read, path, found, depth=0)
    return inventory.base(
        path,
        kustomization=found[0],
        api_version=inventory.api_version,
        kind=inventory.kind,
        remotes=tuple(sorted(inventory.remotes, key=lambda r: (r.file, r.line))),
    )


def _scan_directory(read: Reader, path: str, files: Sequence[str]) -> Base:
    """A plain directory: the manifests both engines read from it as they are (`ARGO_SUFFIXES`,
    `FLUX_SUFFIXES`, in every folder below it), and what makes the two read different things
    (problems: a file only one of them reads, a folder kustomize-controller builds as a
    kustomization, a file that is no Kubernetes object, one object twice)."""
    inventory = _Inventory()
    kustomized = sorted(
        posixpath.dirname(name) for name in files if posixpath.basename(name) in KUSTOMIZATION_FILES
    )
    inventory.problems += [
        f"{folder}/ holds a kustomization, which kustomize-controller builds as one while "
        "Argo CD's directory source reads its files as manifests: make the directory a base "
        "(a kustomization.yaml listing it) or move the folder out"
        for folder in kustomized
    ]
    seen: dict[tuple[str, str, str, str], str] = {}
    for name in files:
        if any(name == folder or name.startswith(folder + "/") for folder in kustomized):
            continue
        data = read(name)
        problem = _read_differently(posixpath.relpath(name, path), data)
        if problem is not None:
            inventory.problems.append(f"{name}: {problem}")
        elif data is not None and name.endswith(FLUX_SUFFIXES):
            inventory.add_manifests(name, data, seen)
    return inventory.base(path, plain=True, digest=_digest(read, files, path))


def _read_differently(name: str, data: bytes | None) -> str | None:
    """Why the engines would read the file ``name`` (relative to its plain directory) apart,
    None when they read it alike (both, or neither)."""
    if not name.endswith(ARGO_SUFFIXES):
        return None
    if any(part.startswith(".") for part in name.split("/")):
        return (
            "a hidden file, which Argo CD reads while source-controller leaves some out of "
            "Flux's artifact (.sops.yaml, .github/ ...): rename it or move it out"
        )
    if posixpath.basename(name) in SOURCE_EXCLUDED:
        return (
            "source-controller leaves this file out of Flux's artifact, Argo CD reads it: "
            "rename it or move it out"
        )
    if not name.endswith(FLUX_SUFFIXES):
        return (
            "Argo CD's directory source reads it, kustomize-controller's generated "
            "kustomization does not (.yaml and .yml files only): write it as YAML or move it out"
        )
    if data is not None and SKIP_MARKER in data:
        return (
            f"Argo CD skips it ({SKIP_MARKER.decode()}), kustomize-controller applies it: "
            "remove the marker or move it out"
        )
    return None


@dataclass
class _Inventory:
    configmaps: set[str] = field(default_factory=set)
    resources: set[tuple[str, str]] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    complete: bool = True
    images: set[str] = field(default_factory=set)
    images_known: bool = True
    workloads: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    configmap_data: dict[str, dict[str, str]] = field(default_factory=dict)
    namespaces: set[str] = field(default_factory=set)
    namespace_objects: set[str] = field(default_factory=set)
    kinds: set[tuple[str, str]] = field(default_factory=set)  # (group, kind) of each object
    crd_scopes: dict[tuple[str, str], bool] = field(default_factory=dict)  # of the CRDs shipped
    namespaced: bool = False  # whether an object read so far is one kustomize namespaces
    secrets: list[SecretFound] = field(default_factory=list)
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
        scopes = {**dict.fromkeys(_CLUSTER_SCOPED, True), **CRD_SCOPES, **self.crd_scopes}
        return frozenset(kind for kind in self.kinds if scopes.get(kind))

    def add_kustomization(
        self, read: Reader, directory: str, found: tuple[str, bytes], depth: int
    ) -> None:
        path = posixpath.join(directory, found[0])
        documents = self._documents(path, found[1])
        index = next((i for i, doc in enumerate(documents) if doc is not None), 0)
        doc = documents[index] if documents else None
        if not isinstance(doc, dict):
            return
        if depth == 0:
            self.api_version, self.kind = (
                value if isinstance(value := doc.get(key), str) else ""
                for key in ("apiVersion", "kind")
            )
        self._scan_kustomization(read, directory, (path, found[1], index), doc)
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
        for entry in doc.get("resources") or []:
            if isinstance(entry, str) and not remotebase.is_remote(entry):
                self._add_resource(
                    read, posixpath.normpath(posixpath.join(directory, entry)), depth
                )
        if rewrite:  # kustomize's namespace transformer: the outermost rewrite wins
            self.namespaces = outer[0] | ({rewrite} if self.namespaced else set())
            self.namespace_objects = outer[1] | ({rewrite} if self.namespace_objects else set())
            self.namespaced |= outer[2]

    def _find_remotes(self, file: _Document, doc: dict[str, Any]) -> None:
        """The remote entries of a kustomization's ``resources`` and ``components``, at their
        lines (``file``: its path, bytes and the index of its document)."""
        found = [
            (key, index, entry)
            for key in ("resources", "components")
            for index, entry in enumerate(_list(doc.get(key)))
            if isinstance(entry, str) and remotebase.is_remote(entry)
        ]
        node = _node(file[1], file[2]) if found else None
        for key, index, entry in found:
            self.remotes.append(RemoteEntry(file[0], node_line(node, (key, index)) or 1, entry))
        self.complete &= not found

    def _add_resource(self, read: Reader, path: str, depth: int) -> None:
        if path.startswith(".."):
            self.complete = False
            return
        data = read(path)
        if data is not None:
            self._add_file(path, data)
            return
        nested = _find_kustomization(read, path)
        if nested is None:
            self.problems.append(f"resource {path!r} listed in a kustomization does not exist")
        else:
            self.add_kustomization(read, path, nested, depth + 1)

    def _add_file(self, path: str, data: bytes) -> list[Any]:
        """The objects of a manifest file, and what the secret rules find in them; its
        documents (`_documents`)."""
        documents = self._documents(path, data)
        for doc in documents:
            if doc is not None:
                self._add_object(doc)
        self._scan_documents(path, data, documents)
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
            for where, item in _listed(doc):
                place = f"document {index + 1}" + (f" item {where[1] + 1}" if where else "")
                if where:  # an item of a List, which both engines apply as an object of its own
                    self._add_object(item)
                if not _is_object(item):
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
                        f"{path}: {_object_name(item)} is also in {seen[key]}: "
                        "kustomize-controller refuses the duplicate, Argo CD applies one of "
                        "them; keep one"
                    )
                seen.setdefault(key, path)
                for field_path, value in _namespace_fields(item):
                    nodes = nodes or _nodes(data, len(documents))
                    line = node_line(nodes[index], (*where, *field_path)) or 1
                    self.namespace_fields.append(
                        NamespaceField(
                            path,
                            line,
                            _object_name(item),
                            "/".join(map(str, field_path)),
                            None if value is None else str(value),
                        )
                    )

    def _add_object(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            return
        kind, name = doc.get("kind"), (doc.get("metadata") or {}).get("name")
        namespace = _mapping(doc.get("metadata")).get("namespace")
        if isinstance(namespace, str) and namespace:
            self.namespaces.add(namespace)
        group = group_of(doc.get("apiVersion"))
        if isinstance(kind, str):
            self.kinds.add((group, kind))
        # kustomize's namespace rewrite knows only the built-in cluster-scoped kinds: it sets the
        # namespace of every other object, custom cluster-scoped ones included.
        if (group, kind) not in _CLUSTER_SCOPED:
            self.namespaced = True
        if (scope := crd_scope(doc)) is not None:
            self.crd_scopes[scope[0]] = scope[1]
        if isinstance(kind, str) and isinstance(name, str):
            self.resources.add((kind, name))
            if kind == "Namespace":
                self.namespace_objects.add(name)
            if kind == "ConfigMap":
                self.configmaps.add(name)
                self.configmap_data[name] = _configmap_data(doc)
            if kind in ROLLING_KINDS:
                self.workloads[(kind, name)] = _configmaps_read(doc)
        if kind != "CustomResourceDefinition":
            self.images.update(_container_images(doc))

    def _documents(self, path: str, data: bytes) -> list[Any]:
        """Every document of the file, empty ones as None (their indexes are the nodes')."""
        try:
            return load_all(data)
        except yaml.YAMLError as error:
            self.problems.append(f"{path} is not valid YAML: {error}".replace("\n", " "))
            return []

    # -- secret material --------------------------------------------------------------------------

    def _scan_documents(self, path: str, data: bytes, documents: list[Any]) -> None:
        """What the secret rules find in each object of the file at ``path``."""
        for index, doc in enumerate(documents):
            found = scanrules.in_object(doc)
            if found:
                self._report(path, data, index, found, _object_name(doc))

    def _report(
        self,
        path: str,
        data: bytes,
        index: int,
        found: list[scanrules.Found],
        name: str,
        prefix: scanrules.Path = (),
    ) -> None:
        """Record ``found`` (paths inside document ``index`` of ``data``, under ``prefix``) at
        the lines they are on."""
        node = _node(data, index) if found else None
        for item in found:
            where = (*prefix, *item.path)
            self._secret(path, node_line(node, where) or 1, item.finding, name, where)

    def _secret(
        self, path: str, line: int, finding: scanrules.Finding, name: str, where: scanrules.Path
    ) -> None:
        rule = finding.rule
        field = scanrules.field_path(where)
        self.secrets.append(
            SecretFound(path, line, rule.id, rule.description, name, field, len(finding.secret))
        )

    def _scan_kustomization(
        self, read: Reader, directory: str, file: _Document, doc: dict[str, Any]
    ) -> None:
        """The secret rules over a kustomization (``file``: its path, bytes and the index of its
        document): its own fields, the values its generators make (``literals``, ``envs`` and
        ``files``; a secretGenerator's as a Secret's data) and its patches (files and inline)."""
        plain = {key: value for key, value in doc.items() if key not in _READ_SEPARATELY}
        self._report(*file, scanrules.in_object(plain), "")
        for kind in ("secretGenerator", "configMapGenerator"):
            for index, generator in enumerate(_list(doc.get(kind))):
                if isinstance(generator, dict):
                    self._scan_generator(read, directory, file, (kind, index), generator)
        for key in ("patches", "patchesStrategicMerge", "patchesJson6902"):
            for index, entry in enumerate(_list(doc.get(key))):
                patch = entry.get("patch") if isinstance(entry, dict) else entry
                path = entry.get("path") if isinstance(entry, dict) else None
                if isinstance(patch, str) and "\n" not in patch.strip():  # a file's path
                    patch, path = None, patch
                if isinstance(patch, str):
                    where: scanrules.Path = (key, index, "patch") if path is None else (key, index)
                    self._scan_inline(file, where, patch)
                elif isinstance(path, str):
                    self._scan_file(read, directory, path)

    def _scan_inline(self, file: _Document, where: scanrules.Path, text: str) -> None:
        """An inline patch: its objects, at the line of the text in the kustomization."""
        try:
            documents = load_all(text)
        except yaml.YAMLError:
            documents = [text]  # tested as the text it is
        for doc in documents:
            self._report(*file, scanrules.in_object(doc), _object_name(doc), where)

    def _scan_file(self, read: Reader, directory: str, name: str) -> None:
        """A patch file the kustomization in ``directory`` reads."""
        path = posixpath.normpath(posixpath.join(directory, name))
        data = None if path.startswith("..") or "://" in name else read(path)
        if data is not None:
            self._scan_documents(path, data, self._documents(path, data))

    def _scan_generator(
        self,
        read: Reader,
        directory: str,
        file: _Document,
        where: scanrules.Path,
        generator: dict[str, Any],
    ) -> None:
        """A generator's values: what they hold under their keys; every value a
        secretGenerator gives, as a Secret's data (`scanrules.PLAIN_SECRET` when no format
        matches)."""
        secret = where[0] == "secretGenerator"
        name = f"{where[0]} {generator.get('name', '')}".rstrip()
        for index, literal in enumerate(_list(generator.get("literals"))):
            key, _, value = str(literal).partition("=")
            finding = _generated(key, value, secret)
            if finding is not None:
                line = node_line(_node(file[1], file[2]), (*where, "literals", index)) or 1
                self._secret(file[0], line, finding, name, (key,))
        envs = [*_list(generator.get("envs")), generator.get("env")]
        for env_file in (entry for entry in envs if isinstance(entry, str)):
            env = self._read_value_file(read, directory, env_file)
            if env is None:
                continue
            for number, text in enumerate(env[1].splitlines(), 1):
                key, separator, value = text.strip().partition("=")
                finding = _generated(key.strip(), value.strip(), secret) if separator else None
                if finding is not None and not key.startswith("#"):
                    self._secret(env[0], number, finding, name, (key.strip(),))
        for entry in (entry for entry in _list(generator.get("files")) if isinstance(entry, str)):
            key, _, source = entry.rpartition("=")
            content = self._read_value_file(read, directory, source)
            key = key or posixpath.basename(source)
            finding = _generated(key, content[1], secret) if content else None
            if content is not None and finding is not None:
                self._secret(content[0], 1, finding, name, (key,))

    def _read_value_file(self, read: Reader, directory: str, name: str) -> tuple[str, str] | None:
        """(repo-relative path, text) of a file a generator reads, None when it cannot be read
        (kustomize then fails the build)."""
        path = posixpath.normpath(posixpath.join(directory, name))
        data = None if path.startswith("..") or "://" in name else read(path)
        return None if data is None else (path, data.decode("utf-8", errors="replace"))


_Document = tuple[str, bytes, int]  # a file's path and bytes, and the index of a document in it
# Kustomization fields whose values `_Inventory._scan_kustomization` reads itself.
_READ_SEPARATELY = frozenset(
    {"secretGenerator", "configMapGenerator", "patches", "patchesStrategicMerge", "patchesJson6902"}
)


def _generated(key: str, value: str, secret: bool) -> scanrules.Finding | None:
    """What the secret rules find in a generator's ``value`` under ``key``; for a
    secretGenerator, any value that holds something (`scanrules.PLAIN_SECRET` if no format)."""
    if secret:
        return scanrules.in_secret(key, value) if scanrules.holds_material(value) else None
    return scanrules.find(key, value)


def _node(data: bytes, index: int) -> yaml.Node | None:
    """The node of document ``index`` of ``data`` (None if it cannot be read)."""
    try:
        nodes = document_nodes(data)
    except yaml.YAMLError:
        return None
    return nodes[index] if index < len(nodes) else None


def _nodes(data: bytes, count: int) -> list[yaml.Node | None]:
    """The node of each of the ``count`` documents of ``data`` (Nones if it cannot be read)."""
    try:
        return list(document_nodes(data))
    except yaml.YAMLError:
        return [None] * count


def _listed(doc: Any) -> list[tuple[tuple[str, int] | tuple[()], Any]]:
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


def _is_object(doc: Any) -> bool:
    """Whether a document is a Kubernetes object as kustomize reads one: a mapping with an
    apiVersion, a kind and a metadata.name."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("apiVersion"), str)
        and isinstance(doc.get("kind"), str)
        and isinstance(_mapping(doc.get("metadata")).get("name"), str)
    )


def _namespace_fields(doc: dict[str, Any]) -> list[tuple[tuple[str | int, ...], Any]]:
    """The fields of ``doc`` kustomize's namespace transformer sets that Argo CD's destination
    namespace leaves (kustomize api/filters/namespace and its field specs in
    builtinpluginconsts/namespace.go), each with its value (None: absent): a namespace the
    object states (not on a built-in cluster-scoped kind), an APIService's service namespace
    (added when absent), a CustomResourceDefinition's conversion webhook service namespace, and
    the namespace of RoleBinding and ClusterRoleBinding subjects named ``default`` (added when
    absent). The metadata.name of a Namespace, which it renames too, is in
    ``namespace_objects``."""
    kind, group = doc["kind"], group_of(doc["apiVersion"])
    spec = _mapping(doc.get("spec"))
    found: list[tuple[tuple[str | int, ...], Any]] = []
    namespace = doc["metadata"].get("namespace")
    if namespace and (group, kind) not in _CLUSTER_SCOPED:
        found.append((("metadata", "namespace"), namespace))
    if (group, kind) == ("apiregistration.k8s.io", "APIService"):
        service = _mapping(spec.get("service"))
        found.append((("spec", "service", "namespace"), service.get("namespace")))
    webhook = _mapping(
        _mapping(_mapping(spec.get("conversion")).get("webhook")).get("clientConfig")
    )
    if kind == "CustomResourceDefinition" and "namespace" in _mapping(webhook.get("service")):
        where = ("spec", "conversion", "webhook", "clientConfig", "service", "namespace")
        found.append((where, webhook["service"]["namespace"]))
    if kind in ("RoleBinding", "ClusterRoleBinding"):
        found += [
            (("subjects", index, "namespace"), _mapping(subject).get("namespace"))
            for index, subject in enumerate(_list(doc.get("subjects")))
            if _mapping(subject).get("name") == "default"
        ]
    return found


def _object_name(doc: Any) -> str:
    """``Kind name`` of an object, as far as it says."""
    if not isinstance(doc, dict):
        return ""
    name = _mapping(doc.get("metadata")).get("name")
    return " ".join(str(part) for part in (doc.get("kind"), name) if part)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _configmap_data(doc: dict[str, Any]) -> dict[str, str]:
    """A ConfigMap's data and binaryData (their keys never overlap), values as text."""
    return {
        str(key): str(value)
        for section in ("data", "binaryData")
        for key, value in _mapping(doc.get(section)).items()
    }


def _configmaps_read(doc: dict[str, Any]) -> frozenset[str]:
    """The ConfigMaps a workload's pod template reads: envFrom, env valueFrom, volumes
    (``configMap`` and projected sources)."""
    pod = _mapping(_mapping(_mapping(doc.get("spec")).get("template")).get("spec"))
    refs: list[Any] = []
    for container in _list(pod.get("containers")) + _list(pod.get("initContainers")):
        container = _mapping(container)
        refs += [_mapping(source).get("configMapRef") for source in _list(container.get("envFrom"))]
        refs += [
            _mapping(_mapping(env).get("valueFrom")).get("configMapKeyRef")
            for env in _list(container.get("env"))
        ]
    for volume in map(_mapping, _list(pod.get("volumes"))):
        refs.append(volume.get("configMap"))
        refs += [
            _mapping(source).get("configMap")
            for source in _list(_mapping(volume.get("projected")).get("sources"))
        ]
    return frozenset(name for ref in refs if isinstance(name := _mapping(ref).get("name"), str))


def _container_images(node: Any) -> list[str]:
    """The ``image`` of every item of a ``containers`` or ``initContainers`` list anywhere in an
    object: what kustomize's images transformer rewrites (``imagetag.LegacyFilter``)."""
    images: list[str] = []
    if isinstance(node, list):
        for item in node:
            images += _container_images(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            images += _container_images(value)
            if key in ("containers", "initContainers"):
                images += [
                    image
                    for item in _list(value)
                    if isinstance(image := _mapping(item).get("image"), str)
                ]
    return images
