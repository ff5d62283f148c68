"""Where placements run: Environments, Clusters and the Credentials the engines reach them with."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Literal

from pydantic import Field, field_validator

from fleetgen.model.base import Engine, Spec
from fleetgen.model.engines import ArgoOptions
from fleetgen.model.fields import (
    ROLE_ARN,
    Annotations,
    Labels,
    Name,
    ServerURL,
    VarName,
    repo_path,
)
from fleetgen.model.notify import Notify
from fleetgen.model.projects import Policy
from fleetgen.model.stores import ExternalSecretRef
from fleetgen.model.sync import Rollout, SyncPolicy

IN_CLUSTER = "https://kubernetes.default.svc"  # the API server, seen from inside the cluster


class Environment(Spec):
    """A stage such as dev, staging or prod; every cluster belongs to exactly one.

    Attributes:
        name: The environment's name; clusters refer to it in `env`.
        sync: Sync settings of its placements (layered over the fleet's).
        rollout: Roll changes through its clusters in steps; None: all at once.
        production: Changes here are flagged first by `diff`; None: True for 'prod' and
            'production'.
        common_labels: Labels put on every object its placements deploy (but a chart app's).
        common_annotations: Annotations put on every object its placements deploy (but a chart
            app's).
        policy: Severities of validate's rules here (over the fleet's, rule by rule).
        engine: The engine of its placements, unless a cluster or an app names one.
        cascade_delete: Removing a placement here deletes its workloads (True) or orphans them
            (False); None: the fleet's. An app's own setting wins.
        argocd: An Argo CD instance of its own for its Argo CD placements (registrations,
            AppProjects and ApplicationSets in `<output_dir>/argocd-<name>/`, with a root
            Application of their own); None: the fleet's instance (`<output_dir>/argocd/`).
        notify: Who hears about what of its placements, added to the fleet's (`Notify`).
    """

    name: Name
    sync: SyncPolicy = Field(default_factory=SyncPolicy)
    rollout: Rollout | None = None
    production: bool | None = None
    policy: Policy | None = None
    common_labels: Labels = {}
    common_annotations: Annotations = {}
    engine: Engine | None = None  # of its clusters' placements, unless the cluster or app says
    cascade_delete: bool | None = None
    argocd: ArgoOptions | None = None
    notify: list[Notify] = []

    @property
    def is_production(self) -> bool:
        """Explicit ``production``, else True for environments named prod or production."""
        if self.production is not None:
            return self.production
        return self.name in ("prod", "production")


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


class CaFile(Spec):
    """A cluster's CA certificate kept in a file of the repository, read at every build:
    ``Cluster(ca_data=CaFile("certs/prod.pem"))`` rather than its base64 inlined. The file holds
    PEM CERTIFICATE blocks, or their base64 as ``aws eks describe-cluster`` prints it; a change
    to it rebuilds, and a missing or unreadable file, or one holding anything else, is a spec
    error at this call.

    Attributes:
        path: The file, relative to the folder holding fleet.py (written positionally or as
            ``path=``).
    """

    path: str = Field(min_length=1)

    def __init__(self, path: str | None = None, /, **data: Any) -> None:
        if path is not None:
            data["path"] = path
        super().__init__(**data)

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        normal = repo_path(value)
        if normal.startswith(("/", "../")) or normal in ("..", "."):
            raise ValueError(
                f"{value!r} must be a file inside the repository, relative to the folder "
                "holding fleet.py (it is read at every build, also at other Git refs by diff)"
            )
        return normal


class Cluster(Spec):
    """A Kubernetes cluster of the fleet.

    Attributes:
        name: The cluster's name, used in `Selector`, `per_cluster` and output paths.
        env: The environment it belongs to.
        server: Its API server URL, https://host[:port].
        labels: Labels that selectors and rollout steps match.
        annotations: Extra metadata on its registration (values too long for labels).
        credentials: How the engines reach it; None: the fleet's `default_credentials`.
        ca_data: Base64 PEM CA bundle (public), which Argo CD verifies the API server against,
            or `CaFile` naming a file that holds it; required with `AwsAuth` and `ExecAuth` when
            an app is placed on it with Argo CD.
        engine: The engine of the apps placed on it, unless an app names one.
        insecure: With `AwsAuth`/`ExecAuth` and no `ca_data`: Argo CD skips verifying the API
            server's certificate (warned about).
        registration: 'fleetgen': fleetgen writes its Argo CD cluster Secret; 'external': another
            tool (Terraform, Cluster API) owns it and must give it the labels output/README.md
            lists (no credentials here then).
        vars: Its values of the `ClusterVar`s apps use: name → value, each also an annotation
            `fleetgen.io/var.<name>` on the registration fleetgen writes (for an external
            registration, output/README.md lists the annotations its owner must set).
    """

    name: Name
    env: Name
    server: ServerURL
    labels: Labels = {}
    annotations: Annotations = {}
    credentials: Credentials | None = None
    ca_data: str | CaFile | None = None  # base64 PEM CA bundle (public), or its file
    engine: Engine | None = None  # of the placements on it, unless the app says
    insecure: bool = False  # IAM/exec credentials: skip verifying the API server's certificate
    registration: Literal["fleetgen", "external"] = "fleetgen"  # who owns its Argo CD Secret
    vars: dict[VarName, str] = {}  # ClusterVar name -> this cluster's value

    @property
    def in_cluster(self) -> bool:
        """Whether it is the cluster Argo CD runs on, which Argo CD reaches with its own
        ServiceAccount (``Cluster.RawRestConfig``: in-cluster config for this server)."""
        return self.server.rstrip("/") == IN_CLUSTER

    @field_validator("ca_data")
    @classmethod
    def _ca_data(cls, value: str | CaFile | None) -> str | CaFile | None:
        if not isinstance(value, str):
            return value  # a CaFile is read and checked by load and resolve
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
