"""Cluster vars: where a `ClusterVar` may stand, that every cluster declares the vars its
placements use (`Cluster(vars=...)`), and filling them in per cluster (`VarResolver`)."""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Iterator

from fleetgen.model import App, Cluster, ClusterVar, Layer, Overrides
from fleetgen.model.fields import VAR_PREFIX, dns_label, repo_path
from fleetgen.resolver import namespacing
from fleetgen.resolver.context import _Context
from fleetgen.resolver.plan import Settings
from fleetgen.resolver.values import vars_in


def _layers(app: App) -> Iterator[tuple[str, Layer]]:
    """(name, layer) of every layer of ``app``: the app, then per_env, per_label, per_cluster."""
    yield "app", app
    for kind, layers in (
        ("per_env", app.per_env),
        ("per_label", app.per_label),
        ("per_cluster", app.per_cluster),
    ):
        for key, layer in layers.items():
            yield f"{kind}[{key!r}]", layer


def _config_vars(layer: Layer) -> list[ClusterVar]:
    return [var for entries in layer.config.values() for var in vars_in(entries)]


def _namespace_vars(layer: Layer) -> list[ClusterVar]:
    return vars_in(layer.namespace) if isinstance(layer, Overrides) else []


def _path_vars(layer: Layer) -> list[ClusterVar]:
    return vars_in(layer.path) if isinstance(layer, Overrides | App) else []


def check_vars(ctx: _Context) -> None:
    """Each `ClusterVar` names a var some cluster declares; an app whose ApplicationSet selects
    clusters at run time (``Selector(runtime=True)``) reads vars only where its template carries
    them (Helm values, the source path), not in config or a namespace, which its overlay holds."""
    declared = sorted({name for cluster in ctx.clusters.values() for name in cluster.vars})
    for cluster in ctx.clusters.values():
        for key in sorted(cluster.annotations):
            if key.startswith(VAR_PREFIX):
                ctx.report(
                    cluster,
                    f"cluster {cluster.name!r}: annotation {key!r} is where fleetgen writes a "
                    f"cluster var; set it as Cluster(vars={{{key.removeprefix(VAR_PREFIX)!r}: "
                    "...})",
                )
    for app in ctx.apps.values():
        for name, layer in _layers(app):
            built = [  # into the overlay
                *(("config", var) for var in _config_vars(layer)),
                *(("the namespace", var) for var in _namespace_vars(layer)),
            ]
            for var in [*vars_in(layer.values), *(var for _, var in built), *_path_vars(layer)]:
                if var.name not in declared:
                    close = difflib.get_close_matches(var.name, declared, n=1)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    ctx.report(
                        var,
                        f"app {app.name!r}: ClusterVar({var.name!r}) in its {name} layer names "
                        f"a var no cluster declares{hint}; set Cluster(vars={{{var.name!r}: "
                        "...}) on the clusters it runs on",
                    )
            for where, var in built if app.targets.runtime else ():
                ctx.report(
                    var,
                    f"app {app.name!r}: ClusterVar({var.name!r}) in {where} of its {name} "
                    "layer: with Selector(runtime=True) the clusters are picked when the "
                    "ApplicationSet runs, and the overlay that holds config and namespace is "
                    "built before; a var can reach only Helm values and the source path there "
                    "(or drop runtime=True)",
                )


class VarResolver:
    """Fills each placement's `ClusterVar`s with its cluster's values, remembering every var a
    cluster lacks (`report` turns them into one problem per ClusterVar written in the spec)."""

    def __init__(self, ctx: _Context) -> None:
        self.ctx = ctx
        # without a var on any cluster no ClusterVar passed `check_vars`: nothing to fill in
        self._declared = any(cluster.vars for cluster in ctx.clusters.values())
        # (app, origin of the ClusterVar, var name) -> the ClusterVar and the clusters lacking it
        self._missing: dict[tuple[str, tuple[str, int], str], tuple[ClusterVar, list[str]]] = {}

    def settings(self, app: App, cluster: Cluster, settings: Settings) -> Settings:
        """``settings`` of ``app`` on ``cluster`` with its vars filled in (unchanged when the
        cluster lacks one: the build then fails with `report`)."""
        names = settings.var_names() if self._declared else set()
        if not names:
            return settings
        lacking = names - set(cluster.vars)
        if not lacking:
            filled = settings.resolve_vars(cluster.vars)
            self._check_path(app, cluster, settings, filled)
            self._check_namespace(app, cluster, settings, filled)
            return filled
        for var in vars_in(settings.held_vars()):
            if var.name in lacking:
                key = (app.name, var.origin, var.name)
                clusters = self._missing.setdefault(key, (var, []))[1]
                if cluster.name not in clusters:
                    clusters.append(cluster.name)
        return settings

    def _check_path(self, app: App, cluster: Cluster, raw: Settings, filled: Settings) -> None:
        """A var's value as the directory of another source stays inside that source."""
        if not isinstance(raw.source_path, ClusterVar) or not isinstance(filled.source_path, str):
            return
        path = repo_path(filled.source_path)
        if path.startswith("..") or posixpath.isabs(path):
            self.ctx.report(
                raw.source_path,
                f"app {app.name!r}: ClusterVar({raw.source_path.name!r}) is "
                f"{filled.source_path!r} on cluster {cluster.name!r}, which as the app's path "
                "must be inside its source (relative to the source's root)",
            )

    def _check_namespace(self, app: App, cluster: Cluster, raw: Settings, filled: Settings) -> None:
        """A var's value as a namespace is a namespace name the app's project allows."""
        var, value = raw.namespace, filled.namespace
        if not isinstance(var, ClusterVar) or not isinstance(value, str):
            return
        project = self.ctx.projects[app.project]
        try:
            dns_label(value)
        except ValueError:
            why = "not a namespace name (lowercase letters, digits and '-', at most 63)"
        else:
            if namespacing.allowed(value, project.namespaces):
                return
            why = (
                f"project {project.name!r} does not allow it (add it to Project(namespaces=[...]))"
            )
        self.ctx.report(
            var,
            f"app {app.name!r}: its namespace ClusterVar({var.name!r}) is {value!r} on cluster "
            f"{cluster.name!r}: {why}",
        )

    def report(self) -> None:
        """One problem per ClusterVar of the spec that some cluster it reaches lacks."""
        for (app, _, name), (var, clusters) in sorted(self._missing.items()):
            names = ", ".join(repr(cluster) for cluster in sorted(clusters))
            plural = "s" if len(clusters) > 1 else ""
            self.ctx.report(
                var,
                f"app {app!r}: ClusterVar({name!r}) has no value on cluster{plural} {names}, "
                f"where the app is placed; set Cluster(vars={{{name!r}: ...}}) there",
            )
