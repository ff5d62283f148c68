"""fleetgen: compile a typed fleet spec into Argo CD, Flux and kustomize files."""

from fleetgen.api import BuildResult, CheckResult, build, check, compile_spec
from fleetgen.changeset import diff
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
    IgnoreDifference,
    Image,
    Overrides,
    Patch,
    Project,
    Retry,
    Role,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
    SyncWindow,
)
from fleetgen.resolve import resolve
from fleetgen.version import VERSION

__version__ = VERSION

__all__ = [
    "App", "AppSecret", "ArgoOptions", "AwsAuth", "BuildResult", "CheckResult", "Cluster",
    "Destination",
    "Environment", "ExecAuth", "Expr", "ExternalSecretRef", "Fleet", "FluxOptions", "GitSource",
    "IgnoreDifference", "Image", "Overrides", "Patch", "Project", "Retry", "Role", "Rollout",
    "Selector", "Step", "SyncPolicy", "SyncWindow", "__version__", "build", "check",
    "compile_spec", "diff", "load", "resolve",
]
