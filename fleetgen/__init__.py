"""fleetgen: compile a typed fleet spec into Argo CD, Flux and kustomize files.

Importing the package is cheap: the command line's ``--version`` and ``--help`` run without
pydantic. The spec classes (`fleetgen.model`) and the result classes load on first use (PEP 562
``__getattr__``; type checkers read the ``TYPE_CHECKING`` imports, which do not see that hook, so
``from fleetgen import Aplp`` stays an error for mypy). The public functions are bound here,
eagerly, as thin wrappers that import their implementation when called.

``fleetgen.diff``, ``fleetgen.load`` and ``fleetgen.resolve`` are submodules and public functions
at once. The import system sets a package's attribute to each submodule it loads
(``import fleetgen.load`` would make ``fleetgen.load`` the module, whenever that first happens),
so the package's module object keeps those three names bound to the functions (`_Package`); the
modules stay reachable as ``sys.modules["fleetgen.load"]`` and by ``from fleetgen.load import``.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fleetgen.version import VERSION

if TYPE_CHECKING:
    from fleetgen.api import BuildResult, CheckResult, Compiled
    from fleetgen.diff.report import Report
    from fleetgen.explain import Explanation
    from fleetgen.kustomize import Kustomize
    from fleetgen.landing import Landing
    from fleetgen.load import Loaded
    from fleetgen.model import (
        App,
        AppSecret,
        ArgoOptions,
        AwsAuth,
        CaFile,
        ChartVerify,
        Cluster,
        ClusterVar,
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
        OIDCIdentity,
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
    from fleetgen.plan import Plan
    from fleetgen.progress import Progress
    from fleetgen.scaffold import Added, AppRequest, ClusterRequest, Initialized
    from fleetgen.workspace import Workspace

__version__ = VERSION

# The classes loaded on first use, by the module that defines them (no submodule has their names).
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
            "GitSource",
            "HelmChart",
            "IgnoreDifference",
            "Image",
            "NamespaceMeta",
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
            "Step",
            "SyncPolicy",
            "SyncWindow",
            "Waiver",
        ],
        "fleetgen.model",
    ),
    "BuildResult": "fleetgen.api",
    "CheckResult": "fleetgen.api",
    "Explanation": "fleetgen.explain",
    "AppRequest": "fleetgen.scaffold",
    "ClusterRequest": "fleetgen.scaffold",
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


def build(
    spec: Path,
    out: Path | None = None,
    *,
    use_cache: bool = True,
    drained: Sequence[str] = (),
    all_drained: bool = False,
) -> BuildResult:
    """Compile ``spec`` and write the output tree (only files whose bytes changed).

    ``out`` overrides where the files land (the paths the engines read keep the Fleet's
    output_dir; the overlays reach the bases from ``out``); ``use_cache``, ``drained``,
    ``all_drained``: see
    `fleetgen.api.build`.
    """
    from fleetgen import api

    return api.build(spec, out, use_cache=use_cache, drained=drained, all_drained=all_drained)


def check(spec: Path, out: Path | None = None, *, use_cache: bool = True) -> CheckResult:
    """Compare the output tree with a fresh build; writes nothing but the cache (and finishes an
    interrupted build). A spec whose inputs were built before into a tree that provably still
    holds that build is up to date without compiling."""
    from fleetgen import api

    return api.check(spec, out, use_cache=use_cache)


def compile_spec(spec: Path, out: Path | None = None) -> Compiled:
    """Load, resolve and emit ``spec``; ``out`` overrides where the files would land (the
    overlays reach the bases from there). Writes nothing."""
    from fleetgen import api

    return api.compile_spec(spec, out)


def diff(
    spec: Path = Path("fleet.py"),
    base: str | None = None,
    head: str | None = None,
    *,
    render: bool = False,
    kustomize: Kustomize | None = None,
    charts_dir: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Compare what ``spec`` compiles to at ``base`` (default: the merge-base of HEAD with the
    default branch, else HEAD) and at ``head`` (default: the working tree). ``charts_dir``: with
    ``render``, the local chart cache of charts from repositories (`fleetgen.validate.charts`);
    ``progress``: where the phases of the work are reported (`fleetgen.progress`; default: not).

    See `fleetgen.diff.compare.diff` for the errors it raises.
    """
    from fleetgen.diff import compare

    return compare.diff(
        spec,
        base,
        head,
        render=render,
        kustomize=kustomize,
        charts_dir=charts_dir,
        progress=progress,
    )


