"""Apps: what an app deploys (kustomize base, HelmChart, GitSource or OciSource), where (Selector)
and its secrets and ignored differences."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from fleetgen.model.base import Engine, Spec
from fleetgen.model.fields import (
    Annotations,
    ChartRepo,
    ChartVersion,
    ConfigKey,
    Duration,
    GitURL,
    LabelKey,
    Labels,
    LabelValue,
    Name,
    ObjectName,
    OciURL,
    ReleaseName,
    label_key,
    label_value,
    repo_path,
)
from fleetgen.model.layers import _DIGEST, _TAG, ClusterVar, Layer, Overrides, RepoPath, SourcePath
from fleetgen.model.notify import Notify
from fleetgen.model.projects import Waiver

_COMMIT = re.compile(r"[0-9a-f]{40}")


class Expr(Spec):
    """A label selector expression with Kubernetes semantics.

    Attributes:
        key: The label key.
        operator: In, NotIn, Exists or DoesNotExist.
        values: Values for In and NotIn (at least one); empty for the others.
    """

    key: LabelKey
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: list[LabelValue] = []

    @model_validator(mode="after")
    def _values(self) -> Expr:
        if self.operator in ("In", "NotIn") and not self.values:
            raise ValueError(f"operator {self.operator} needs at least one value")
        if self.operator in ("Exists", "DoesNotExist") and self.values:
            raise ValueError(f"operator {self.operator} takes no values")
        return self


class Selector(Spec):
    """Which clusters an app runs on; all conditions are ANDed.

    Attributes:
        envs: Environment names; None: all.
        clusters: Cluster names; None: any.
        match_labels: Labels a cluster must have.
        match_expressions: Label expressions a cluster must satisfy.
        exclude: Cluster names left out.
        runtime: Argo CD only: its ApplicationSets select clusters by these conditions when they
            run, so a cluster registered later (`Cluster(registration='external')`) is included;
            False: exactly the clusters fleet.py knows, by name. What a cluster fleet.py need
            not list cannot have is refused: per_cluster layers, a kustomize app's per_label
            layers and secrets read per cluster (each cluster's own overlay), and per_label
            layers of a label the selector does not require (one selector per environment).
    """

    envs: list[Name] | None = None
    clusters: list[Name] | None = None
    match_labels: Labels = {}
    match_expressions: list[Expr] = []
    exclude: list[Name] = []
    runtime: bool = False  # label selection by the ApplicationSet controller at run time


class IgnoreDifference(Spec):
    """Fields the engines must not treat as drift (e.g. /spec/replicas under an HPA).

    Attributes:
        group: API group of the objects ('' for the core group).
        kind: Kind of the objects.
        name: Only the object of this name; None: all.
        namespace: Only objects in this namespace; None: all.
        json_pointers: Fields to ignore, as JSON pointers ('/spec/replicas').
        jq_path_expressions: Fields to ignore, as jq paths (Argo CD only).
        managed_fields_managers: Ignore fields owned by these field managers (Argo CD only).
    """

    group: str = ""
    kind: str
    name: str | None = None
    namespace: str | None = None
    json_pointers: list[str] = []
    jq_path_expressions: list[str] = []
    managed_fields_managers: list[str] = []


class AppSecret(Spec):
    """A Secret for the app, produced by an ExternalSecret; ``data`` maps key → 'remote#prop'.

    Attributes:
        name: The Secret's name.
        store: The (Cluster)SecretStore to read from.
        data: Secret key → 'remote-key#property' ({env}, {cluster} are filled in).
        store_kind: SecretStore or ClusterSecretStore.
        refresh_interval: How often External Secrets refreshes the Secret.
    """

    name: ObjectName
    store: ObjectName
    data: dict[ConfigKey, str] = Field(min_length=1)
    store_kind: Literal["SecretStore", "ClusterSecretStore"] = "ClusterSecretStore"
    refresh_interval: Duration = "1h"


_CHART_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class OIDCIdentity(Spec):
    """An identity a keyless cosign signature's certificate must match (Go regular expressions).

    Attributes:
        issuer: The OIDC issuer, e.g. '^https://token.actions.githubusercontent.com$'.
        subject: The subject identity, e.g. '^https://github.com/acme/charts/.*$'.
    """

    issuer: str = Field(min_length=1)
    subject: str = Field(min_length=1)


class ChartVerify(Spec):
    """How Flux verifies the signature of an OCI chart before it uses a pulled version
    (source-controller's OCIRepository ``spec.verify``); a chart that fails is not deployed.
    Argo CD verifies no chart signature: a build warning says so where it places the app.

    Attributes:
        provider: 'cosign' or 'notation'.
        secret_ref: A Secret beside the app's Flux objects (the Flux namespace; a hub's spoke
            namespace): cosign public keys ('*.pub'), or notation's 'trustpolicy.json' and CA
            certificates ('*.crt', '*.pem'); None: cosign keyless (Sigstore's public Fulcio
            and Rekor).
        match_oidc_identity: Keyless cosign only: a signature's certificate must match one of
            these identities; none: any identity.
    """

    provider: Literal["cosign", "notation"] = "cosign"
    secret_ref: ObjectName | None = None
    match_oidc_identity: list[OIDCIdentity] = []

    @model_validator(mode="after")
    def _keys(self) -> ChartVerify:
        if self.provider == "notation" and self.secret_ref is None:
            raise ValueError(
                "notation verifies with the trust policy and certificates of a Secret: set "
                "secret_ref="
            )
        if self.match_oidc_identity and (self.provider != "cosign" or self.secret_ref):
            raise ValueError(
                "match_oidc_identity applies to keyless cosign (no secret_ref), which "
                "source-controller checks it for; with keys it would be ignored"
            )
        return self


class HelmChart(Spec):
    """A Helm chart: ``repo`` (``https://`` Helm repository or ``oci://`` registry path) with
    ``name`` and ``version``, or ``path``, a chart kept in this repository (its Chart.yaml names
    it and gives its version; no range).

    Attributes:
        repo: The https:// Helm repository or oci:// registry path of the chart (Flux installs an
            oci:// one as '1.0.0+<digest>': ``.Chart.Version`` in a label fails there, not on Argo).
        name: The chart's name in that repository.
        version: The chart version: exact ('1.2.3', SemVer), or a range ('>=1.0.0', '6.x',
            '~1.2', '^1.2', '*'; Masterminds semver, as both engines read it) that Argo CD and
            Flux each resolve on their own at sync time to the highest version it allows
            (pre-releases only where the range names one, '>=1.0.0-0'): what runs is then not
            pinned, which validate's rule chart-range reports (an error in production; waive it
            with Waiver(rule='chart-range', reason=...)). A partial version ('1.2', '6', 'v1')
            is refused: Argo CD reads it as an exact tag, Flux as a range.
        path: A chart kept in this repository, relative to the folder holding fleet.py.
        release_name: The Helm release name (default: the app's name), on both engines: Argo
            CD's `spec.source.helm.releaseName`, Flux's HelmRelease `releaseName`, and what
            `validate --render` and `diff --render` render the chart as. At most 53 characters
            (Helm's limit, which Flux's HelmRelease enforces), lowercase letters, digits, '-'
            and '.'. Renaming the release of a running app replaces it: helm-controller
            uninstalls the release of the old name and installs the new one, Argo CD renders
            the chart under the new name (objects named after the release are new objects).
        interval: Flux: how often the chart's source is checked (its HelmRepository or
            OCIRepository, and the HelmChart Flux builds); None: `FluxOptions.interval` for the
            source, the release's interval for the HelmChart. Argo CD has none (a warning).
        verify: Flux: verify an OCI chart's signature (oci:// charts only). Argo CD verifies
            none (a warning).
        install_retries: Flux: retries of a failed install, the release uninstalled between
            attempts (-1: forever); None: the sync policy's `retry` limit. Argo CD has none: its
            retry is `SyncPolicy(retry=...)` (a warning).
        upgrade_retries: Flux: retries of a failed upgrade, the release rolled back between
            attempts (-1: forever); None: the sync policy's `retry` limit. Argo CD as for
            `install_retries`.
        test: Flux: run the chart's Helm tests after each install and upgrade (a failure is
            remediated as a failed upgrade is). Argo CD never runs Helm tests (a warning).
        values_files: Helm values files kept in this repository (YAML mappings, relative to the
            folder holding fleet.py), merged in order over the chart's values.yaml as chained
            ``helm -f`` files are; the layers' Overrides(values_files=...) come after them, and
            every values= on top (see Layer.values). Passed inline to both engines, never as
            Flux valuesFiles: a change to a file redeploys like a change in fleet.py.
    """

    repo: ChartRepo | None = None
    name: str | None = None
    version: ChartVersion | None = None
    path: str | None = Field(default=None, min_length=1)
    release_name: ReleaseName | None = None
    interval: Duration | None = None
    verify: ChartVerify | None = None
    install_retries: int | None = Field(default=None, ge=-1)
    upgrade_retries: int | None = Field(default=None, ge=-1)
    test: bool = False
    values_files: list[RepoPath] = []  # merged over the chart's values.yaml, in order

    @model_validator(mode="after")
    def _source(self) -> HelmChart:
        if self.verify is not None and not (self.repo or "").startswith("oci://"):
            raise ValueError(
                "verify= checks the signature of a chart from an oci:// registry "
                "(source-controller verifies OCI artifacts only): a chart from an https:// Helm "
                "repository or kept in this repository has none to check"
            )
        remote = {"repo": self.repo, "name": self.name, "version": self.version}
        if self.path is not None:
            given = [key for key, value in remote.items() if value is not None]
            if given:
                raise ValueError(
                    f"a chart kept in the repository (path=) takes its name and "
                    f"version from its Chart.yaml; drop {', '.join(given)}"
                )
            return self
        missing = [key for key, value in remote.items() if value is None]
        if missing:
            raise ValueError(
                f"a chart needs repo=, name= and version= (missing "
                f"{', '.join(missing)}), or path= for a chart kept in the "
                "repository"
            )
        assert self.name is not None
        if not _CHART_NAME.fullmatch(self.name):
            raise ValueError(f"chart name {self.name!r} is not a chart name")
        return self


def _label_selection(value: str) -> str:
    key, equals, label = value.partition("=")
    if not equals:
        raise ValueError(f"per_label key {value!r} must be 'key=value' (a cluster label)")
    label_key(key)
    label_value(label)
    return value


LabelSelection = Annotated[str, AfterValidator(_label_selection)]  # "key=value"


class GitSource(Spec):
    """A Git repository: where Flux reads output/ from (`FluxOptions.source`), or where an app's
    manifests live (`App.source`).

    Attributes:
        url: The repository's URL, https:// (or ssh:// for `FluxOptions.source`).
        branch: The branch to read.
        revision: A tag, or a full 40-hex commit SHA, to read instead of following `branch`.
        secret_ref: A Secret in the Flux namespace holding its credentials; None: public.
    """

    url: GitURL
    branch: str = "main"
    revision: str | None = Field(default=None, min_length=1)
    secret_ref: ObjectName | None = None

    @property
    def commit(self) -> bool:
        """Whether ``revision`` names a commit (40 hex digits) rather than a tag."""
        return self.revision is not None and bool(_COMMIT.fullmatch(self.revision))

    @property
    def target_revision(self) -> str:
        """The revision as Argo CD's ``targetRevision`` takes it: the pin, else the branch."""
        return self.revision or self.branch


