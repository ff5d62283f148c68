"""The fleet import drafts before it is written: clusters, projects, and every app instance the
repository deploys on each cluster (`Instance`), which `fleetgen.importer.apps` folds into apps with
targets and layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from fleetgen.importer.findings import Finding
from fleetgen.importer.repo import Doc
from fleetgen.util.templating import Call, py_literal

Engine = Literal["argocd", "flux"]
STORE = "cluster-secrets"  # the store default_credentials names, for the user to fill in
STORE_KEY = "clusters/{cluster}"  # ... and the key of each cluster's credentials in it
DEFAULT_PROJECT = "apps"  # the project of apps outside any tenant or AppProject of their own
# Words naming an environment, in the order changes usually go through them.
_ENV_WORDS: tuple[str, ...] = ("sandbox", "dev", "development", "test", "qa", "preview", "uat")
_ENV_WORDS += ("staging", "stage", "preprod", "prod", "production")


def env_name(cluster: str) -> str:
    """The environment of a cluster named after it (``prod-eu-1`` -> ``prod``), else the
    cluster's own name."""
    return next((part for part in cluster.split("-") if part in _ENV_WORDS), cluster)


def is_env_word(name: str) -> bool:
    """Whether ``name`` is a word that names an environment (``dev``, ``prod`` …)."""
    return name in _ENV_WORDS


def env_rank(env: str) -> tuple[int, str]:
    """Where an environment goes in the fleet's list: the usual path to production first."""
    return (_ENV_WORDS.index(env) if env in _ENV_WORDS else len(_ENV_WORDS), env)


@dataclass(frozen=True, slots=True)
class ChartRef:
    """A chart as a release names it: from a repository (``repo``, ``name``) or kept in this one
    (``path``); its version is per instance."""

    repo: str | None = None
    name: str | None = None
    path: str | None = None
    release_name: str | None = None
    options: tuple[tuple[str, Any], ...] = ()  # further HelmChart fields (retries, verify …)


@dataclass(frozen=True, slots=True)
class Packed:
    """Where the engine reads an instance's folder when not from the repository itself: its
    ``path`` in an artifact (Flux's ExternalArtifact an ArtifactGenerator makes) of the
    repository's ``files`` (artifact path, repository path)."""

    path: str
    files: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class Instance:
    """One app on one cluster, as the repository deploys it there.

    ``layered`` fields may differ per cluster (they become layers); everything else is the app's
    identity: instances of one name that differ in it become separate apps."""

    name: str
    cluster: str
    origin: Doc
    project: str = DEFAULT_PROJECT
    namespace: str | None = None
    path: str | None = None
    chart: ChartRef | None = None
    source: Call | None = None
    app_fields: tuple[tuple[str, Any], ...] = ()  # App fields kept as they are (patches, images)
    depends_on: list[str] = field(default_factory=list)  # instances on the same cluster
    uses: set[str] = field(default_factory=set)  # the namespaces it puts objects in
    values: dict[str, Any] = field(default_factory=dict)
    values_files: list[str] = field(
        default_factory=list
    )  # a chart's, merged in order before values
    chart_version: str | None = None
    sync: dict[str, Any] = field(default_factory=dict)  # SyncPolicy fields
    config: dict[str, dict[str, str]] = field(default_factory=dict)  # ConfigMap -> key -> value
    # (group, kind, name) -> JSON pointer -> the value a JSON patch ``replace`` puts there
    replaced: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    cascade: bool = False  # removing it deletes what it deployed (App(cascade_delete=True))
    # ``path`` is an overlay folder kept as a layer (``Overrides(resources=[path])``): the layer
    overlay: Literal["per_env", "per_cluster"] | None = None
    # on clusters another tool registers: the label selector that picks them at run time
    runtime: dict[str, Any] | None = None
    packed: Packed | None = None  # ``path`` as the engine reads it from an artifact
    # the labels and annotations of its Application (App(labels=..., annotations=...))
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    # what it notifies: channel (its ``Call`` as text, a key of `Draft.channels`) -> events
    heard: dict[str, set[str]] = field(default_factory=dict)

    def identity(self) -> tuple[Any, ...]:
        """What all clusters of one app share (calls and values as their text); the path in
        another source, and an overlay folder, are layered (``Overrides(path=...)``,
        ``Overrides(resources=...)``)."""
        fields = py_literal(dict(self.app_fields))
        path = self.path if self.source is None and self.overlay is None else None
        chart = repr(self.chart)  # its options may hold calls, which do not hash
        found = (self.project, self.namespace, path, chart, py_literal(self.source), fields)
        return (*found, py_literal(self.runtime))


@dataclass(frozen=True, slots=True)
class ClusterDraft:
    """A cluster: its name, environment, API server and labels, and where it was found."""

    name: str
    env: str
    server: str
    origin: Doc
    labels: tuple[tuple[str, str], ...] = ()
    credentials: Call | None = None  # as `add cluster --credentials` takes them (no material)
    ca_data: str | None = None
    annotations: tuple[tuple[str, str], ...] = ()
    registration: Literal["fleetgen", "external"] = "fleetgen"  # who writes its Argo CD Secret
    vars: tuple[tuple[str, str], ...] = ()  # its values of the ClusterVars its apps read


@dataclass(slots=True)
class Draft:
    """Everything import found: the fleet to write and what it could not map."""

    engine: Engine
    repo: str | None = None
    revision: str | None = None  # the branch the engines read of it, when not fleetgen's main
    clusters: list[ClusterDraft] = field(default_factory=list)
    projects: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> Project fields
    instances: list[Instance] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    default_credentials: Call | None = None
    flux: Call | None = None  # FluxOptions(...), a hub's
    create_namespaces: bool = True  # the engines create the apps' namespaces
    # project -> namespace -> {"labels": ..., "annotations": ...} of the Namespaces it ships
    namespace_meta: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    read: dict[str, int] = field(default_factory=dict)  # the engine's objects it read, by kind
    channels: dict[str, Call] = field(default_factory=dict)  # the instances' channels, by text

    def in_order(self) -> None:
        """Clusters and instances by environment (the path to production first), then name."""
        rank = {c.name: (env_rank(c.env), c.name) for c in self.clusters}
        self.clusters.sort(key=lambda c: rank[c.name])
        self.instances.sort(key=lambda i: rank.get(i.cluster, ((0, ""), "")))

    def from_store(self) -> None:
        """Clusters without credentials read them from `STORE`: ``Fleet(default_credentials=
        ExternalSecretRef(...))``."""
        self.default_credentials = Call("ExternalSecretRef", {"store": STORE, "key": STORE_KEY})

    @property
    def envs(self) -> list[str]:
        """The environments of its clusters, in the order they are sorted in (`in_order`)."""
        return list(dict.fromkeys(cluster.env for cluster in self.clusters))

    @property
    def cascade(self) -> bool:
        """Whether removing any app deletes what it deployed (Fleet(cascade_delete=True))."""
        return bool(self.instances) and all(instance.cascade for instance in self.instances)

    @property
    def importable(self) -> bool:
        """Whether it found anything to write a fleet of."""
        return bool(self.clusters)
