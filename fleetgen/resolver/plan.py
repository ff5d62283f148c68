"""The Plan: every placement (app × cluster) with its effective, layered settings.

``resolve`` builds it; emitters only translate it. How layers make the settings is
`fleetgen.resolver.layering`; Flux's timing of a placement, `fleetgen.resolver.timing`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fleetgen.inputs.landing import Landing
from fleetgen.model import (
    App,
    AppSecret,
    ClusterVar,
    Credentials,
    Engine,
    Fleet,
    Image,
    Layer,
    Patch,
    Project,
    RemoteSource,
    SyncPolicy,
)
from fleetgen.model.fields import repo_path
from fleetgen.resolver.notify import Notices
from fleetgen.resolver.values import filled, filled_values, vars_in
from fleetgen.rules.chartversions import is_range

# What build, explain, the fleet map and diff say of a suspended placement (`Placement.suspended`).
SUSPENDED = "suspended: nothing deploys until its sync is set to automated in fleet.py"


@dataclass(frozen=True, slots=True)
class ImageRef:
    """The effective image override for one image name of the base."""

    name: str
    new_name: str | None = None
    tag: str | None = None
    digest: str | None = None

    @property
    def current_name(self) -> str:
        """The image name as it appears after this override is applied."""
        return self.new_name or self.name

    def deepen(self, image: Image) -> ImageRef:
        """A deeper layer's Image on top: new_name kept unless set; tag and digest go together."""
        pinned = image.tag is not None or image.digest is not None
        return ImageRef(
            name=self.name,
            new_name=image.new_name or self.new_name,
            tag=image.tag if pinned else self.tag,
            digest=image.digest if pinned else self.digest,
        )


