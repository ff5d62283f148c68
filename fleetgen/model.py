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
    ROLE_ARN,
    Annotations,
    ChartRepo,
    ChartVersion,
    ConfigKey,
    Duration,
    FluxDuration,
    GitURL,
    HelmValues,
    LabelKey,
    Labels,
    LabelValue,
    Name,
    NamespacePattern,
    ObjectName,
    OciURL,
    ServerURL,
    Version,
    label_key,
    label_value,
    release,
    repo_path,
)
from fleetgen.policy import Severity, configurable_problem

_SKIP_DIRS = (os.path.dirname(pydantic.__file__), os.path.dirname(__file__))
_PERCENT = re.compile(r"[0-9]{1,3}%")
_DIGEST = re.compile(r"sha256:[a-f0-9]{64}")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
IN_CLUSTER = "https://kubernetes.default.svc"  # the API server, seen from inside the cluster
CREATE_NAMESPACE = "CreateNamespace"  # Argo CD's sync option, owned by Fleet.create_namespaces

Engine = Literal["argocd", "flux"]  # what reconciles a placement (exactly one per placement)


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
            raise TypeError(
                f"{name} takes keyword arguments only (got {len(args)} positional "
                f"argument{'s' if len(args) > 1 else ''}); write {name}(name=..., ...)"
            )
        super().__init__(**data)

    def model_post_init(self, context: Any, /) -> None:
        self._origin = _caller()

    @property
    def origin(self) -> tuple[str, int]:
        """(file, line) of the constructor call that built this object."""
        return self._origin


class Retry(Spec):
    """Sync retry with exponential backoff.

    Attributes:
        limit: Retries after a failed sync (Argo CD: -1 retries forever; 0 none).
        backoff_duration: Wait before the first retry.
        backoff_factor: Each wait is the previous one times this.
        backoff_max_duration: The longest wait; Flux retries at this fixed interval.
    """

    limit: int = Field(default=5, ge=-1)
    backoff_duration: Duration = "5s"
    backoff_factor: int = Field(default=2, ge=1)
    backoff_max_duration: Duration = "3m"


class SyncPolicy(Spec):
    """How an engine syncs: deeper layers override only the fields they set.

    Attributes:
        automated: Sync every merged change by itself (Flux: else the Kustomization is suspended).
        prune: Delete objects that left the manifests.
        self_heal: Revert changes made on the cluster (Argo CD; Flux always does).
        allow_empty: Argo CD: let an automated sync prune an app down to nothing.
        sync_options: Argo CD sync options such as 'ServerSideApply=true'.
        retry: Retry failed syncs; None: the engine's default.
        interval: Flux: how often it reconciles; None: FluxOptions.interval (Argo CD has none).
        timeout: Flux: how long an apply (with wait, the health check) may take; None: the
            engine's default (Kustomization: its interval less 30s; HelmRelease: 5m).
        retry_interval: Flux Kustomization: how soon a failed reconciliation is retried; None:
            the retry's backoff_max_duration, else the interval.
        wait: Flux: wait for the applied objects to be healthy (Kustomization wait; HelmRelease
            install/upgrade wait), which depends_on relies on.
    """

    automated: bool = False
    prune: bool = False
    self_heal: bool = False
    allow_empty: bool = False
    sync_options: list[str] = []
    retry: Retry | None = None
    interval: FluxDuration | None = None
    timeout: FluxDuration | None = None
    retry_interval: FluxDuration | None = None
    wait: bool = True

    @field_validator("sync_options")
    @classmethod
    def _sync_options(cls, value: list[str]) -> list[str]:
        for option in value:
            if option.partition("=")[0] == CREATE_NAMESPACE:
                raise ValueError(
                    f"sync option {option!r}: remove it; namespace creation is "
                    "one switch for both engines, Fleet(create_namespaces=True) "
                    "(the default) or False for namespaces provisioned elsewhere"
                )
        return value


class Step(Spec):
    """One rollout step: the clusters matching ``match_labels`` (all remaining when empty).

    Attributes:
        match_labels: Cluster labels this step takes; empty: the environment's remaining clusters.
        max_update: How many of the step's clusters update at once: an int or a percentage like
            '25%'.
    """

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
    """Ordered steps (canary rings first) that an environment's changes roll through.

    Attributes:
        steps: The steps, in order; a step starts when the previous one is healthy.
    """

    steps: list[Step] = Field(min_length=1)


