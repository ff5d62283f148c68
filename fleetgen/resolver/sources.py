"""Checks of where an app's manifests come from, besides a base of this repository: another
source (an https:// Git URL, a path inside it, no setting that needs an overlay), a chart kept in
the repository, Helm release names, and ``Overrides(path=...)``."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from fleetgen.model import (
    App,
    Cluster,
    ClusterVar,
    GitSource,
    HelmChart,
    OciSource,
    Overrides,
    Spec,
)
from fleetgen.model.fields import inside_repo, is_glob, repo_path
from fleetgen.resolver.context import _Context
from fleetgen.resolver.overrides import KUSTOMIZE_FIELDS, layers_of
from fleetgen.resolver.plan import remote_path


def check_remote(ctx: _Context, app: App, source: GitSource | OciSource) -> None:
    """An app from another source: an https:// Git URL without credentials, a path inside the
    source, and no setting that needs an overlay (its manifests are not in this repository)."""
    if isinstance(source, GitSource):
        authority = source.url.partition("://")[2].split("/")[0]
        if not source.url.startswith("https://"):
            ctx.report(
                source,
                f"app {app.name!r}: an app's Git source is read by both engines "
                "over https:// (credentials are the engines' own repository "
                "settings); use an https:// URL",
            )
        elif "@" in authority and id(source) not in ctx.scanned:  # else reported once already
            ctx.report(
                source,
                f"app {app.name!r}: credentials do not belong in a Git URL (the "
                "URL is not repeated here because it holds a credential); give "
                "them to the engines as repository credentials",
            )
    if app.namespace is not None:
        ctx.report(
            app,
            f"app {app.name!r}: an app from another source (source=) has no overlay "
            "to rewrite namespaces with: give namespace=None (its manifests say where "
            "each object goes; its project's namespaces bound where they may)",
        )
    check_named_namespaces(ctx, app, "an app from another source")
    if _outside(remote_path(app)):
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} must be inside its source "
            "(relative to the source's root)",
        )
    for layer in layers_of(app):
        if isinstance(layer, Overrides) and layer.path is not None and _outside(layer.path):
            ctx.report(
                layer,
                f"app {app.name!r}: Overrides(path={layer.path!r}) must be inside its "
                "source (relative to the source's root)",
            )
    check_no_overlay(
        ctx,
        app,
        "an app from another source (source=)",
        "its manifests are not in this repository; set it in that source instead",
        "ship the ExternalSecret in that source instead",
    )


def check_no_overlay(
    ctx: _Context, app: App, which: str, fix: str, secrets_fix: str | None = None
) -> None:
    """No layer of an app without overlay (``which`` names what it is) sets what only an overlay
    applies (`KUSTOMIZE_FIELDS`), and it has no ``secrets=``; ``fix`` and ``secrets_fix`` (by
    default ``fix``) say what to do instead."""
    for layer in layers_of(app):
        # an Overrides' namespace (App.namespace is where an app without overlay goes)
        own = ("namespace",) if isinstance(layer, Overrides) else ()
        for name in (*KUSTOMIZE_FIELDS, *own):
            if getattr(layer, name, None):
                ctx.report(
                    layer,
                    f"app {app.name!r}: {name} needs an overlay, which {which} has not: {fix}",
                )
    if app.secrets:
        ctx.report(
            app,
            f"app {app.name!r}: secrets= needs an overlay, which {which} has not; "
            f"{secrets_fix or fix}",
        )


def check_named_namespaces(ctx: _Context, app: App, what: str) -> None:
    """``app`` may put objects in any namespace its project allows (fleetgen cannot read its
    manifests): a tenant project binds its ServiceAccount in each, so they must be named."""
    project = ctx.projects.get(app.project)
    if (
        project is not None
        and project.service_account
        and any(is_glob(namespace) for namespace in project.namespaces)
    ):
        ctx.report(
            app,
            f"app {app.name!r}: project {project.name!r} binds its ServiceAccount in "
            f"the namespaces {what} may use, which must be named, not patterns: list them "
            "in Project(namespaces=[...])",
        )


def _outside(path: str | ClusterVar) -> bool:
    """Whether a source path leaves its source (a var's values are checked per cluster:
    `fleetgen.resolver.vars.VarResolver`)."""
    if isinstance(path, ClusterVar):
        return False
    normal = repo_path(path)
    return normal.startswith("..") or posixpath.isabs(normal)


def check_layer_paths(ctx: _Context, app: App) -> None:
    """``Overrides(path=...)`` chooses the directory an app from another source reads; an app
    of this repository has one base (or chart) for all its placements."""
    kind = (
        "a chart app's chart"
        if app.chart is not None
        else "a plain directory app's directory"
        if ctx.plain(app)
        else "a kustomize app's base"
    )
    for layer in layers_of(app):
        if isinstance(layer, Overrides) and layer.path is not None:
            ctx.report(
                layer,
                f"app {app.name!r}: Overrides(path={layer.path!r}) chooses the directory "
                "of an app from another source (App(source=GitSource(...) or "
                f"OciSource(...))); {kind} is the same in every layer: drop path= here, "
                "or set what differs with the layer's other fields",
            )


def check_release_names(ctx: _Context, placed: Mapping[str, Sequence[Cluster]]) -> None:
    """Two chart apps that release under one name into one namespace on a cluster: Helm keeps
    one release of a name per namespace (its storage: Secret sh.helm.release.v1.NAME.vN)."""
    seen: dict[tuple[str, str, str], str] = {}  # (cluster, namespace, release) -> app
    for app in ctx.apps.values():
        release = app.release_name
        if release is None or app.namespace is None or app.chart is None:
            continue
        clashes: set[str] = set()
        for cluster in placed.get(app.name, ()):
            other = seen.setdefault((cluster.name, app.namespace, release), app.name)
            if other != app.name:
                clashes.add(other)
        for other in sorted(clashes):
            ctx.report(
                app.chart,
                f"apps {other!r} and {app.name!r} both install Helm release {release!r} into "
                f"namespace {app.namespace!r} on a cluster they share; Helm keeps one release "
                "of a name per namespace: set another HelmChart(release_name=...)",
            )


def check_chart(ctx: _Context, app: App, chart: HelmChart) -> None:
    """A chart kept in the repository: inside it, with a Chart.yaml, and without problems."""
    path = in_repo(ctx, chart, app, "chart path", chart.path) if chart.path is not None else None
    if path is None:
        return
    found = ctx.workspace.charts.get(path)
    if found is not None and (found.name is not None or found.problems):
        for problem in found.problems:
            ctx.report(chart, f"app {app.name!r}: chart {path}: {problem}")
        return
    ctx.report(
        chart,
        f"app {app.name!r}: chart path {chart.path!r} has no Chart.yaml "
        "(create the chart there or fix the path)",
    )


def in_repo(ctx: _Context, where: Spec, app: App, what: str, written: str) -> str | None:
    """``written`` (the ``what`` of ``app``: ``path``, ``chart path``) as a repo path; None,
    reported at ``where``, when it leaves the repository."""
    path = repo_path(written)
    if inside_repo(path):
        return path
    ctx.report(
        where,
        f"app {app.name!r}: {what} {written!r} must be inside the repository (relative to the "
        "directory holding fleet.py)",
    )
    return None
