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
    OciSource,
    OIDCIdentity,
    RemoteSource,
    Selector,
)
from fleetgen.model.apps import LabelSelection as LabelSelection
from fleetgen.model.base import Engine, Spec
from fleetgen.model.clusters import IN_CLUSTER as IN_CLUSTER
from fleetgen.model.clusters import (
    AwsAuth,
    CaFile,
    Cluster,
    Environment,
    ExecAuth,
    ExternalSecretRef,
)
from fleetgen.model.clusters import Credentials as Credentials
from fleetgen.model.engines import ARGOCD_FLOOR as ARGOCD_FLOOR
from fleetgen.model.engines import FLUX_FLOOR as FLUX_FLOOR
from fleetgen.model.engines import ArgoInstance as ArgoInstance
from fleetgen.model.engines import ArgoOptions, FluxOptions
from fleetgen.model.fleet import Fleet
from fleetgen.model.layers import ClusterVar, Image, Layer, Overrides, Patch
from fleetgen.model.projects import (
    Destination,
    NamespaceMeta,
    Policy,
    Project,
    Role,
    SyncWindow,
    Waiver,
)
from fleetgen.model.projects import RuleId as RuleId
from fleetgen.model.sync import CREATE_NAMESPACE as CREATE_NAMESPACE
from fleetgen.model.sync import Retry, Rollout, Step, SyncPolicy

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
    "GitSource",
    "HelmChart",
    "IgnoreDifference",
    "Image",
    "Layer",
    "NamespaceMeta",
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
    "Spec",
    "Step",
    "SyncPolicy",
    "SyncWindow",
    "Waiver",
]
