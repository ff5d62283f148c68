"""Checks of what an app reads from the fleet repository besides its base or chart: the
``Overrides(resources=..., components=...)`` of a kustomize app's layers (inside the repository,
present, of the right kind, their problems and secret material), a chart app's Helm values
files, and the secret material of any of them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from fleetgen.errors import Problem
from fleetgen.inputs import scan
from fleetgen.inputs.bases import Base
from fleetgen.inputs.filesecrets import SecretFound
from fleetgen.model import App, Cluster, HelmChart, Overrides
from fleetgen.model.apps import overrides_of
from fleetgen.model.fields import inside_repo, repo_path
from fleetgen.resolver import namespacing
from fleetgen.resolver.context import _Context
from fleetgen.resolver.layering import label_conflicts
from fleetgen.resolver.values import leaf_items, merge_values, value_path

COMPONENT_API = "kustomize.config.k8s.io/v1alpha1"  # kustomize's types.ComponentVersion


def check_layer_inputs(ctx: _Context, app: App) -> None:
    """Each layer's ``resources`` and ``components`` of ``app``: only a kustomize app of this
    repository has overlays to add them to; each path lies inside the repository and holds what
    its list needs (`_problem`); what the files hold is checked once per app."""
    layers = overrides_of(app)
    checked: set[str] = set()
    for layer in layers:
        for field in ("resources", "components"):
            paths: list[str] = getattr(layer, field)
            if not paths:
                continue
            if not ctx.overlaid(app):
                ctx.report(layer, _no_overlay(app, field))
                continue
            for written in paths:
                path = repo_path(written)
                base = ctx.workspace.bases.get(path)
                problem = _problem(app, field, written, path, base)
                if problem is not None:
                    ctx.report(layer, problem)
                elif base is not None and path not in checked:
                    checked.add(path)
                    _check_contents(ctx, app, layer, base)


def _no_overlay(app: App, field: str) -> str:
    why = (
        "an app from another source (source=) has none: its manifests are not in this "
        "repository; add them in that source"
        if app.source is not None
        else "a chart app has none: its objects are the chart's; set them through its values, "
        "or deploy them as a kustomize app"
        if app.chart is not None
        else "a plain directory (no kustomization.yaml) has none: add a kustomization.yaml "
        "there to make it a base"
    )
    return (
        f"app {app.name!r}: Overrides({field}=...) adds to the kustomize overlays fleetgen "
        f"writes for an app with a base (App(path=...)); {why}"
    )


def _problem(app: App, field: str, written: str, path: str, base: Base | None) -> str | None:
    """Why ``written`` (normalized ``path``) cannot be in ``field`` of a layer of ``app``: it
    leaves the repository, is the app's base, is no directory with a kustomization (a file
    included), or is a Component listed as a resource (kustomize refuses one there) or a
    kustomization that is no Component listed as one."""
    what = f"app {app.name!r}: Overrides({field}=[{written!r}])"
    if not inside_repo(path):
        return f"{what} must be inside the repository (relative to the directory holding fleet.py)"
    if app.base_path is not None and path == repo_path(app.base_path):
        return f"{what} is the app's base, which every overlay builds on already"
    component = base is not None and base.kind == "Component" and base.api_version == COMPONENT_API
    if field == "components":
        if base is None or base.kustomization is None:
            return (
                f"{what} is not a directory with a kustomization.yaml (a Component: kind: "
                f"Component, apiVersion: {COMPONENT_API})"
            )
        if not component:
            kind = f"kind: {base.kind or 'none'}, apiVersion: {base.api_version or 'none'}"
            return (
                f"{what}: its {base.kustomization} is no Component ({kind}): give it kind: "
                f"Component and apiVersion: {COMPONENT_API}, or list it in resources="
            )
        return None
    if base is not None and base.file:
        return (
            f"{what} is a file: kustomize's default load restrictor (LoadRestrictionsRootOnly, "
            "as Argo CD's repo server builds) refuses a file outside the overlay's folder; "
            "put it in a directory with a kustomization.yaml listing it, and add that directory"
        )
    if base is None or base.kustomization is None:
        return f"{what} is not a directory with a kustomization.yaml (create it or fix the path)"
    if base.kind == "Component":
        return (
            f"{what} is a kustomize Component, which kustomize refuses as a resource: list it "
            "in components="
        )
    return None


def _check_contents(ctx: _Context, app: App, layer: Overrides, base: Base) -> None:
    """The problems the inventory found in what a layer adds and its namespaces (at the layer),
    and its secret material (at its file and line)."""
    for problem in base.problems:
        ctx.report(layer, f"app {app.name!r}: {base.path}: {problem}")
    project = ctx.projects.get(app.project)
    for message in namespacing.base_problems(app, base, project, f"{base.path} (added here)"):
        ctx.report(layer, message)
    check_secrets(ctx, app, base)


def check_values_files(ctx: _Context, app: App, chart: HelmChart) -> None:
    """The Helm values files of a chart app (HelmChart's, reported at the chart, and each
    layer's, at the layer): inside the repository, one YAML mapping of Helm values, and no
    secret material, refused as in values= (no waiver: values reach the engines' objects)."""
    layers = overrides_of(app)
    owners = [(chart, chart.values_files), *((layer, layer.values_files) for layer in layers)]
    scanned: set[str] = set()
    for owner, paths in owners:
        for written in paths:
            path = repo_path(written)
            what = f"app {app.name!r}: values file {written!r}"
            found = ctx.workspace.values_files.get(path)
            if not inside_repo(path):
                ctx.report(
                    owner,
                    f"{what} must be inside the repository (relative to the "
                    "directory holding fleet.py)",
                )
            elif found is None or found.problem is not None:
                problem = found.problem if found is not None else "no such file"
                ctx.report(owner, f"{what}: {problem}")
            elif path not in scanned:
                scanned.add(path)
                _report_secrets(ctx, app, found.secrets, waivable=False)


def check_label_values_files(ctx: _Context, app: App, placed: Iterable[Cluster]) -> None:
    """Two per_label layers that one cluster matches may not set one value differently through
    their values files: both come before every values=, in an order no reader sees
    (`fleetgen.resolver.layering.label_conflicts`)."""
    files = ctx.workspace.values_files

    def file_values(layer: Overrides) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for path in layer.values_files:
            found = files.get(repo_path(path))
            if found is not None and found.values is not None:
                merged = merge_values(merged, found.values, "", {})
        return {f"values/{value_path(path)}": value for path, value in leaf_items(merged, ())}

    for layer, message in label_conflicts(app, placed, file_values, " (values_files)"):
        ctx.report(layer, message)


def check_secrets(ctx: _Context, app: App, base: Base) -> None:
    """Secret material in the files of a base, or of what a layer adds, is a problem at its file
    and line, but for the rules the app waives (``App(waivers=[Waiver(rule, reason)])``):
    `validate` lists those waivers."""
    _report_secrets(ctx, app, base.secrets, waivable=True)


def _report_secrets(
    ctx: _Context, app: App, secrets: tuple[SecretFound, ...], waivable: bool
) -> None:
    """Each of ``secrets`` at its file and line (relative to the spec's folder), but those the
    app waives when ``waivable``."""
    waived = {waiver.rule for waiver in app.waivers} if waivable else set()
    for found in secrets:
        if found.rule in waived:
            continue
        where = ": ".join(part for part in (found.object, found.field) if part)
        waiver = f", {scan.waiver_hint(found.rule)}" if waivable else ""
        report_in_base(
            ctx,
            found.file,
            found.line,
            f"app {app.name!r}: {where + ': ' if where else ''}"
            f"{scan.describe(found.length, found.description, found.rule)}; {scan.HINT}"
            f"{waiver}",
        )


def report_in_base(ctx: _Context, file: str, line: int, message: str) -> None:
    """A problem at ``line`` of ``file`` of a base or what a layer adds (repo-relative, shown
    beside fleet.py)."""
    spec_file = ctx.fleet.origin[0]
    root = os.path.dirname(spec_file) if spec_file else ""
    ctx.problems.append(Problem(message, os.path.join(root, file) if root else file, line))