def _rule_id(rule: str) -> str:
    problem = configurable_problem(rule)
    if problem is not None:
        raise ValueError(problem)
    return rule


RuleId = Annotated[str, AfterValidator(_rule_id)]


class Policy(Spec):
    """Severities of validate's rules by id ("error", "warning" or "off"); others keep their
    defaults.

    Attributes:
        rules: Rule id → severity (see docs/validate.md for the rules and their defaults).
    """

    rules: dict[RuleId, Severity] = {}


class Waiver(Spec):
    """Silences one rule for one app; ``reason`` is printed with every report.

    Attributes:
        rule: The id of the rule to silence.
        reason: Why, printed with every validate report.
    """

    rule: RuleId
    reason: str = Field(min_length=1)


class Environment(Spec):
    """A stage such as dev, staging or prod; every cluster belongs to exactly one.

    Attributes:
        name: The environment's name; clusters refer to it in `env`.
        sync: Sync settings of its placements (layered over the fleet's).
        rollout: Roll changes through its clusters in steps; None: all at once.
        production: Changes here are flagged first by `diff`; None: True for 'prod' and
            'production'.
        common_labels: Labels put on every object its placements deploy.
        common_annotations: Annotations put on every object its placements deploy.
        policy: Severities of validate's rules here (over the fleet's, rule by rule).
        engine: The engine of its placements, unless a cluster or an app names one.
    """

    name: Name
    sync: SyncPolicy = Field(default_factory=SyncPolicy)
    rollout: Rollout | None = None
    production: bool | None = None
    policy: Policy | None = None
    common_labels: Labels = {}
    common_annotations: Annotations = {}
    engine: Engine | None = None  # of its clusters' placements, unless the cluster or app says

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

    Attributes:
        store: The (Cluster)SecretStore to read from.
        key: The store entry ({cluster}, {env} are filled in for default_credentials).
        store_kind: SecretStore or ClusterSecretStore.
        property: The entry's property holding the cluster config; None: the whole entry.
    """

    store: ObjectName
    key: str = Field(min_length=1)
    store_kind: Literal["SecretStore", "ClusterSecretStore"] = "ClusterSecretStore"
    property: str | None = None


class AwsAuth(Spec):
    """EKS access through an IAM role (IRSA / Pod Identity): no secret material.

    Attributes:
        cluster_name: The EKS cluster's name.
        role_arn: The IAM role Argo CD assumes, arn:aws:iam::ACCOUNT:role/NAME.
    """

    cluster_name: str = Field(min_length=1)
    role_arn: str

    @field_validator("role_arn")
    @classmethod
    def _arn(cls, value: str) -> str:
        if not ROLE_ARN.fullmatch(value):
            raise ValueError(f"{value!r} is not an IAM role ARN (arn:aws:iam::123456789012:role/x)")
        return value


class ExecAuth(Spec):
    """Workload identity through an exec plugin, e.g. ``argocd-k8s-auth gcp``.

    Attributes:
        command: The credential plugin to run.
        args: Its arguments, e.g. ['gcp'] or ['azure'].
        env: Environment variables for it.
        api_version: The client.authentication.k8s.io version it speaks.
    """

    command: str = "argocd-k8s-auth"
    args: list[str] = ["gcp"]
    env: dict[str, str] = {}
    api_version: str = "client.authentication.k8s.io/v1beta1"


Credentials = ExternalSecretRef | AwsAuth | ExecAuth


class Cluster(Spec):
    """A Kubernetes cluster of the fleet.

    Attributes:
        name: The cluster's name, used in `Selector`, `per_cluster` and output paths.
        env: The environment it belongs to.
        server: Its API server URL, https://host[:port].
        labels: Labels that selectors and rollout steps match.
        annotations: Extra metadata on its registration (values too long for labels).
        credentials: How the engines reach it; None: the fleet's `default_credentials`.
        ca_data: Base64 PEM CA bundle (public), which Argo CD verifies the API server against;
            required with `AwsAuth` and `ExecAuth` when an app is placed on it with Argo CD.
        engine: The engine of the apps placed on it, unless an app names one.
        insecure: With `AwsAuth`/`ExecAuth` and no `ca_data`: Argo CD skips verifying the API
            server's certificate (warned about).
        registration: 'fleetgen': fleetgen writes its Argo CD cluster Secret; 'external': another
            tool (Terraform, Cluster API) owns it and must give it the labels output/README.md
            lists (no credentials here then).
    """

    name: Name
    env: Name
    server: ServerURL
    labels: Labels = {}
    annotations: Annotations = {}
    credentials: Credentials | None = None
    ca_data: str | None = None  # base64 PEM CA bundle (public), for IAM/exec credentials
    engine: Engine | None = None  # of the placements on it, unless the app says
    insecure: bool = False  # IAM/exec credentials: skip verifying the API server's certificate
    registration: Literal["fleetgen", "external"] = "fleetgen"  # who owns its Argo CD Secret

    @property
    def in_cluster(self) -> bool:
        """Whether it is the cluster Argo CD runs on, which Argo CD reaches with its own
        ServiceAccount (``Cluster.RawRestConfig``: in-cluster config for this server)."""
        return self.server.rstrip("/") == IN_CLUSTER

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
            raise ValueError(
                "ca_data must hold only PEM CERTIFICATE blocks (a CA bundle is "
                "public; keys never belong in the spec)"
            )
        return value


class Destination(Spec):
    """An AppProject destination: a server (or '*') and a namespace (or a glob).

    Attributes:
        server: An API server URL, or '*'.
        namespace: A namespace, or a glob such as 'team-*'.
    """

    server: str
    namespace: str


class Role(Spec):
    """An AppProject role.

    Attributes:
        name: The role's name.
        description: What it is for.
        policies: Argo CD RBAC policy lines ('p, proj:NAME:ROLE, applications, get, ...').
        groups: SSO groups that hold the role.
    """

    name: Name
    description: str = ""
    policies: list[str] = []
    groups: list[str] = []


class SyncWindow(Spec):
    """An AppProject sync window.

    Attributes:
        kind: 'allow' syncs only inside the window; 'deny' never inside it.
        schedule: When the window opens, as a cron expression.
        duration: How long it stays open.
        applications: App names (or Argo CD globs) it applies to.
        clusters: Cluster names (or globs) it applies to.
        namespaces: Namespaces (or globs) it applies to.
        manual_sync: Allow manual syncs while the window blocks automatic ones.
        time_zone: The time zone of `schedule`.
    """

    kind: Literal["allow", "deny"]
    schedule: str = Field(min_length=1)
    duration: Duration = "1h"
    applications: list[str] = []
    clusters: list[str] = []
    namespaces: list[str] = []
    manual_sync: bool = False
    time_zone: str = "UTC"


class NamespaceMeta(Spec):
    """Labels and annotations of a namespace the engines create (tenancy labels, pod-security
    levels): on Flux's Namespace object and through Argo CD's managedNamespaceMetadata.

    Attributes:
        labels: Labels of the namespace.
        annotations: Annotations of the namespace.
    """

    labels: Labels = {}
    annotations: Annotations = {}


class Project(Spec):
    """A project boundary: which repos, namespaces and resource kinds its apps may use.

    Attributes:
        name: The project's name; apps refer to it in `project`.
        description: What it is for.
        namespaces: Namespaces (or globs) its apps may deploy into.
        source_repos: Repositories its apps may read; empty: the fleet's `repo`.
        destinations: AppProject destinations; None: exactly where its apps are placed.
        cluster_resources: (group, kind) of cluster-scoped objects its apps may create.
        namespace_resources_deny: (group, kind) of namespaced objects its apps may not create.
        roles: AppProject roles.
        sync_windows: When its apps may sync.
        service_account: Apply its apps as this ServiceAccount (tenant impersonation), which
            fleetgen creates and binds to ClusterRole admin in the namespaces of the project's
            apps on each cluster, and nowhere else; None: as the controller.
        namespace_metadata: Namespace → its labels and annotations, declared once per namespace
            (on the project that owns it); needs Fleet(create_namespaces=True).
    """

    name: Name
    description: str = ""
    namespaces: list[NamespacePattern] = []
    source_repos: list[str] = []
    destinations: list[Destination] | None = None
    cluster_resources: list[tuple[str, str]] = []
    namespace_resources_deny: list[tuple[str, str]] = []
    roles: list[Role] = []
    sync_windows: list[SyncWindow] = []
    # Tenant impersonation: the engines apply this project's apps as this ServiceAccount (Flux:
    # serviceAccountName, in the Kustomization's namespace: the Flux namespace, or a hub's spoke
    # namespace; Argo CD: the project's destinationServiceAccounts, in each destination
    # namespace, with impersonation enabled). fleetgen emits the accounts and RoleBindings.
    service_account: Name | None = None
    namespace_metadata: dict[Name, NamespaceMeta] = {}


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
            False: exactly the clusters fleet.py knows, by name.
    """

    envs: list[Name] | None = None
    clusters: list[Name] | None = None
    match_labels: Labels = {}
    match_expressions: list[Expr] = []
    exclude: list[Name] = []
    runtime: bool = False  # label selection by the ApplicationSet controller at run time


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