@dataclass(frozen=True, slots=True)
class Settings:
    """Effective settings after layering; ``provenance`` maps each value to the layer that set it.

    Provenance keys: ``image/<name>/name`` (new_name), ``image/<name>/version`` (tag and digest,
    set as a unit), ``replicas/<workload>``, ``config/<configmap>/<key>``,
    ``label/<key>``, ``annotation/<key>``, ``sync/<field>``, ``patch/<index>``; for a chart
    app ``values/<path>`` (each leaf of the merged values, `value_path`; a values file's leaf
    names ``<layer> file <path>``) and ``chart/version``;
    for an app from another source ``path`` (``App.path`` or an ``Overrides(path=...)``); for a
    kustomize app ``resource/<index>`` and ``component/<index>`` (the layer that added each entry
    of ``resources`` and ``components``), ``name_prefix`` and ``namespace`` (an
    ``Overrides(namespace=...)``; none for App.namespace).
    ``resolved`` maps such a key to the `ClusterVar` names filled in there (`resolve_vars`).
    """

    images: Mapping[str, ImageRef] = field(default_factory=dict)
    replicas: Mapping[str, int] = field(default_factory=dict)
    config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # (vars: resolve_vars)
    patches: tuple[Patch, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    sync: SyncPolicy = field(default_factory=SyncPolicy)
    values: Mapping[str, Any] = field(default_factory=dict)  # Helm values, `merge_values`
    chart_version: str | None = None  # an Overrides(chart_version=...) in effect
    # an app from another source: App.path or the Overrides(path=...) in effect
    source_path: str | ClusterVar | None = None
    # Overrides(resources=..., components=...) of every layer, repo-relative and normalized, in
    # layer order, each once
    resources: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    name_prefix: str | None = None  # the deepest Overrides(name_prefix=...): kustomize namePrefix
    # App.namespace or an Overrides(namespace=...): where it goes (a ClusterVar until filled in)
    namespace: str | ClusterVar | None = None
    # (layer, repo path) of each Helm values file in effect, in merge order: the layers'
    # Overrides(values_files=...); once `with_values_files` made a chart placement's values,
    # HelmChart.values_files first (layer ``chart``)
    values_files: tuple[tuple[str, str], ...] = ()
    provenance: Mapping[str, str] = field(default_factory=dict)
    resolved: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def resolve_vars(self, values: Mapping[str, str]) -> Settings:
        """These settings with every `ClusterVar` in Helm values, config and the source path
        replaced by its value in ``values`` (a cluster's vars; resolve checks that it has each),
        ``resolved`` naming the vars filled in at each provenance key."""
        if not self.var_names():
            return self
        resolved: dict[str, tuple[str, ...]] = {}
        config = {
            name: {
                key: filled(value, values, resolved, f"config/{name}/{key}")
                for key, value in entries.items()
            }
            for name, entries in self.config.items()
        }
        return replace(
            self,
            config=config,
            values=filled_values(self.values, values, resolved),
            source_path=filled(self.source_path, values, resolved, "path"),
            namespace=filled(self.namespace, values, resolved, "namespace"),
            resolved=resolved,
        )

    def var_names(self) -> set[str]:
        """The names of the `ClusterVar`s these settings hold."""
        return {var.name for var in vars_in(self.held_vars())}

    def filled_namespace(self) -> str | None:
        """The namespace, once a `ClusterVar` there is filled in (or, `shared`, left out)."""
        assert not isinstance(self.namespace, ClusterVar)  # resolve fills it in or refuses it
        return self.namespace

    def held_vars(self) -> tuple[Any, ...]:
        """What may hold a `ClusterVar`: Helm values, config, the source path, the namespace."""
        return (self.values, self.config, self.source_path, self.namespace)

    def shared(self) -> Settings:
        """These settings without the config entries and namespace a `ClusterVar` sets: what an
        env overlay writes for all its clusters (each cluster overlay writes them with its
        value)."""
        if isinstance(self.namespace, ClusterVar):
            return replace(self, namespace=None).shared()
        if not vars_in(self.config):
            return self
        config = {
            name: {
                key: value for key, value in entries.items() if not isinstance(value, ClusterVar)
            }
            for name, entries in self.config.items()
        }
        return replace(self, config={name: entries for name, entries in config.items() if entries})


@dataclass(frozen=True, slots=True)
class SecretPlan:
    """An AppSecret with its remote keys' ``{cluster}``/``{env}`` placeholders filled."""

    secret: AppSecret
    data: Mapping[str, tuple[str, str | None]]  # secret key -> (remote key, property)


@dataclass(frozen=True, slots=True)
class EnvOverlay:
    """``overlays/<app>/<env>/``: the base with the fleet, env, app and per_env layers."""

    app: str
    env: str
    path: str
    base: str | None  # repo-relative path of the user's base; None: its layers add all
    settings: Settings
    base_configmaps: frozenset[str]  # the base's and those of what its layers add
    secrets: tuple[SecretPlan, ...] = ()
    # (kind, name) -> hash of the fleetgen-set config its pod template reads (``confighash``)
    config_hashes: Mapping[tuple[str, str], str] = field(default_factory=dict)

    @property
    def namespace(self) -> str | None:
        """The namespace it rewrites objects into; None: none (App(namespace=None))."""
        return self.settings.filled_namespace()


@dataclass(frozen=True, slots=True)
class ClusterOverlay:
    """``overlays/<app>/clusters/<cluster>/``: the env overlay plus the per_label layers the
    cluster matches and its per_cluster layer, in that order."""

    app: str
    cluster: str
    env_overlay: EnvOverlay
    path: str
    layers: tuple[tuple[str, Layer], ...]  # (provenance name, layer), in order
    settings: Settings  # fully effective, per_label and per_cluster included
    # what it sets in ConfigMaps: its layers' config, and config values its cluster's vars fill
    config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    secrets: tuple[SecretPlan, ...] = ()
    config_hashes: Mapping[tuple[str, str], str] = field(default_factory=dict)  # only changed ones
    # ConfigMaps shipped by what its own layers add (resources, components), for config= to merge
    added_configmaps: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ChartSource:
    """The chart of a chart app's placement: from a repository, or kept in this repository."""

    name: str
    version: str  # exact or a range; for a chart kept in the repository, its Chart.yaml's
    repo: str | None = None  # https:// Helm repository or oci:// registry path, as written
    path: str | None = None  # repo-relative directory of a chart kept in the repository

    @property
    def oci(self) -> bool:
        """Whether the chart comes from an OCI registry."""
        return self.repo is not None and self.repo.startswith("oci://")

    @property
    def range(self) -> bool:
        """Whether its version is a range each engine resolves on its own (a repository's
        chart only: a chart kept here has its Chart.yaml's version)."""
        return self.repo is not None and is_range(self.version)


@dataclass(frozen=True, slots=True)
class Remote:
    """Where an app without overlay reads its manifests as they are: a directory of another
    source, or (``source`` None) a plain directory of this repository (no kustomization: Argo CD
    reads it as a directory source, Flux through kustomize-controller's generated kustomization).

    No overlay rewrites them: an app from another source has no namespace, its manifests say
    where things go; a plain directory's ``App(namespace=...)`` is its Argo CD destination
    namespace and Flux ``targetNamespace``, which put its objects in the same namespaces
    (`fleetgen.resolver` refuses objects the two would place apart).
    """

    source: RemoteSource | None
    path: str  # relative to the source's root (None: the repository's), normalized ("." for it)


def remote_path(app: App, settings: Settings | None = None) -> str | ClusterVar:
    """The directory an app without overlay reads, normalized ("." for the root): the one in
    effect in ``settings`` (App.path of an app from another source, or an
    ``Overrides(path=...)``), else ``App.path`` (a plain directory's); a `ClusterVar` where
    settings not yet resolved for a cluster hold one."""
    path = settings.source_path if settings is not None else None
    path = path if path is not None else app.path
    if isinstance(path, ClusterVar):
        return path
    return repo_path(path) if path is not None else "."


# Not frozen, unlike the other records of the Plan, though nothing changes one: a Plan holds one
# per app and cluster (100,000 in a large fleet), and a frozen dataclass's __init__ (one
# object.__setattr__ per field) took most of resolve's time building them.
@dataclass(slots=True)
class Placement:
    """One app on one cluster."""

    app: str
    cluster: str
    env: str
    overlay: str  # output-relative overlay path the engines point at ("" for chart and remote)
    settings: Settings
    engine: Engine  # the one engine that reconciles it
    cascade_delete: bool  # removing it deletes its workloads (`Fleet.cascades`)
    wave: int | None = None  # 1-based rollout step, None without a rollout
    chart: ChartSource | None = None  # a chart app's chart; its values are settings.values
    remote: Remote | None = None  # an app without overlay: another source, a plain directory
    # Selector(runtime=True) with ClusterVars: its settings before they were filled in, which the
    # ApplicationSet template carries (each var read from the cluster Secret's annotation)
    template: Settings | None = None

    @property
    def namespace(self) -> str | None:
        """Where it puts objects: App.namespace or the Overrides(namespace=...) in effect (a
        `ClusterVar` filled in by resolve); None for an App(namespace=None), whose manifests say
        where things go."""
        return self.settings.filled_namespace()

    @property
    def suspended(self) -> bool:
        """Whether Flux reconciles it and its sync is manual: its Kustomization or HelmRelease
        gets ``suspend: true``, so nothing of it deploys (`SUSPENDED`)."""
        return self.engine == "flux" and not self.settings.sync.automated

    @property
    def reads_fleet_repo(self) -> bool:
        """Whether it reads the fleet's repository: an overlay, a chart or a plain directory
        there."""
        if self.remote is not None:
            return self.remote.source is None
        return not (self.chart and self.chart.repo)


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything emitters need; built by ``resolve``."""

    fleet: Fleet
    placements: Sequence[Placement]
    env_overlays: Sequence[EnvOverlay]
    cluster_overlays: Sequence[ClusterOverlay]
    waves: Mapping[str, tuple[tuple[str, ...], ...]]  # env -> steps -> cluster names
    credentials: Mapping[str, Credentials | None]  # cluster -> filled-in credentials
    # The clusters an engine reaches from outside, so the only ones whose credentials are used:
    # those with an Argo CD placement and the spokes of a Flux hub. On any other cluster with a
    # placement, its own Flux pulls from Git.
    reached: frozenset[str]
    landing: Landing  # where the output files land
    # Cluster -> its CA bundle (base64 PEM): Cluster.ca_data, or the content of its CaFile.
    ca_data: Mapping[str, str] = field(default_factory=dict)
    # App(namespace=None) apps: the namespaces their manifests put objects in (metadata.namespace
    # and the Namespace objects they ship, from the inventory; for an app from another source,
    # its project's namespace patterns), and those Namespace objects.
    manifest_namespaces: Mapping[str, frozenset[str]] = field(default_factory=dict)
    namespace_objects: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Kustomize apps: (group, kind) of the cluster-scoped objects their base ships (inventory).
    cluster_kinds: Mapping[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    # Placed overlaid apps with config= whose inputs run pods and fleetgen sees whole: the
    # ConfigMaps their pods may read (`_Context.configmaps_read`).
    configmaps_read: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Kustomize apps whose base lists remote bases: where each is listed ("file:line").
    remote_bases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # (app, env) -> who hears about what there (`fleetgen.resolver.notify`); empty without Notify
    notices: Mapping[tuple[str, str], Notices] = field(default_factory=dict)
    # `on` by engine: the emitters' check, warnings and emit each ask for their engine's part.
    _parts: dict[Engine, Plan] = field(default_factory=dict, init=False, repr=False, compare=False)
    _by_app: dict[str, list[Placement]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )  # `by_app`, once asked for

    def permitted_cluster_kinds(
        self, project: Project, apps: Iterable[str]
    ) -> list[tuple[str, str]]:
        """The cluster-scoped kinds ``project`` permits its placed ``apps`` (Namespace aside,
        permitted by name as the apps create them): ``cluster_resources`` as written when the
        spec sets it, a boundary resolve holds the bases to; else every kind the apps' bases
        ship. Argo CD syncs a cluster-scoped object only if its AppProject lists the kind
        (controller/sync.go ``validateSyncPermissions``, ``IsGroupKindNamePermitted``)."""
        if "cluster_resources" in project.model_fields_set:
            return list(project.cluster_resources)
        shipped = {kind for app in apps for kind in self.cluster_kinds.get(app, ())}
        return sorted(shipped - {("", "Namespace")})

    def namespaces_of(self, app: App) -> frozenset[str]:
        """The namespaces ``app`` deploys into: those of its placements (App.namespace, or an
        Overrides(namespace=...)), or where its manifests put objects."""
        if app.namespace is not None:
            return frozenset(p.namespace for p in self.by_app().get(app.name, ()) if p.namespace)
        return self.manifest_namespaces.get(app.name, frozenset())

    def by_app(self) -> Mapping[str, Sequence[Placement]]:
        """app -> its placements, in Plan order (one walk, however often asked)."""
        if not self._by_app:
            for placement in self.placements:
                self._by_app.setdefault(placement.app, []).append(placement)
        return self._by_app

    def on(self, engine: Engine) -> Plan:
        """This Plan with only the placements ``engine`` reconciles (what its emitter gets)."""
        part = self._parts.get(engine)
        if part is None:
            part = self._parts[engine] = replace(
                self, placements=tuple(p for p in self.placements if p.engine == engine)
            )
        return part
