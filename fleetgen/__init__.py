"""fleetgen: compile a typed fleet spec into Argo CD, Flux and kustomize files."""

from fleetgen.api import BuildResult, CheckResult, build, check, compile_spec
from fleetgen.diff.compare import diff
from fleetgen.explain import Explanation
from fleetgen.load import load
from fleetgen.model import (
    App,
    AppSecret,
    ArgoOptions,
    AwsAuth,
    Cluster,
    Destination,
    Environment,
    ExecAuth,
    Expr,
    ExternalSecretRef,
    Fleet,
    FluxOptions,
    GitSource,
    HelmChart,
    IgnoreDifference,
    Image,
    NamespaceMeta,
    OciSource,
    Overrides,
    Patch,
    Policy,
    Project,
    Retry,
    Role,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
    SyncWindow,
    Waiver,
)
from fleetgen.resolve import resolve
from fleetgen.scaffold import AppRequest, ClusterRequest, add_app, add_cluster, init
from fleetgen.version import VERSION

__version__ = VERSION

__all__ = [
    "App", "AppRequest", "AppSecret", "ArgoOptions", "AwsAuth", "BuildResult", "CheckResult",
    "Cluster", "ClusterRequest", "Destination", "Environment", "ExecAuth", "Explanation", "Expr",
    "ExternalSecretRef", "Fleet", "FluxOptions", "GitSource", "HelmChart",
    "IgnoreDifference", "Image", "NamespaceMeta", "OciSource", "Overrides", "Patch", "Policy",
    "Project", "Retry", "Role", "Rollout", "Selector", "Step", "SyncPolicy", "SyncWindow",
    "Waiver", "__version__", "add_app", "add_cluster",
    "build", "check", "compile_spec", "diff", "init", "load", "resolve",
]