class Layer(Spec):
    """Settings any layer may give: app level, ``per_env`` and ``per_cluster``.

    Attributes:
        replicas: Workload name → replica count.
        images: Image overrides.
        config: ConfigMap name → key → value, merged into the base's ConfigMap of that name.
        patches: Kustomize patches, appended in layer order.
        common_labels: Labels put on every object, merged by key.
        common_annotations: Annotations put on every object, merged by key.
        sync: Sync settings; a deeper layer overrides only the fields it sets.
        values: Chart apps only: Helm values, merged like Helm's chained values files (None
            removes a key, the chart's default included).
    """

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
    """The settings of one environment or cluster for an app; deeper layers win.

    Attributes:
        chart_version: Chart apps only: the chart version here (pinned), instead of the app's.
    """

    chart_version: ChartVersion | None = None  # chart apps only: pins the chart version here


_CHART_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class HelmChart(Spec):
    """A Helm chart: ``repo`` (``https://`` Helm repository or ``oci://`` registry path) with
    ``name`` and a pinned ``version``, or ``path``, a chart kept in this repository (its
    Chart.yaml names it and gives its version).

    Attributes:
        repo: The https:// Helm repository or oci:// registry path of the chart.
        name: The chart's name in that repository.
        version: The exact chart version (pinned, SemVer).
        path: A chart kept in this repository, relative to the folder holding fleet.py.
    """

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
                raise ValueError(
                    f"a chart kept in the repository (path=) takes its name and "
                    f"version from its Chart.yaml; drop {', '.join(given)}"
                )
            return self
        missing = [key for key, value in remote.items() if value is None]
        if missing:
            raise ValueError(
                f"a chart needs repo=, name= and a pinned version= (missing "
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

    Attributes:
        name: The app's name.
        project: Its project.
        namespace: The namespace it deploys into (kustomize rewrites every object's); None: the
            manifests say where each object goes (several namespaces, cluster-scoped objects;
            always None with `source`).
        path: Its kustomize base, relative to the folder holding fleet.py; with `source`, the
            directory in that source (relative to its root; None: the root).
        chart: The Helm chart it installs, instead of a kustomize base (path).
        source: Another Git repository or an OCI artifact holding its manifests: no overlay, so
            only settings that need none (sync, ignore_differences, depends_on, labels).
        targets: The clusters it runs on; default: every cluster.
        per_env: Environment name → settings there.
        per_label: 'key=value' of a cluster label → settings on the clusters that have it
            (between per_env and per_cluster).
        per_cluster: Cluster name → settings there (deepest layer).
        ignore_differences: Fields the engines must not treat as drift.
        secrets: Secrets produced by External Secrets from a store.
        depends_on: Apps that must be healthy on a cluster before this one syncs there.
        labels: Labels on the generated Application and Flux Kustomization.
        annotations: Annotations on the generated Application and Flux Kustomization.
        waivers: Rules of validate silenced for this app, each with its reason.
        engine: The engine of all its placements (wins over the cluster's and environment's).
    """

    name: Name
    project: Name
    namespace: Name | None
    path: str | None = Field(default=None, min_length=1)
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

    @model_validator(mode="after")
    def _source(self) -> App:
        if self.source is not None:
            if self.chart is not None:
                raise ValueError("an app has one of chart= and source=, not both")
            return self
        if (self.path is None) == (self.chart is None):
            which = "neither" if self.path is None else "both"
            raise ValueError(
                f"an app has exactly one of path= (a kustomize base in this "
                f"repository) and chart=HelmChart(...); this one sets {which}"
            )
        return self


# The oldest controller releases their projects still support (their three newest minors).
ARGOCD_FLOOR, FLUX_FLOOR = "3.3", "2.7"


def _at_least(floor: str, project: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if release(value) < release(floor):
            raise ValueError(
                f"{project} {value} is no longer supported by its project; "
                f"fleetgen's output needs {project} >= {floor}"
            )
        return value

    return check


class ArgoOptions(Spec):
    """Argo CD settings.

    Attributes:
        namespace: The namespace Argo CD runs in.
        min_version: The oldest Argo CD release the output must work on.
    """

    namespace: Name = "argocd"
    min_version: Annotated[Version, AfterValidator(_at_least(ARGOCD_FLOOR, "Argo CD"))] = (
        ARGOCD_FLOOR
    )


class FluxOptions(Spec):
    """Flux settings.

    Attributes:
        mode: 'per-cluster': each cluster runs Flux; 'hub': the `hub` cluster's Flux applies to
            all, a spoke's apps once the namespaces fleetgen creates there exist (a tenant's chart
            app, which cannot wait for them, is refused until then and retried with backoff).
        hub: The hub cluster (mode 'hub').
        namespace: The namespace Flux runs in.
        interval: How often Flux reconciles each Kustomization.
        source: The repository to read output/ from; None: the one `flux bootstrap` created.
        min_version: The oldest Flux release the output must work on.
        source_per_namespace: Hub mode: a GitRepository of `source` in each spoke namespace, for
            hubs locked down with --no-cross-namespace-refs (its `secret_ref` must exist in each);
            False: every Kustomization reads the one in `namespace`, across namespaces.
    """

    mode: Literal["per-cluster", "hub"] = "per-cluster"
    hub: Name | None = None
    namespace: Name = "flux-system"
    interval: Duration = "10m"
    source: GitSource | None = None
    min_version: Annotated[Version, AfterValidator(_at_least(FLUX_FLOOR, "Flux"))] = FLUX_FLOOR
    source_per_namespace: bool = False  # hub mode: a source in each spoke namespace


class Fleet(Spec):
    """The whole fleet: the single source of truth that ``fleetgen build`` compiles.

    Attributes:
        name: The fleet's name.
        repo: The Git repository that holds output/, which the engines read.
        revision: The branch or revision of `repo` the engines read.
        engines: The engines to emit for.
        environments: The environments, at least one.
        clusters: The clusters.
        projects: The project boundaries.
        apps: The apps.
        argocd: Argo CD settings.
        flux: Flux settings.
        default_credentials: Credentials of clusters that set none ({cluster}, {env} are filled in).
        cascade_delete: Removing an app or cluster deletes its workloads; False: they are orphaned.
        create_namespaces: Both engines create the apps' namespaces (Argo CD CreateNamespace=true,
            Flux Namespace objects); False: they are provisioned elsewhere.
        output_dir: Where the output goes, relative to the folder holding fleet.py.
        sync: Sync settings of every placement (the shallowest layer).
        common_labels: Labels put on every object every placement deploys.
        common_annotations: Annotations put on every object every placement deploys.
        policy: Severities of validate's rules for the whole fleet.
    """

    name: Name
    repo: GitURL
    revision: str = "main"
    engines: list[Engine] = Field(default=["argocd"], min_length=1)
    environments: list[Environment] = Field(min_length=1)
    clusters: list[Cluster] = []
    projects: list[Project] = []
    apps: list[App] = []
    argocd: ArgoOptions = Field(default_factory=ArgoOptions)
    flux: FluxOptions = Field(default_factory=FluxOptions)
    default_credentials: Credentials | None = None
    cascade_delete: bool = False
    create_namespaces: bool = True  # Argo CD CreateNamespace=true, Flux Namespace objects
    output_dir: str = "output"
    sync: SyncPolicy = Field(default_factory=SyncPolicy)
    common_labels: Labels = {}
    common_annotations: Annotations = {}
    policy: Policy = Field(default_factory=Policy)

    @field_validator("output_dir")
    @classmethod
    def _output_dir(cls, value: str) -> str:
        normal = repo_path(value)
        if posixpath.isabs(normal) or normal == "." or normal.startswith(".."):
            raise ValueError(
                f"{value!r} must be a relative path inside the repository "
                "(the directory holding fleet.py)"
            )
        return normal


__all__ = [
    "App",
    "AppSecret",
    "ArgoOptions",
    "AwsAuth",
    "Cluster",
    "Destination",
    "Engine",
    "Environment",
    "ExecAuth",
    "Expr",
    "ExternalSecretRef",
    "Fleet",
    "FluxOptions",
    "GitSource",
    "HelmChart",
    "IgnoreDifference",
    "Image",
    "Layer",
    "NamespaceMeta",
    "OciSource",
    "Overrides",
    "Patch",
    "Policy",
    "Project",
    "RemoteSource",
    "Retry",
    "Role",
    "Rollout",
    "Selector",
    "Spec",
    "Step",
    "SyncPolicy",
    "SyncWindow",
    "Waiver",
]
