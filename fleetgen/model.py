"""The spec: typed, frozen models that a fleet.py builds. No I/O, no cross-references here."""

from __future__ import annotations

import base64
import binascii
import os
import posixpath
import re
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pydantic
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from fleetgen.fields import (
    Annotations,
    ChartRepo,
    ChartVersion,
    ConfigKey,
    Duration,
    GitURL,
    HelmValues,
    LabelKey,
    Labels,
    LabelValue,
    Name,
    ObjectName,
    ServerURL,
    Version,
    release,
)

_SKIP_DIRS = (os.path.dirname(pydantic.__file__), os.path.dirname(__file__))
_PERCENT = re.compile(r"[0-9]{1,3}%")
_DIGEST = re.compile(r"sha256:[a-f0-9]{64}")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+")


def _caller() -> tuple[str, int]:
    """File and line of the nearest frame outside pydantic and fleetgen: the user's call."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_SKIP_DIRS):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None or frame.f_code.co_filename.startswith("<frozen"):
        return ("", 0)  # built while importing fleetgen: no user call to point at
    return (frame.f_code.co_filename, frame.f_lineno)


class Spec(BaseModel):
    """Base of every spec model: frozen, unknown fields refused, remembers where it was built."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    _origin: tuple[str, int] = PrivateAttr(default=("", 0))

    def __init__(self, /, *args: Any, **data: Any) -> None:
        if args:
            name = type(self).__name__
            raise TypeError(f"{name} takes keyword arguments only (got {len(args)} positional "
                            f"argument{'s' if len(args) > 1 else ''}); write {name}(name=..., ...)")
        super().__init__(**data)

    def model_post_init(self, context: Any, /) -> None:
        self._origin = _caller()

    @property
    def origin(self) -> tuple[str, int]:
        """(file, line) of the constructor call that built this object."""
        return self._origin


class Retry(Spec):
    """Sync retry with exponential backoff."""

    limit: int = Field(default=5, ge=-1)
    backoff_duration: Duration = "5s"
    backoff_factor: int = Field(default=2, ge=1)
    backoff_max_duration: Duration = "3m"


class SyncPolicy(Spec):
    """How an engine syncs: deeper layers override only the fields they set."""

    automated: bool = False
    prune: bool = False
    self_heal: bool = False
    allow_empty: bool = False
    sync_options: list[str] = []
    retry: Retry | None = None


class Step(Spec):
    """One rollout step: the clusters matching ``match_labels`` (all remaining when empty)."""

    match_labels: Labels = {}
    max_update: int | str = "100%"

    @field_validator("max_update")
    @classmethod
    def _max_update(cls, value: int | str) -> int | str:
        if isinstance(value, int):
            if value < 1:
                raise ValueError("max_update must be at least 1")
        elif not _PERCENT.fullmatch(value) or not 1 <= int(value[:-1]) <= 100:
            raise ValueError(f"max_update {value!r} must be an int or a percentage like '25%'")
        return value


class Rollout(Spec):
    """Ordered steps (canary rings first) that an environment's changes roll through."""

    steps: list[Step] = Field(min_length=1)


class Environment(Spec):
    """A stage such as dev, staging or prod; every cluster belongs to exactly one."""

    name: Name
    sync: SyncPolicy = Field(default_factory=SyncPolicy)
    rollout: Rollout | None = None
    production: bool | None = None
    common_labels: Labels = {}
    common_annotations: Annotations = {}

    @property
    def is_production(self) -> bool:
        """Explicit ``production``, else True for environments named prod or production."""
        if self.production is not None:
            return self.production
        return self.name in ("prod", "production")


class ExternalSecretRef(Spec):
    """Credentials kept in a secret store, pulled by External Secrets Operator.

    For a cluster, the store entry ``key`` holds Argo CD's cluster config JSON (in ``property``
    when set, else the whole entry); a Flux hub reads the spoke's kubeconfig from the entry's
    ``kubeconfig`` property. In Fleet.default_credentials, ``key`` may use ``{cluster}``, ``{env}``.
    """

    store: ObjectName
    key: str = Field(min_length=1)
    store_kind: Literal["SecretStore", "ClusterSecretStore"] = "ClusterSecretStore"
    property: str | None = None


class AwsAuth(Spec):
    """EKS access through an IAM role (IRSA / Pod Identity): no secret material."""

    cluster_name: str = Field(min_length=1)
    role_arn: str

    @field_validator("role_arn")
    @classmethod
    def _arn(cls, value: str) -> str:
        if not _ROLE_ARN.fullmatch(value):
            raise ValueError(f"{value!r} is not an IAM role ARN (arn:aws:iam::123456789012:role/x)")
        return value


