"""Checks of an app's layers (the App and its Overrides): per_env, per_label and per_cluster keys
that name where it runs, settings of the app's kind (kustomize or chart), name_prefix across env
and cluster overlays, and automated sync under a rollout."""

from __future__ import annotations

from fleetgen.model import App, Cluster, Layer, Overrides
from fleetgen.model.apps import overrides_of
from fleetgen.resolver.context import _Context
from fleetgen.resolver.layering import cluster_layers, label_conflicts, label_layers, label_matches

# Layer fields that only an overlay can apply: a kustomize base's (an app from another source has
# none); name_prefix is an Overrides field only.
KUSTOMIZE_FIELDS = (
    "images",
    "replicas",
    "config",
    "patches",
    "common_labels",
    "common_annotations",
    "name_prefix",
)
# Those a chart app sets through `values`; its images and patches post-render what the chart
# renders (Flux: HelmRelease postRenderers; Argo CD refuses them: `fleetgen.emit.argocd.checks`).
VALUES_FIELDS = tuple(name for name in KUSTOMIZE_FIELDS if name not in ("images", "patches"))


def layers_of(app: App) -> list[Layer]:
    """The layers ``app`` writes: the App itself, then each of its Overrides."""
    return [app, *overrides_of(app)]


def check_layer_keys(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """Each per_env, per_label and per_cluster key names where the app runs (``placed``), and two
    per_label layers that one cluster matches do not set one value differently."""
    placed_envs = {c.env for c in placed} if app.per_env else set()
    for env in app.per_env:
        if env not in placed_envs:
            ctx.report(
                app.per_env[env],
                f"app {app.name!r}: per_env key {env!r} is not an "
                f"environment the app runs in "
                f"({', '.join(sorted(placed_envs)) or 'none'})",
            )
    for selection, overrides in app.per_label.items():
        if not any(label_matches(selection, c.labels) for c in placed):
            ctx.report(
                overrides,
                f"app {app.name!r}: per_label key {selection!r} matches no cluster the app runs on",
            )
    for conflicting, message in label_conflicts(app, placed):
        ctx.report(conflicting, message)
    placed_names = {c.name for c in placed} if app.per_cluster else set()
    for name in app.per_cluster:
        if name not in placed_names:
            ctx.report(
                app.per_cluster[name],
                f"app {app.name!r}: per_cluster key {name!r} is not a cluster the app runs on",
            )


def check_layer_kinds(ctx: _Context, app: App) -> None:
    """Kustomize settings on a chart app, chart settings on a kustomize app."""
    for layer in layers_of(app):
        if app.chart is None:
            chart_fields = [
                name
                for name in ("values", "values_files", "chart_version")
                if getattr(layer, name, None)
            ]
            if chart_fields:
                ctx.report(
                    layer,
                    f"app {app.name!r}: {' and '.join(chart_fields)} apply to "
                    "chart apps (App(chart=HelmChart(...))); a kustomize base takes "
                    "images, replicas, config and patches",
                )
            continue
        for name in VALUES_FIELDS:
            if getattr(layer, name, None):
                ctx.report(
                    layer,
                    f"app {app.name!r}: {name} is for kustomize bases; a chart "
                    f"app sets this through values={{...}} (the chart's values)",
                )
        if app.chart.path is not None and isinstance(layer, Overrides) and layer.chart_version:
            ctx.report(
                layer,
                f"app {app.name!r}: chart_version is for a chart from a "
                f"repository; the chart at {app.chart.path!r} is the one in this "
                "revision of the repository (its Chart.yaml's version, never a range)",
            )
    if app.chart is not None and app.secrets:
        ctx.report(
            app,
            f"app {app.name!r}: secrets= is for kustomize bases; a chart app "
            "refers to its Secrets through values={...} (e.g. an existingSecret "
            "value) and gets them from another app",
        )


def check_name_prefix(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """A per_label or per_cluster name_prefix is written in the cluster overlay, which kustomize
    builds on the env overlay: where the env overlay has a prefix, the cluster's would be put in
    front of it, so it may only repeat it."""
    reported: set[int] = set()
    for cluster in placed:
        env_layer = app.per_env.get(cluster.env)
        above = env_layer.name_prefix if env_layer is not None else None
        deeper = [layer for _, layer in cluster_layers(app, cluster) if layer.name_prefix]
        if above is None or not deeper or deeper[-1].name_prefix == above:
            continue
        layer = deeper[-1]
        if id(layer) not in reported:
            reported.add(id(layer))
            ctx.report(
                layer,
                f"app {app.name!r}: name_prefix {layer.name_prefix!r} (cluster "
                f"{cluster.name!r}) would be put in front of the prefix {above!r} of "
                f"per_env[{cluster.env!r}] (kustomize prefixes at each overlay, and a cluster "
                "overlay builds on its env overlay): set the prefix in per_env only, or in "
                "per_label/per_cluster only",
            )


def _turns_automated_off(layer: Layer) -> bool:
    sync = layer.sync
    return sync is not None and "automated" in sync.model_fields_set and not sync.automated


def check_rollout_sync(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """A layer may not turn automated sync off where the environment rolls out in waves."""
    if not any(_turns_automated_off(layer) for layer in layers_of(app)):
        return
    layers: dict[int, tuple[Layer, str]] = {}
    for cluster in placed:
        if ctx.envs[cluster.env].rollout is not None:
            candidates: list[Layer | None] = [
                app,
                app.per_env.get(cluster.env),
                *(layer for _, layer in label_layers(app, cluster.labels)),
                app.per_cluster.get(cluster.name),
            ]
            for candidate in candidates:
                if candidate is not None:
                    layers.setdefault(id(candidate), (candidate, cluster.env))
    for layer, env_name in layers.values():
        if _turns_automated_off(layer):
            ctx.report(
                layer,
                f"app {app.name!r}: environment {env_name!r} has a rollout, which "
                "needs automated sync; remove automated=False",
            )
