"""The settings an app layers (app level, per_env, per_label, per_cluster): Layer and Overrides,
with the kustomize Images and Patches they carry."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from fleetgen.model.base import Spec
from fleetgen.model.fields import (
    Annotations,
    ChartVersion,
    ConfigKey,
    HelmValues,
    Labels,
    Name,
    NamePrefix,
    ObjectName,
    Placeholder,
    VarName,
)
from fleetgen.model.sync import SyncPolicy

RepoPath = Annotated[str, Field(min_length=1)]  # relative to the folder holding fleet.py
_DIGEST = re.compile(r"sha256:[a-f0-9]{64}")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")


class ClusterVar(Spec, Placeholder):
    """A value that differs per cluster: the cluster's ``Cluster(vars={name: value})``.

    Written ``ClusterVar("region")`` where a value may differ by cluster: in Helm values (at any
    depth), config values, a layer's namespace (``Overrides(namespace=...)``) and the path of an
    app from another source. Every cluster of fleet.py an app using it runs on must give it a
    value (a located error otherwise), which fleetgen fills in at build. An ApplicationSet that
    selects clusters at run time (``Selector(runtime=True)``) reads it instead from the selected
    cluster Secret's annotation ``fleetgen.io/var.<name>``: so there it reaches only Helm values
    and the source path (config and namespace are built into the overlay before). A selected
    Secret missing one fails the generation of the whole ApplicationSet: Argo CD then creates,
    updates and deletes none of its Applications, on any cluster, until the annotation is there
    (its ``ErrorOccurred`` condition shows the root Application Degraded, as seen on Argo CD
    3.6); with ``ArgoOptions(min_version="3.4")`` or later, whose generator selector reads
    annotations, such a Secret is not selected instead (the app skips that cluster).
    fleetgen writes the annotations on the registrations it owns; output/README.md lists those
    an external registration must carry. It is a whole value, never part of a string: ``{{ }}``
    and ``${}`` in strings, and in a var's value, stay literal text.

    Attributes:
        name: The var's name, a key of `Cluster.vars` (written positionally or as ``name=``).
    """

    name: VarName

    def __init__(self, name: str | None = None, /, **data: Any) -> None:
        if name is not None:
            data["name"] = name
        super().__init__(**data)

    def __eq__(self, other: object) -> bool:
        """One var wherever it is written (not the line that wrote it)."""
        return isinstance(other, ClusterVar) and other.name == self.name

    def __hash__(self) -> int:
        return hash((ClusterVar, self.name))


# A directory of another source: a path, or a ClusterVar naming one per cluster.
SourcePath = Annotated[str, Field(min_length=1)] | ClusterVar


class Image(Spec):
    """A kustomize image override; ``name`` is the image as written in the base.

    Attributes:
        name: The image as the base writes it (without tag).
        new_name: The image to use instead (registry/repository).
        tag: The tag to use.
        digest: The digest to use, sha256:<64 hex digits>.
    """

    name: str = Field(min_length=1)
    new_name: str | None = None
    tag: str | None = None
    digest: str | None = None

    @model_validator(mode="after")
    def _fields(self) -> Image:
        if self.tag is not None and not _TAG.fullmatch(self.tag):
            raise ValueError(f"tag {self.tag!r} is not a valid image tag")
        if self.digest is not None and not _DIGEST.fullmatch(self.digest):
            raise ValueError(f"digest {self.digest!r} must look like sha256:<64 hex digits>")
        if self.new_name is None and self.tag is None and self.digest is None:
            raise ValueError(f"image {self.name!r} sets none of new_name, tag, digest")
        return self


_PATCH_TARGET_KEYS = {
    "group",
    "version",
    "kind",
    "name",
    "namespace",
    "labelSelector",
    "annotationSelector",
}


class Patch(Spec):
    """A kustomize patch: a dict is a strategic-merge patch, a list is JSON6902.

    Attributes:
        target: Which objects: kind (required), and group, version, name, namespace, labelSelector,
            annotationSelector.
        patch: A strategic-merge patch (dict) or JSON6902 operations (list).
    """

    target: dict[str, str]
    patch: dict[str, Any] | list[dict[str, Any]]

    @field_validator("target")
    @classmethod
    def _target(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - _PATCH_TARGET_KEYS)
        if unknown:
            allowed = sorted(_PATCH_TARGET_KEYS)
            raise ValueError(f"unknown target keys {unknown}; allowed: {allowed}")
        if "kind" not in value:
            raise ValueError("a patch target needs at least 'kind'")
        return value


class Layer(Spec):
    """Settings any layer may give: app level, ``per_env`` and ``per_cluster``.

    Attributes:
        replicas: Workload name → replica count.
        images: Image overrides; on a chart app they post-render what the chart renders (Flux
            only: Argo CD cannot post-render a chart without a setting of the whole Argo CD).
        config: ConfigMap name → key → value (a string, or a `ClusterVar`), merged into the
            base's ConfigMap of that name; build warns (at this line) of one that no pod of an
            app running pods reads (no envFrom, env valueFrom, volume or projected volume names
            it).
        patches: Kustomize patches, appended in layer order; on a chart app, post-render patches
            as `images` are.
        common_labels: Labels put on every object, merged by key.
        common_annotations: Annotations put on every object, merged by key.
        sync: Sync settings; a deeper layer overrides only the fields it sets.
        values: Chart apps only: Helm values, merged like Helm's chained values files (None
            removes a key, the chart's default included); a `ClusterVar` may stand for any
            value in them. A placement's values are, in this order, as ``helm -f`` files
            chained: the chart's values.yaml, HelmChart.values_files, the values_files of its
            per_env, per_label and per_cluster layers, then the values of its app, per_env,
            per_label and per_cluster layers.
    """

    replicas: dict[ObjectName, int] = {}
    images: list[Image] = []
    config: dict[ObjectName, dict[ConfigKey, str | ClusterVar]] = {}
    patches: list[Patch] = []
    common_labels: Labels = {}
    common_annotations: Annotations = {}
    sync: SyncPolicy | None = None
    values: HelmValues = {}  # chart apps only: merged like Helm's chained values files

    @field_validator("replicas")
    @classmethod
    def _replicas(cls, value: dict[str, int]) -> dict[str, int]:
        for name, count in value.items():
            if count < 0:
                raise ValueError(f"replicas for {name!r} must not be negative")
        return value


class Overrides(Layer):
    """The settings of one environment or cluster for an app; deeper layers win.

    Attributes:
        chart_version: Chart apps only: the chart version here, instead of the app's (exact or
            a range, as HelmChart.version); not for a chart kept in the repository.
        path: Apps from another source (App(source=...)) only: the directory in that source
            read here, instead of App.path (a tenant repository's ./staging and ./production);
            relative to the source's root, a deeper layer's wins; a `ClusterVar` for a
            directory per cluster.
        resources: Kustomize apps only: directories with a kustomization.yaml added to the
            resources of this layer's overlay (the env overlay for per_env, the cluster overlay
            for per_label and per_cluster); paths in the fleet repository, relative to the
            directory holding fleet.py, like App.path. Not single files: kustomize's default
            load restrictor, which Argo CD builds with, refuses a file outside the overlay's
            folder. Layers add up: a deeper layer adds its entries to those of the layers above
            it (a path already added stays where it was added).
        components: Kustomize apps only: kustomize Components (a directory whose
            kustomization.yaml says ``kind: Component``, apiVersion
            kustomize.config.k8s.io/v1alpha1) applied in this layer's overlay, after its
            resources and before its own images, replicas, config and patches; paths as for
            resources, added up the same way.
        name_prefix: Kustomize apps only: a kustomize namePrefix put on the name of every object
            (and on the references kustomize knows, e.g. a Deployment's configMapRef), written in
            this layer's overlay. The deepest layer's is the placement's; replicas, config,
            patches and the config hash keep naming objects as the base does; the Secrets of
            secrets= keep their names (kustomize renames the ExternalSecret, not its target,
            and leaves references to a Secret it does not hold). kustomize prefixes
            at each overlay, and a cluster overlay builds on its env overlay: a per_label or
            per_cluster prefix may not differ from the per_env prefix of its cluster's
            environment (it would be added in front of it).
        namespace: The namespace of the placements this layer reaches instead of
            App.namespace, the deepest layer's winning: for a kustomize app the kustomize
            namespace of this layer's overlay (env overlay for per_env, cluster overlay for
            per_label and per_cluster), for a chart app where its Helm release goes (Flux's
            targetNamespace and storageNamespace; changing it on a cluster uninstalls the
            release and installs it anew there, as helm-controller does on a changed release
            target); the Argo CD Application's destination namespace, the Namespace the
            engines create. Their project must allow it. Not with App(namespace=None), whose
            manifests say where things go, nor on a tenant's app (a project with
            service_account: its ServiceAccount lives in App.namespace), nor for an app from
            another source. A `ClusterVar`: each cluster's value (a namespace name its project
            allows), written in its cluster overlay.
        values_files: Chart apps only: Helm values files kept in this repository (YAML
            mappings, relative to the folder holding fleet.py), merged after
            HelmChart.values_files and the files of shallower layers, before every values=
            (see Layer.values); passed inline to both engines.
    """

    chart_version: ChartVersion | None = None  # chart apps only: the chart version here
    path: SourcePath | None = None  # source apps only: App.path here
    resources: list[RepoPath] = []  # kustomize apps only: added to this layer's overlay
    components: list[RepoPath] = []  # kustomize apps only: Components this layer's overlay uses
    values_files: list[RepoPath] = []  # chart apps only: after shallower layers' files
    namespace: Name | ClusterVar | None = None  # App.namespace here
    name_prefix: NamePrefix | None = None  # kustomize apps only: namePrefix of this overlay