class ExecAuth(Spec):
    """Workload identity through an exec plugin, e.g. ``argocd-k8s-auth gcp``."""

    command: str = "argocd-k8s-auth"
    args: list[str] = ["gcp"]
    env: dict[str, str] = {}
    api_version: str = "client.authentication.k8s.io/v1beta1"


Credentials = ExternalSecretRef | AwsAuth | ExecAuth


class Cluster(Spec):
    """A Kubernetes cluster of the fleet."""

    name: Name
    env: Name
    server: ServerURL
    labels: Labels = {}
    annotations: Annotations = {}
    credentials: Credentials | None = None
    ca_data: str | None = None  # base64 PEM CA bundle (public), for IAM/exec credentials

    @field_validator("ca_data")
    @classmethod
    def _ca_data(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            pem = base64.b64decode(value, validate=True).decode("ascii")
        except (binascii.Error, UnicodeDecodeError):
            raise ValueError("ca_data must be the base64 encoding of a PEM CA bundle") from None
        blocks = re.findall(r"-----BEGIN ([A-Z0-9 ]+)-----", pem)
        if not blocks or set(blocks) != {"CERTIFICATE"}:
            raise ValueError("ca_data must hold only PEM CERTIFICATE blocks (a CA bundle is "
                             "public; keys never belong in the spec)")
        return value


class Destination(Spec):
    """An AppProject destination: a server (or '*') and a namespace (or a glob)."""

    server: str
    namespace: str


class Role(Spec):
    """An AppProject role."""

    name: Name
    description: str = ""
    policies: list[str] = []
    groups: list[str] = []


class SyncWindow(Spec):
    """An AppProject sync window."""

    kind: Literal["allow", "deny"]
    schedule: str = Field(min_length=1)
    duration: Duration = "1h"
    applications: list[str] = []
    clusters: list[str] = []
    namespaces: list[str] = []
    manual_sync: bool = False
    time_zone: str = "UTC"


class Project(Spec):
    """A project boundary: which repos, namespaces and resource kinds its apps may use."""

    name: Name
    description: str = ""
    namespaces: list[str] = []
    source_repos: list[str] = []
    destinations: list[Destination] | None = None
    cluster_resources: list[tuple[str, str]] = []
    namespace_resources_deny: list[tuple[str, str]] = []
    roles: list[Role] = []
    sync_windows: list[SyncWindow] = []
    # Tenant impersonation: the engines apply this project's apps as this ServiceAccount (Flux:
    # serviceAccountName, in the Flux namespace of each cluster; Argo CD: the project's
    # destinationServiceAccounts, in each destination namespace, with impersonation enabled).
    service_account: Name | None = None


class Expr(Spec):
    """A label selector expression with Kubernetes semantics."""

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
    """Which clusters an app runs on; all conditions are ANDed."""

    envs: list[Name] | None = None
    clusters: list[Name] | None = None
    match_labels: Labels = {}
    match_expressions: list[Expr] = []
    exclude: list[Name] = []


class Image(Spec):
    """A kustomize image override; ``name`` is the image as written in the base."""

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


_PATCH_TARGET_KEYS = {"group", "version", "kind", "name", "namespace", "labelSelector",
                      "annotationSelector"}


class Patch(Spec):
    """A kustomize patch: a dict is a strategic-merge patch, a list is JSON6902."""

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


class IgnoreDifference(Spec):
    """Fields the engines must not treat as drift (e.g. /spec/replicas under an HPA)."""

    group: str = ""
    kind: str
    name: str | None = None
    namespace: str | None = None
    json_pointers: list[str] = []
    jq_path_expressions: list[str] = []
    managed_fields_managers: list[str] = []


class AppSecret(Spec):
    """A Secret for the app, produced by an ExternalSecret; ``data`` maps key → 'remote#prop'."""

    name: ObjectName
    store: ObjectName
    data: dict[ConfigKey, str] = Field(min_length=1)
    store_kind: Literal["SecretStore", "ClusterSecretStore"] = "ClusterSecretStore"
    refresh_interval: Duration = "1h"


class Layer(Spec):
    """Settings any layer may give: app level, ``per_env`` and ``per_cluster``."""

    replicas: dict[ObjectName, int] = {}
    images: list[Image] = []
    config: dict[ObjectName, dict[ConfigKey, str]] = {}
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
    """The settings of one environment or cluster for an app; deeper layers win."""

    chart_version: ChartVersion | None = None  # chart apps only: pins the chart version here


_CHART_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class HelmChart(Spec):
    """A Helm chart: ``repo`` (``https://`` Helm repository or ``oci://`` registry path) with
    ``name`` and a pinned ``version``, or ``path``, a chart kept in this repository (its
    Chart.yaml names it and gives its version)."""

    repo: ChartRepo | None = None
    name: str | None = None
    version: ChartVersion | None = None
    path: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _source(self) -> HelmChart:
        remote = {"repo": self.repo, "name": self.name, "version": self.version}
        if self.path is not None:
            given = [key for key, value in remote.items() if value is not None]
            if given:
                raise ValueError(f"a chart kept in the repository (path=) takes its name and "
                                 f"version from its Chart.yaml; drop {', '.join(given)}")
            return self
        missing = [key for key, value in remote.items() if value is None]
        if missing:
            raise ValueError(f"a chart needs repo=, name= and a pinned version= (missing "
                             f"{', '.join(missing)}), or path= for a chart kept in the "
                             "repository")
        assert self.name is not None
        if not _CHART_NAME.fullmatch(self.name):
            raise ValueError(f"chart name {self.name!r} is not a chart name")
        return self


class App(Layer):
    """An application: a user-owned kustomize base (``path``) or a Helm chart (``chart``),
    placed on the clusters its targets select."""

    name: Name
    project: Name
    namespace: Name
    path: str | None = Field(default=None, min_length=1)
    chart: HelmChart | None = None
    targets: Selector = Field(default_factory=Selector)
    per_env: dict[str, Overrides] = {}
    per_cluster: dict[str, Overrides] = {}
    ignore_differences: list[IgnoreDifference] = []
    secrets: list[AppSecret] = []
    depends_on: list[Name] = []
    labels: dict[LabelKey, LabelValue] = {}
    annotations: Annotations = {}

    @model_validator(mode="after")
    def _source(self) -> App:
        if (self.path is None) == (self.chart is None):
            which = "neither" if self.path is None else "both"
            raise ValueError(f"an app has exactly one of path= (a kustomize base in this "
                             f"repository) and chart=HelmChart(...); this one sets {which}")
        return self


# The oldest controller releases their projects still support (their three newest minors).
ARGOCD_FLOOR, FLUX_FLOOR = "3.3", "2.7"


def _at_least(floor: str, project: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if release(value) < release(floor):
            raise ValueError(f"{project} {value} is no longer supported by its project; "
                             f"fleetgen's output needs {project} >= {floor}")
        return value
    return check


class ArgoOptions(Spec):
    """Argo CD settings. ``min_version``: the oldest Argo CD the output must work on."""

    namespace: Name = "argocd"
    min_version: Annotated[Version, AfterValidator(_at_least(ARGOCD_FLOOR, "Argo CD"))] = (
        ARGOCD_FLOOR)


class GitSource(Spec):
    """A Git repository Flux reads the output from, when it is not the bootstrap repository."""

    url: GitURL
    branch: str = "main"
    secret_ref: ObjectName | None = None


class FluxOptions(Spec):
    """Flux settings. ``min_version``: the oldest Flux the output must work on."""

    mode: Literal["per-cluster", "hub"] = "per-cluster"
    hub: Name | None = None
    namespace: Name = "flux-system"
    interval: Duration = "10m"
    source: GitSource | None = None
    min_version: Annotated[Version, AfterValidator(_at_least(FLUX_FLOOR, "Flux"))] = FLUX_FLOOR


class Fleet(Spec):
    """The whole fleet: the single source of truth that ``fleetgen build`` compiles."""

    name: Name
    repo: GitURL
    revision: str = "main"
    engines: list[Literal["argocd", "flux"]] = ["argocd", "flux"]
    environments: list[Environment] = Field(min_length=1)
    clusters: list[Cluster] = []
    projects: list[Project] = []
    apps: list[App] = []
    argocd: ArgoOptions = Field(default_factory=ArgoOptions)
    flux: FluxOptions = Field(default_factory=FluxOptions)
    default_credentials: Credentials | None = None
    cascade_delete: bool = False
    output_dir: str = "output"
    sync: SyncPolicy = Field(default_factory=SyncPolicy)
    common_labels: Labels = {}
    common_annotations: Annotations = {}

    @field_validator("output_dir")
    @classmethod
    def _output_dir(cls, value: str) -> str:
        normal = posixpath.normpath(value.replace("\\", "/"))
        if posixpath.isabs(normal) or normal == "." or normal.startswith(".."):
            raise ValueError(f"{value!r} must be a relative path inside the repository "
                             "(the directory holding fleet.py)")
        return normal


__all__ = [
    "App", "AppSecret", "ArgoOptions", "AwsAuth", "Cluster", "Destination", "Environment",
    "ExecAuth", "Expr", "ExternalSecretRef", "Fleet", "FluxOptions", "GitSource",
    "HelmChart", "IgnoreDifference", "Image", "Layer", "Overrides", "Patch", "Project", "Retry",
    "Role", "Rollout", "Selector", "Spec", "Step", "SyncPolicy", "SyncWindow",
]
