"""The layering rules: which layers reach a placement and how each applies on the shallower ones.

Layers apply in the order fleet, env, app, per_env, per_label (each matching ``key=value``, in
key order), per_cluster (the names recorded in ``Settings.provenance``: ``per_label[key=value]``
for a per_label layer); a deeper layer wins key by key, and a field it does not set keeps the
shallower value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.model import (
    App,
    Cluster,
    ClusterVar,
    Environment,
    Fleet,
    Layer,
    Overrides,
    Spec,
    SyncPolicy,
)
from fleetgen.model.fields import repo_path
from fleetgen.resolver.plan import ImageRef, Placement, Settings
from fleetgen.resolver.values import leaf_items, merge_values, value_path


def layered(settings: Settings, layers: Iterable[tuple[str, Layer | None]]) -> Settings:
    """``settings`` with each (provenance name, layer) of ``layers`` applied on top, in order."""
    for layer_name, layer in layers:
        settings = _apply(settings, layer_name, layer)
    return settings


def _apply(settings: Settings, layer_name: str, layer: Layer | None) -> Settings:
    """``settings`` with ``layer`` applied on top."""
    if layer is None:
        return settings
    provenance = dict(settings.provenance)
    images, replicas = dict(settings.images), dict(settings.replicas)
    config, patches = _copy_config(settings.config), list(settings.patches)
    labels, annotations = dict(settings.labels), dict(settings.annotations)
    for image in layer.images:
        images[image.name] = images.get(image.name, ImageRef(image.name)).deepen(image)
        if image.new_name is not None:
            provenance[f"image/{image.name}/name"] = layer_name
        if image.tag is not None or image.digest is not None:
            provenance[f"image/{image.name}/version"] = layer_name
    _merge(replicas, layer.replicas, "replicas", layer_name, provenance)
    for configmap, values in layer.config.items():
        _merge(
            config.setdefault(configmap, {}),
            values,
            f"config/{configmap}",
            layer_name,
            provenance,
        )
    for patch in layer.patches:
        provenance[f"patch/{len(patches)}"] = layer_name
        patches.append(patch)
    _merge(labels, layer.common_labels, "label", layer_name, provenance)
    _merge(annotations, layer.common_annotations, "annotation", layer_name, provenance)
    chart_version, source_path = settings.chart_version, settings.source_path
    resources, components = settings.resources, settings.components
    values_files, name_prefix = settings.values_files, settings.name_prefix
    namespace = settings.namespace
    if isinstance(layer, Overrides):
        if layer.chart_version is not None:
            chart_version = layer.chart_version
            provenance["chart/version"] = layer_name
        if layer.resources:
            resources = _added(resources, layer.resources, "resource", layer_name, provenance)
        if layer.components:
            components = _added(components, layer.components, "component", layer_name, provenance)
        if layer.values_files:
            files = ((layer_name, repo_path(path)) for path in layer.values_files)
            values_files = (*values_files, *files)
        if layer.name_prefix is not None:
            name_prefix = layer.name_prefix
            provenance["name_prefix"] = layer_name
        if layer.namespace is not None:
            namespace = layer.namespace
            provenance["namespace"] = layer_name
    elif isinstance(layer, App):  # no provenance entry: explain shows the app's namespace
        namespace = layer.namespace
    path = layer.path if isinstance(layer, Overrides | App) else None
    if path is not None and (not isinstance(layer, App) or layer.source is not None):
        source_path = path
        provenance["path"] = layer_name
    return Settings(
        images=images,
        replicas=replicas,
        config=config,
        patches=tuple(patches),
        labels=labels,
        annotations=annotations,
        sync=merge_sync(settings.sync, layer.sync, layer_name, provenance),
        values=merge_values(settings.values, layer.values, layer_name, provenance),
        chart_version=chart_version,
        source_path=source_path,
        resources=resources,
        components=components,
        values_files=values_files,
        name_prefix=name_prefix,
        namespace=namespace,
        provenance=provenance,
    )


def _added(
    found: tuple[str, ...],
    paths: Iterable[str],
    kind: str,
    layer_name: str,
    provenance: dict[str, str],
) -> tuple[str, ...]:
    """``found`` with the repo paths ``paths`` a layer adds (normalized; one already there stays
    where a shallower layer put it); provenance ``<kind>/<index>`` names the layer of each."""
    added = list(found)
    for path in map(repo_path, paths):
        if path not in added:
            provenance[f"{kind}/{len(added)}"] = layer_name
            added.append(path)
    return tuple(added) if len(added) > len(found) else found


def _copy_config(config: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    return {name: dict(values) for name, values in config.items()}


def _merge(
    target: dict[str, Any],
    values: Mapping[str, Any],
    prefix: str,
    layer_name: str,
    provenance: dict[str, str],
) -> None:
    for key, value in values.items():
        target[key] = value
        provenance[f"{prefix}/{key}"] = layer_name


def merge_sync(
    base: SyncPolicy, deeper: SyncPolicy | None, layer_name: str, provenance: dict[str, str]
) -> SyncPolicy:
    """``base`` with the fields ``deeper`` explicitly sets; ``sync_options`` add up by option
    name (`merge_options`)."""
    if deeper is None or not deeper.model_fields_set:
        return base
    changes = {name: getattr(deeper, name) for name in deeper.model_fields_set}
    if "sync_options" in changes:
        changes["sync_options"] = merge_options(base.sync_options, deeper.sync_options)
    for name in changes:
        provenance[f"sync/{name}"] = layer_name
    return base.model_copy(update=changes)


def merge_options(base: list[str], deeper: list[str]) -> list[str]:
    """Argo CD sync options of two layers: ``deeper`` adds its options to ``base``'s, and one it
    names again (``Name=value``, by the name before ``=``) replaces that value in place."""
    merged = {option.partition("=")[0]: option for option in base}
    merged.update({option.partition("=")[0]: option for option in deeper})
    return list(merged.values())


def with_values_files(
    settings: Settings, chart_files: Iterable[str], documents: Mapping[str, Mapping[str, Any]]
) -> Settings:
    """A chart placement's ``settings`` with its values files in effect: HelmChart.values_files
    (``chart_files``) and then its layers' (``settings.values_files``), merged in that order as
    chained ``helm -f`` files are, and its values= layers on top: one `merge_values` throughout.
    ``documents``: repo path -> a file's values. Provenance names a file's values ``<layer>
    file <path>`` (``chart file <path>`` for HelmChart's)."""
    files = (*(("chart", repo_path(path)) for path in chart_files), *settings.values_files)
    if not files:
        return settings
    provenance = {k: v for k, v in settings.provenance.items() if not k.startswith("values/")}
    merged: dict[str, Any] = {}
    for layer, path in files:
        merged = merge_values(merged, documents[path], f"{layer} file {path}", provenance)
    merged = merge_values(merged, settings.values, "", provenance)
    # each leaf of values= keeps the layer that set it
    provenance.update((k, v) for k, v in settings.provenance.items() if k.startswith("values/"))
    return replace(settings, values=merged, values_files=files, provenance=provenance)


def label_layers(app: App, labels: Mapping[str, str]) -> list[tuple[str, Overrides]]:
    """The ``per_label`` layers of ``app`` that a cluster with ``labels`` matches, in key order,
    each with its provenance name ``per_label[key=value]``."""
    if not app.per_label:  # most apps: skip the sort (this runs per cluster)
        return []
    return [
        (f"per_label[{selection}]", layer)
        for selection, layer in sorted(app.per_label.items())
        if label_matches(selection, labels)
    ]


def cluster_layers(app: App, cluster: Cluster) -> tuple[tuple[str, Overrides], ...]:
    """The layers deeper than per_env that reach ``cluster``: per_label, then per_cluster."""
    own = app.per_cluster.get(cluster.name)
    return (*label_layers(app, cluster.labels), *((("per_cluster", own),) if own else ()))


def label_conflicts(
    app: App,
    clusters: Iterable[Cluster],
    assigned: Callable[[Overrides], Mapping[str, Any]] | None = None,
    how: str = "",
) -> list[tuple[Overrides, str]]:
    """Two per_label layers that one cluster matches may not set one value differently (which
    would win is no order a reader sees): (the deeper layer, message) for each such value.
    ``assigned``: what a layer sets by provenance key (default `assignments`; ``how`` says
    how, e.g. through values files)."""
    assigned = assigned or assignments
    found: list[tuple[Overrides, str]] = []
    if len(app.per_label) < 2:  # no two layers to conflict
        return found
    reported: set[tuple[str, str, str]] = set()
    for cluster in clusters:
        matched = label_layers(app, cluster.labels)
        for index, (first, shallow) in enumerate(matched):
            sets = assigned(shallow)
            for second, deep in matched[index + 1 :]:
                for key, value in sorted(assigned(deep).items()):
                    if key in sets and sets[key] != value and (first, second, key) not in reported:
                        reported.add((first, second, key))
                        found.append(
                            (
                                deep,
                                f"app {app.name!r}: {first} and {second} both match "
                                f"cluster {cluster.name!r} and set {key}{how} differently "
                                f"({sets[key]!r} and {value!r}); set it in one of "
                                "them, or per_cluster",
                            )
                        )
    return found


def label_matches(selection: str, labels: Mapping[str, str]) -> bool:
    """Whether a cluster with ``labels`` has the label ``selection`` ('key=value') names."""
    key, _, value = selection.partition("=")
    return labels.get(key) == value


def assignments(layer: Layer) -> dict[str, Any]:
    """What ``layer`` sets, by provenance key, with the value it sets there (patches, which are
    appended, set no key)."""
    found: dict[str, Any] = {}
    for image in layer.images:
        if image.new_name is not None:
            found[f"image/{image.name}/name"] = image.new_name
        if image.tag is not None or image.digest is not None:
            found[f"image/{image.name}/version"] = (image.tag, image.digest)
    found.update((f"replicas/{name}", count) for name, count in layer.replicas.items())
    found.update(
        (f"config/{configmap}/{key}", value)
        for configmap, values in layer.config.items()
        for key, value in values.items()
    )
    found.update((f"label/{key}", value) for key, value in layer.common_labels.items())
    found.update((f"annotation/{key}", value) for key, value in layer.common_annotations.items())
    if layer.sync is not None:
        found.update(
            (f"sync/{name}", getattr(layer.sync, name)) for name in layer.sync.model_fields_set
        )
    found.update(
        (f"values/{value_path(path)}", value) for path, value in leaf_items(layer.values, ())
    )
    if isinstance(layer, Overrides) and layer.chart_version is not None:
        found["chart/version"] = layer.chart_version
    if isinstance(layer, Overrides) and layer.path is not None:
        found["path"] = layer.path if isinstance(layer.path, ClusterVar) else repo_path(layer.path)
    return found


def layer_object(fleet: Fleet, placement: Placement, layer: str) -> Spec | None:
    """The spec object of the layer ``layer`` (as ``Settings.provenance`` names it) of
    ``placement``: the Fleet, its Environment, the App or one of its Overrides."""
    if layer == "fleet":
        return fleet
    if layer == "env":
        return next(env for env in fleet.environments if env.name == placement.env)
    app = next(app for app in fleet.apps if app.name == placement.app)
    if layer == "per_env":
        return app.per_env.get(placement.env)
    if layer == "per_cluster":
        return app.per_cluster.get(placement.cluster)
    if layer.startswith("per_label["):
        return app.per_label.get(layer[len("per_label[") : -1])
    return app if layer == "app" else None


def sync_owner(fleet: Fleet, placement: Placement, name: str) -> Spec:
    """Where the effective sync field ``name`` of ``placement`` was set: the SyncPolicy of the
    layer its provenance names (the App when no layer has one, e.g. a default)."""
    owner = layer_object(
        fleet, placement, placement.settings.provenance.get(f"sync/{name}", "fleet")
    )
    if isinstance(owner, Fleet | Environment | Layer) and owner.sync is not None:
        return owner.sync
    return next(app for app in fleet.apps if app.name == placement.app)


def cascade_delete(fleet: Fleet, env: Environment, app: App) -> tuple[bool, str]:
    """Whether removing a placement of ``app`` in ``env`` deletes its workloads, and the layer
    that says so: ``app``, else ``env``, else ``fleet`` (``default`` when it is left unset)."""
    if app.cascade_delete is not None:
        return app.cascade_delete, "app"
    if env.cascade_delete is not None:
        return env.cascade_delete, "env"
    return (
        fleet.cascade_delete,
        "fleet" if "cascade_delete" in fleet.model_fields_set else "default",
    )
