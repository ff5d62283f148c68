"""fleetgen: compile a typed fleet spec into Argo CD, Flux and kustomize files.

The public names — the spec classes, the pipeline's functions (`load`, `resolve`, `compile_spec`,
`build`, `check`, `diff`) and scaffolding's (`init`, `add_cluster`, `add_app`) with their result
and request classes — are re-exported from the modules that define them, on first use (PEP 562
``__getattr__``), so ``import fleetgen`` and the command line's ``--version`` load no pydantic.
Type checkers read the ``TYPE_CHECKING`` imports, which do not see that hook, so
``from fleetgen import Aplp`` stays an error for mypy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from fleetgen.version import VERSION

if TYPE_CHECKING:  # what type checkers read (``X as X``: a re-export, as strict mypy wants)
    from fleetgen.diffs.compare import diff as diff
    from fleetgen.explain.explanation import Explanation as Explanation
    from fleetgen.inputs.load import load as load
    from fleetgen.model import (
        App as App,
        AppSecret as AppSecret,
        ArgoOptions as ArgoOptions,
        AwsAuth as AwsAuth,
        CaFile as CaFile,
        ChartVerify as ChartVerify,
        Cluster as Cluster,
        ClusterVar as ClusterVar,
        Destination as Destination,
        Environment as Environment,
        ExecAuth as ExecAuth,
        Expr as Expr,
        ExternalSecretRef as ExternalSecretRef,
        Fleet as Fleet,
        FluxOptions as FluxOptions,
        GitHubStatus as GitHubStatus,
        GitSource as GitSource,
        HelmChart as HelmChart,
        IgnoreDifference as IgnoreDifference,
        Image as Image,
        NamespaceMeta as NamespaceMeta,
        Notify as Notify,
        OciSource as OciSource,
        OIDCIdentity as OIDCIdentity,
        Overrides as Overrides,
        Patch as Patch,
        Policy as Policy,
        Project as Project,
        Retry as Retry,
        Role as Role,
        Rollout as Rollout,
        Selector as Selector,
        Slack as Slack,
        Step as Step,
        SyncPolicy as SyncPolicy,
        SyncWindow as SyncWindow,
        Teams as Teams,
        Waiver as Waiver,
        Webhook as Webhook,
    )
    from fleetgen.pipeline.api import (
        BuildResult as BuildResult,
        CheckResult as CheckResult,
        build as build,
        check as check,
        compile_spec as compile_spec,
    )
    from fleetgen.resolver.run import resolve as resolve
    from fleetgen.scaffold.add import add_app as add_app, add_cluster as add_cluster
    from fleetgen.scaffold.new_fleet import init as init
    from fleetgen.scaffold.requests import (
        AppRequest as AppRequest,
        ClusterRequest as ClusterRequest,
    )

__version__ = VERSION

# Each public name, by the module that defines it (no submodule of the package has its name).
_LAZY = {
    **dict.fromkeys(
        [
            "App",
            "AppSecret",
            "ArgoOptions",
            "AwsAuth",
            "CaFile",
            "ChartVerify",
            "Cluster",
            "ClusterVar",
            "Destination",
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
            "NamespaceMeta",
            "Notify",
            "OciSource",
            "OIDCIdentity",
            "Overrides",
            "Patch",
            "Policy",
            "Project",
            "Retry",
            "Role",
            "Rollout",
            "Selector",
            "Slack",
            "Step",
            "SyncPolicy",
            "SyncWindow",
            "Teams",
            "Waiver",
            "Webhook",
        ],
        "fleetgen.model",
    ),
    **dict.fromkeys(
        ["BuildResult", "CheckResult", "build", "check", "compile_spec"], "fleetgen.pipeline.api"
    ),
    "diff": "fleetgen.diffs.compare",
    "load": "fleetgen.inputs.load",
    "resolve": "fleetgen.resolver.run",
    "init": "fleetgen.scaffold.new_fleet",
    "add_app": "fleetgen.scaffold.add",
    "add_cluster": "fleetgen.scaffold.add",
    "Explanation": "fleetgen.explain.explanation",
    "AppRequest": "fleetgen.scaffold.requests",
    "ClusterRequest": "fleetgen.scaffold.requests",
}

if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error for them

    def __getattr__(name: str) -> object:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = sorted([*_LAZY, "__version__"])
