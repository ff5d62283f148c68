"""The spec: typed, frozen models that a fleet.py builds. No I/O, no cross-references here.

The models live by topic in the modules of this package; this re-exports them.
"""

from fleetgen.model.apps import (
    App,
    AppSecret,
    ChartVerify,
    Expr,
    GitSource,
    HelmChart,
    IgnoreDifference,
    LabelSelection as LabelSelection,
    OciSource,
    OIDCIdentity,
    RemoteSource,
    Selector,
)
from fleetgen.model.base import Engine, Spec
from fleetgen.model.clusters import (
    IN_CLUSTER as IN_CLUSTER,
    AwsAuth,
    CaFile,
    Cluster,
    Credentials as Credentials,
    Environment,
    ExecAuth,
)
from fleetgen.model.engines import (
    ARGOCD_FLOOR as ARGOCD_FLOOR,
    FLUX_FLOOR as FLUX_FLOOR,
    ArgoInstance as ArgoInstance,
    ArgoOptions,
    FluxOptions,
)
from fleetgen.model.fleet import Fleet
from fleetgen.model.layers import ClusterVar, Image, Layer, Overrides, Patch
from fleetgen.model.notify import (
    EVENTS as EVENTS,
    Channel as Channel,
    Event as Event,
    GitHubStatus,
    Notify,
    Slack,
    Teams,
    Webhook,
)
from fleetgen.model.projects import (
    Destination,
    NamespaceMeta,
    Policy,
    Project,
    Role,
    RuleId as RuleId,
    SyncWindow,
    Waiver,
)
from fleetgen.model.stores import ExternalSecretRef
from fleetgen.model.sync import (
    CREATE_NAMESPACE as CREATE_NAMESPACE,
    Retry,
    Rollout,
    Step,
    SyncPolicy,
)

__all__ = [
    "App",
    "AppSecret",
    "ArgoOptions",
    "AwsAuth",
    "CaFile",
    "ChartVerify",
    "Cluster",
    "ClusterVar",
    "Destination",
    "Engine",
    "Environment",
    "ExecAuth",
    "Expr",
    "ExternalSecretRef",
    "Fleet",
    "FluxOptions",
    "GitHubStatus",
    "GitSource",
    "HelmChart",
    "IgnoreDifference",
    "Image",
    "Layer",
    "NamespaceMeta",
    "Notify",
    "OIDCIdentity",
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
    "Slack",
    "Spec",
    "Step",
    "SyncPolicy",
    "SyncWindow",
    "Teams",
    "Waiver",
    "Webhook",
]