def load(spec: Path) -> Loaded:
    """Run ``spec`` (a fleet.py) and inventory its repo, the directory holding it."""
    from fleetgen.load import load as load_spec

    return load_spec(spec)


def resolve(fleet: Fleet, workspace: Workspace, landing: Landing | None = None) -> Plan:
    """The Plan of ``fleet`` for output files that land as ``landing`` says (default: in the
    fleet's output_dir); raises SpecError listing every problem."""
    from fleetgen.resolve import resolve as resolve_fleet

    return resolve_fleet(fleet, workspace, landing)


def init(
    directory: Path, name: str | None = None, repo: str | None = None, engine: str = "argocd"
) -> Initialized:
    """Create a fleet repo in ``directory`` (a new one, or an existing repository being adopted):
    fleet.py with one engine, environment, cluster and app, the app's base, README, .gitignore,
    pre-commit config and a CI workflow. Never overwrites a file: an existing .gitignore gets the
    lines it lacks, any other existing file is skipped; an existing fleet.py is refused. Without
    ``repo``, the Git remote ``origin`` (as https) or a placeholder with a warning. The spec is
    validated, with the files as they will be, before anything is written."""
    from fleetgen import scaffold

    return scaffold.init(directory, name, repo, engine)


def add_cluster(
    spec: Path, request: ClusterRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Cluster(...)`` into fleet.py, validate, then write it and rebuild output/."""
    from fleetgen import scaffold

    return scaffold.add_cluster(spec, request, dry_run=dry_run, out=out)


def add_app(
    spec: Path, request: AppRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``App(...)``, with a new base at apps/NAME/base/ (or ``path``), or the existing base
    at ``path`` as it is (none for a chart app); a project that does not allow the namespace is
    extended when ``request.extend_project``, else refused. Validated before anything is
    written."""
    from fleetgen import scaffold

    return scaffold.add_app(spec, request, dry_run=dry_run, out=out)


# The names that are a submodule and a public function at once.
_FUNCTIONS = {"diff": diff, "load": load, "resolve": resolve}


class _Package(types.ModuleType):
    """fleetgen's module object: importing the submodule ``fleetgen.diff``, ``.load`` or
    ``.resolve`` leaves the package attribute of that name the public function."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in _FUNCTIONS:
            return  # the submodule stays in sys.modules
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "App",
    "AppRequest",
    "AppSecret",
    "ArgoOptions",
    "AwsAuth",
    "BuildResult",
    "CaFile",
    "ChartVerify",
    "CheckResult",
    "Cluster",
    "ClusterRequest",
    "ClusterVar",
    "Destination",
    "Environment",
    "ExecAuth",
    "Explanation",
    "Expr",
    "ExternalSecretRef",
    "Fleet",
    "FluxOptions",
    "GitSource",
    "HelmChart",
    "IgnoreDifference",
    "Image",
    "NamespaceMeta",
    "OIDCIdentity",
    "OciSource",
    "Overrides",
    "Patch",
    "Policy",
    "Project",
    "Retry",
    "Role",
    "Rollout",
    "Selector",
    "Step",
    "SyncPolicy",
    "SyncWindow",
    "Waiver",
    "__version__",
    "add_app",
    "add_cluster",
    "build",
    "check",
    "compile_spec",
    "diff",
    "init",
    "load",
    "resolve",
]