class OciSource(Spec):
    """An OCI artifact holding an app's manifests (e.g. pushed by ``flux push artifact`` or
    ``oras push``), pinned by exactly one of ``tag`` and ``digest``.

    Attributes:
        url: The artifact's repository, oci://registry/path (no credentials).
        tag: The tag to read.
        digest: The digest to read, sha256:<64 hex digits>.
    """

    url: OciURL
    tag: str | None = None
    digest: str | None = None

    @model_validator(mode="after")
    def _ref(self) -> OciSource:
        if (self.tag is None) == (self.digest is None):
            raise ValueError("an OCI source is pinned by exactly one of tag= and digest=")
        if self.tag is not None and not _TAG.fullmatch(self.tag):
            raise ValueError(f"tag {self.tag!r} is not a valid OCI tag")
        if self.digest is not None and not _DIGEST.fullmatch(self.digest):
            raise ValueError(f"digest {self.digest!r} must look like sha256:<64 hex digits>")
        return self

    @property
    def target_revision(self) -> str:
        """The tag or digest, as Argo CD's ``targetRevision`` takes it."""
        return self.tag or self.digest or ""


RemoteSource = GitSource | OciSource


class App(Layer):
    """An application: a user-owned kustomize base (``path``), a Helm chart (``chart``) or
    manifests from another repository or an OCI artifact (``source``), placed on the clusters its
    targets select.

    A base may list remote kustomize bases in its kustomizations' `resources` (or `components`):
    `https://host/org/repo//dir?ref=...`, `git@host:org/repo//dir?ref=...`, `ssh://...`,
    `github.com/org/repo/dir?ref=...`, `file:///...`. Each is pinned: its `ref` (or `version`) is
    a full 40-hex commit SHA or a version tag such as `v1.2.3` or `api/v1.2.3` (offline, a tag
    and a branch look alike, so `main`, `HEAD`, `release-1.2`, a short SHA or no ref is an error
    at the line of the base file that lists it). fleetgen never fetches them: the engines'
    kustomize does when it builds the overlays, on which the layers apply as on a local base
    (Argo CD's repo-server with the credentials of the fleet repository; Flux's
    kustomize-controller only while it runs with `--no-remote-bases=false`, its default, and
    with no credentials: a build warning says so), and so do `validate --render` and
    `diff --render`, which need them reachable. What fleetgen cannot read there, the spec bounds:
    with `namespace=None`, their objects may go to any namespace the project allows (its
    AppProject names them; a tenant project must list them by name); their cluster-scoped kinds
    need `Project(cluster_resources=[...])` (`validate --render` reports any other; build warns
    while it is unset on Argo CD); `images=` and `replicas=` are not checked against them;
    `config=` for a ConfigMap the base's own files do not define is an error until the base
    declares it (a `configMapGenerator` entry with
    `behavior: merge` for one of theirs, without for a new one).

    Attributes:
        name: The app's name.
        project: Its project.
        namespace: The namespace it deploys into (kustomize rewrites every object's); None: the
            manifests say where each object goes (several namespaces, cluster-scoped objects;
            always None with `source`). For a plain directory, Argo CD's destination namespace
            and Flux's targetNamespace: its manifests may name no other namespace.
        path: Its kustomize base, relative to the folder holding fleet.py, or there a plain
            directory of manifests (no kustomization.yaml), read as it is without overlay:
            Argo CD as a directory source with recurse, Flux through kustomize-controller's
            generated kustomization, both every .yaml and .yml file in it and its folders (a
            file only one reads, a folder holding a kustomization, and overlay settings at any
            layer are spec errors); with `source`, the directory in that source (relative to
            its root; None: the root, a `ClusterVar`: one per cluster), which a layer's
            `Overrides(path=...)` replaces there. None without `chart` or `source`: a
            kustomize app without a base of its own, which deploys what its layers add
            (`Overrides(resources=...)`; folders that build on a base themselves, such as the
            overlay folders `fleetgen import` keeps): every cluster it runs on must get one.
        chart: The Helm chart it installs, instead of a kustomize base (path).
        source: Another Git repository or an OCI artifact holding its manifests: no overlay, so
            only settings that need none (sync, ignore_differences, depends_on, labels, and
            path per layer).
        targets: The clusters it runs on; default: every cluster.
        per_env: Environment name → settings there.
        per_label: 'key=value' of a cluster label → settings on the clusters that have it
            (between per_env and per_cluster).
        per_cluster: Cluster name → settings there (deepest layer).
        ignore_differences: Fields the engines must not treat as drift.
        secrets: Secrets produced by External Secrets from a store.
        depends_on: Apps that must be healthy on a cluster before this one syncs there (Flux,
            across kinds: a chart app's health at each revision through a gate, see FluxOptions;
            a chart app waits through a Kustomization of its own; Argo CD: no order, a warning).
        labels: Labels on the generated Application and Flux Kustomization.
        annotations: Annotations on the generated Application and Flux Kustomization.
        waivers: Rules of validate silenced for this app, each with its reason.
        engine: The engine of all its placements (wins over the cluster's and environment's).
        cascade_delete: Removing one of its placements deletes its workloads (True) or orphans
            them (False); None: the environment's, else the fleet's.
        notify: Who hears about what of its placements, added to its environment's (`Notify`).
    """

    name: Name
    project: Name
    namespace: Name | None
    path: SourcePath | None = None
    chart: HelmChart | None = None
    source: RemoteSource | None = None
    targets: Selector = Field(default_factory=Selector)
    per_env: dict[str, Overrides] = {}
    per_label: dict[LabelSelection, Overrides] = {}
    per_cluster: dict[str, Overrides] = {}
    ignore_differences: list[IgnoreDifference] = []
    secrets: list[AppSecret] = []
    depends_on: list[Name] = []
    labels: dict[LabelKey, LabelValue] = {}
    annotations: Annotations = {}
    waivers: list[Waiver] = []
    engine: Engine | None = None  # of all its placements (not an Overrides field)
    cascade_delete: bool | None = None
    notify: list[Notify] = []

    @field_validator("namespace", mode="before")
    @classmethod
    def _namespace(cls, value: object) -> object:
        if isinstance(value, ClusterVar):
            raise ValueError(
                "namespace=ClusterVar(...): App.namespace is the app's one namespace (its "
                "project's, where a tenant's account lives, what the release name checks "
                "compare); for a namespace per cluster set it in a layer: "
                "per_env={ENV: Overrides(namespace=ClusterVar(...))}"
            )
        return value

    @model_validator(mode="after")
    def _source(self) -> App:
        if self.source is not None:
            if self.chart is not None:
                raise ValueError("an app has one of chart= and source=, not both")
            return self
        if isinstance(self.path, ClusterVar):
            raise ValueError(
                "path=ClusterVar(...) chooses a directory per cluster in another source "
                "(source=GitSource(...) or OciSource(...)); a base in this repository is one "
                "path for every cluster"
            )
        if self.path is not None and self.chart is not None:
            raise ValueError(
                "an app has exactly one of path= (a kustomize base in this repository) and "
                "chart=HelmChart(...); this one sets both"
            )
        if self.path is None and self.chart is None and not self.layered_only:
            raise ValueError(
                "an app has one of path= (a kustomize base in this repository) and "
                "chart=HelmChart(...), or layers that add the folders it deploys "
                "(Overrides(resources=[...])); this one has none of them"
            )
        return self

    @property
    def kustomize(self) -> bool:
        """Whether it is built by kustomize in overlays: a base in this repository (or a plain
        directory there), or only what its layers add; not a chart or another source."""
        return self.chart is None and self.source is None

    @property
    def layered_only(self) -> bool:
        """Whether it is a kustomize app without a base: its layers add all it deploys."""
        return (
            self.path is None
            and self.kustomize
            and any(layer.resources for layer in overrides_of(self))
        )

    @property
    def base_path(self) -> str | None:
        """A kustomize app's base (``path`` as written), None for a chart or another source."""
        return self.path if isinstance(self.path, str) and self.source is None else None

    @property
    def release_name(self) -> str | None:
        """A chart app's Helm release name: `HelmChart.release_name`, else the app's name
        (None for other apps)."""
        if self.chart is None:
            return None
        return self.chart.release_name or self.name


def overrides_of(app: App) -> list[Overrides]:
    """The layers of ``app`` below it: its per_env, per_label and per_cluster Overrides."""
    return [*app.per_env.values(), *app.per_label.values(), *app.per_cluster.values()]


def layer_inputs(app: App) -> list[str]:
    """The repo paths (normalized, each once, in layer order) that the layers of ``app`` add to
    its overlays: ``Overrides(resources=..., components=...)``."""
    paths = (path for layer in overrides_of(app) for path in (*layer.resources, *layer.components))
    return list(dict.fromkeys(map(repo_path, paths)))


def values_files(app: App) -> list[str]:
    """The Helm values files (repo paths, normalized, each once) a chart ``app`` reads: its
    HelmChart's and its layers' ``values_files``."""
    chart = app.chart.values_files if app.chart is not None else []
    paths = [*chart, *(path for layer in overrides_of(app) for path in layer.values_files)]
    return list(dict.fromkeys(map(repo_path, paths)))
