"""The Plan: every placement (app × cluster) with its effective, layered settings.

``resolve`` builds it; emitters only translate it. Layers apply in the order fleet, env, app,
per_env, per_label (each matching ``key=value``, in key order), per_cluster (the names recorded
in ``Settings.provenance``: ``per_label[key=value]`` for a per_label layer); a deeper layer wins
key by key, and a field it does not set keeps the shallower value.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fleetgen.inputs.landing import Landing
from fleetgen.model import (
    App,
    AppSecret,
    Cluster,
    ClusterVar,
    Credentials,
    Engine,
    Environment,
    Fleet,
    Image,
    Layer,
    NamespaceMeta,
    Overrides,
    Patch,
    Project,
    RemoteSource,
    Spec,
    SyncPolicy,
)
from fleetgen.model.fields import repo_path

TIMING_FIELDS = ("interval", "timeout", "retry_interval", "wait")  # SyncPolicy: Flux's alone


@dataclass(frozen=True, slots=True)
class ImageRef:
    """The effective image override for one image name of the base."""

    name: str
    new_name: str | None = None
    tag: str | None = None
    digest: str | None = None

    @property
    def current_name(self) -> str:
        """The image name as it appears after this override is applied."""
        return self.new_name or self.name

    def deepen(self, image: Image) -> ImageRef:
        """A deeper layer's Image on top: new_name kept unless set; tag and digest go together."""
        pinned = image.tag is not None or image.digest is not None
        return ImageRef(
            name=self.name,
            new_name=image.new_name or self.new_name,
            tag=image.tag if pinned else self.tag,
            digest=image.digest if pinned else self.digest,
        )


@dataclass(frozen=True, slots=True)
class Settings:
    """Effective settings after layering; ``provenance`` maps each value to the layer that set it.

    Provenance keys: ``image/<name>/name`` (new_name), ``image/<name>/version`` (tag and digest,
    set as a unit), ``replicas/<workload>``, ``config/<configmap>/<key>``,
    ``label/<key>``, ``annotation/<key>``, ``sync/<field>``, ``patch/<index>``; for a chart
    app ``values/<path>`` (each leaf of the merged values, `value_path`; a values file's leaf
    names ``<layer> file <path>``) and ``chart/version``;
    for an app from another source ``path`` (``App.path`` or an ``Overrides(path=...)``); for a
    kustomize app ``resource/<index>`` and ``component/<index>`` (the layer that added each entry
    of ``resources`` and ``components``), ``name_prefix`` and ``namespace`` (an
    ``Overrides(namespace=...)``; none for App.namespace).
    ``resolved`` maps such a key to the `ClusterVar` names filled in there (`resolve_vars`).
    """

    images: Mapping[str, ImageRef] = field(default_factory=dict)
    replicas: Mapping[str, int] = field(default_factory=dict)
    config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # (vars: resolve_vars)
    patches: tuple[Patch, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    sync: SyncPolicy = field(default_factory=SyncPolicy)
    values: Mapping[str, Any] = field(default_factory=dict)  # Helm values, `merge_values`
    chart_version: str | None = None  # an Overrides(chart_version=...) in effect
    # an app from another source: App.path or the Overrides(path=...) in effect
    source_path: str | ClusterVar | None = None
    # Overrides(resources=..., components=...) of every layer, repo-relative and normalized, in
    # layer order, each once
    resources: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    name_prefix: str | None = None  # the deepest Overrides(name_prefix=...): kustomize namePrefix
    # App.namespace or an Overrides(namespace=...): where it goes (a ClusterVar until filled in)
    namespace: str | ClusterVar | None = None
    # (layer, repo path) of each Helm values file in effect, in merge order: the layers'
    # Overrides(values_files=...); once `with_values_files` made a chart placement's values,
    # HelmChart.values_files first (layer ``chart``)
    values_files: tuple[tuple[str, str], ...] = ()
    provenance: Mapping[str, str] = field(default_factory=dict)
    resolved: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def apply(self, layer_name: str, layer: Layer | None) -> Settings:
        """These settings with ``layer`` applied on top."""
        if layer is None:
            return self
        provenance = dict(self.provenance)
        images, replicas, config = dict(self.images), dict(self.replicas), _copy_config(self.config)
        patches, labels, annotations = list(self.patches), dict(self.labels), dict(self.annotations)
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
        chart_version, source_path = self.chart_version, self.source_path
        resources, components = self.resources, self.components
        values_files, name_prefix, namespace = self.values_files, self.name_prefix, self.namespace
        if isinstance(layer, Overrides):
            if layer.chart_version is not None:
                chart_version = layer.chart_version
                provenance["chart/version"] = layer_name
            if layer.resources:
                resources = _added(resources, layer.resources, "resource", layer_name, provenance)
            if layer.components:
                components = _added(
                    components, layer.components, "component", layer_name, provenance
                )
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
            sync=merge_sync(self.sync, layer.sync, layer_name, provenance),
            values=merge_values(self.values, layer.values, layer_name, provenance),
            chart_version=chart_version,
            source_path=source_path,
            resources=resources,
            components=components,
            values_files=values_files,
            name_prefix=name_prefix,
            namespace=namespace,
            provenance=provenance,
        )

    def resolve_vars(self, values: Mapping[str, str]) -> Settings:
        """These settings with every `ClusterVar` in Helm values, config and the source path
        replaced by its value in ``values`` (a cluster's vars; resolve checks that it has each),
        ``resolved`` naming the vars filled in at each provenance key."""
        if not self.var_names():
            return self
        resolved: dict[str, tuple[str, ...]] = {}
        config = {
            name: {
                key: _filled(value, values, resolved, f"config/{name}/{key}")
                for key, value in entries.items()
            }
            for name, entries in self.config.items()
        }
        return replace(
            self,
            config=config,
            values=_filled_values(self.values, values, resolved),
            source_path=_filled(self.source_path, values, resolved, "path"),
            namespace=_filled(self.namespace, values, resolved, "namespace"),
            resolved=resolved,
        )

    def var_names(self) -> set[str]:
        """The names of the `ClusterVar`s these settings hold."""
        return {var.name for var in vars_in(self.held_vars())}

    def filled_namespace(self) -> str | None:
        """The namespace, once a `ClusterVar` there is filled in (or, `shared`, left out)."""
        assert not isinstance(self.namespace, ClusterVar)  # resolve fills it in or refuses it
        return self.namespace

    def held_vars(self) -> tuple[Any, ...]:
        """What may hold a `ClusterVar`: Helm values, config, the source path, the namespace."""
        return (self.values, self.config, self.source_path, self.namespace)

    def shared(self) -> Settings:
        """These settings without the config entries and namespace a `ClusterVar` sets: what an
        env overlay writes for all its clusters (each cluster overlay writes them with its
        value)."""
        if isinstance(self.namespace, ClusterVar):
            return replace(self, namespace=None).shared()
        if not vars_in(self.config):
            return self
        config = {
            name: {
                key: value for key, value in entries.items() if not isinstance(value, ClusterVar)
            }
            for name, entries in self.config.items()
        }
        return replace(self, config={name: entries for name, entries in config.items() if entries})


def vars_in(value: Any) -> list[ClusterVar]:
    """Every `ClusterVar` in ``value`` (dicts, lists, a ClusterVar), in document order."""
    if isinstance(value, str):  # most values: checked first (this walks every placement's)
        return []
    if isinstance(value, ClusterVar):
        return [value]
    if isinstance(value, dict):
        return [var for item in value.values() for var in vars_in(item)]
    if isinstance(value, list | tuple):
        return [var for item in value for var in vars_in(item)]
    return []


def _filled_values(
    doc: Mapping[str, Any],
    values: Mapping[str, str],
    resolved: dict[str, tuple[str, ...]],
    path: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A values document with its `ClusterVar`s filled in, each leaf as `_filled`."""
    return {
        key: _filled_values(item, values, resolved, (*path, key))
        if isinstance(item, dict) and item
        else _filled(item, values, resolved, "values/" + value_path((*path, key)))
        for key, item in doc.items()
    }


def _filled(
    value: Any, values: Mapping[str, str], resolved: dict[str, tuple[str, ...]], key: str
) -> Any:
    """The leaf ``value`` with each `ClusterVar` in it replaced from ``values``; the names go
    into ``resolved`` under the leaf's provenance ``key``."""
    found = vars_in(value)
    if not found:
        return value
    resolved[key] = tuple(dict.fromkeys(var.name for var in found))
    return replace_vars(value, lambda var: values[var.name])


def replace_vars(value: Any, replace: Callable[[ClusterVar], Any]) -> Any:
    """``value`` with each `ClusterVar` in it (maps, lists) replaced by ``replace(var)``."""
    if isinstance(value, ClusterVar):
        return replace(value)
    if isinstance(value, dict):
        return {key: replace_vars(item, replace) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [replace_vars(item, replace) for item in value]
    return value


def namespace_metadata(fleet: Fleet) -> dict[str, NamespaceMeta]:
    """Namespace -> the labels and annotations its project declares (`resolve` refuses two
    declarations of one namespace)."""
    return {
        name: meta
        for project in fleet.projects
        for name, meta in project.namespace_metadata.items()
    }


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


def leaf_items(value: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """(path, value) of each leaf of a values document under ``path`` (an empty map a leaf)."""
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in leaf_items(item, (*path, key))]
    return [(path, value)] if path else []


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


def merge_values(
    base: Mapping[str, Any],
    deeper: Mapping[str, Any],
    layer_name: str,
    provenance: dict[str, str],
    path: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``deeper`` on ``base`` as Helm merges chained values files (``-f a -f b``): maps key by
    key, anything else replaced whole; a None stays, so that Helm then drops the key, the chart's
    default included. Provenance of each leaf names the layer that set it."""
    merged = dict(base)
    for key, value in deeper.items():
        here = (*path, key)
        current = merged.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            merged[key] = merge_values(current, value, layer_name, provenance, here)
            continue
        replaced = "values/" + value_path(here)
        for known in [
            k for k in provenance if k == replaced or k.startswith((replaced + ".", replaced + "["))
        ]:
            del provenance[known]
        merged[key] = copy.deepcopy(value)
        provenance.update(
            (f"values/{value_path(leaf)}", layer_name) for leaf, _ in leaf_items(value, here)
        )
    return merged


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def value_path(path: Sequence[str]) -> str:
    """A values path as Helm's ``--set`` would name it: ``a.b``, keys with other characters
    quoted: ``podAnnotations["prometheus.io/scrape"]``."""
    parts = []
    for index, key in enumerate(path):
        if _PLAIN_KEY.fullmatch(key):
            parts.append(key if index == 0 else f".{key}")
        else:
            parts.append(f"[{json.dumps(key, ensure_ascii=False)}]")
    return "".join(parts)


def holds_null(value: Any) -> bool:
    """Whether a values document holds a None anywhere (then it must travel as text)."""
    if isinstance(value, dict):
        return any(holds_null(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(holds_null(item) for item in value)
    return value is None


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


def merge_options(base: list[str], deeper: list[str]) -> list[str]:
    """Argo CD sync options of two layers: ``deeper`` adds its options to ``base``'s, and one it
    names again (``Name=value``, by the name before ``=``) replaces that value in place."""
    merged = {option.partition("=")[0]: option for option in base}
    merged.update({option.partition("=")[0]: option for option in deeper})
    return list(merged.values())


# The health-check timeout of a Flux Kustomization that waits, unless SyncPolicy(timeout) says: a
# Deployment's default progress deadline (without one, kustomize-controller's
# ``Kustomization.GetTimeout`` gives max(interval - 30s, 30s), which fails slow rollouts).
WAIT_TIMEOUT = "10m"
HELM_TIMEOUT = "5m"  # helm-controller's when a HelmRelease says none (``GetTimeout``)
FLUX_DEFAULT = "Flux default"  # the source of a value the Flux object leaves to its controller


@dataclass(frozen=True, slots=True)
class Effective:
    """A value in effect and where it comes from: the layer that set it (as
    ``Settings.provenance`` names layers), ``FluxOptions``, ``default`` (fleetgen's), or
    `FLUX_DEFAULT` (the object leaves it out, and its controller uses this)."""

    value: Any
    source: str


def flux_timing(fleet: Fleet, placement: Placement) -> dict[str, Effective]:
    """The `TIMING_FIELDS` of ``placement`` on Flux (a Kustomization, or a chart app's
    HelmRelease): what its object says, or what Flux does where it says nothing. The Flux
    emitter writes every value whose source is not `FLUX_DEFAULT`; ``explain`` shows them all."""
    sync, provenance = placement.settings.sync, placement.settings.provenance

    def layer(name: str) -> str:
        return provenance.get(f"sync/{name}", "default")

    if sync.interval is not None:
        interval = Effective(sync.interval, layer("interval"))
    else:
        options = "FluxOptions" if "interval" in fleet.flux.model_fields_set else "default"
        interval = Effective(fleet.flux.interval, options)
    if sync.timeout is not None:
        timeout = Effective(sync.timeout, layer("timeout"))
    elif placement.chart is not None:
        timeout = Effective(HELM_TIMEOUT, FLUX_DEFAULT)
    elif sync.wait:
        timeout = Effective(WAIT_TIMEOUT, "default")
    else:  # kustomize-controller's Kustomization.GetTimeout
        timeout = Effective(go_duration(max(seconds(interval.value) - 30, 30)), FLUX_DEFAULT)
    if placement.chart is not None:  # helm-controller retries by its remediation settings
        retry_interval = Effective(None, "HelmRelease has none")
    elif sync.retry_interval is not None:
        retry_interval = Effective(sync.retry_interval, layer("retry_interval"))
    elif sync.retry is not None and sync.retry.limit != 0:
        # Flux retries at a fixed period: Argo CD's backoff ceiling is the closest match.
        retry_interval = Effective(sync.retry.backoff_max_duration, f"{layer('retry')}, from retry")
    else:  # kustomize-controller's Kustomization.GetRetryInterval
        retry_interval = Effective(interval.value, FLUX_DEFAULT)
    return {
        "interval": interval,
        "timeout": timeout,
        "retry_interval": retry_interval,
        "wait": Effective(sync.wait, layer("wait")),
    }


def helm_retries(app: App, placement: Placement) -> dict[str, Effective]:
    """Retries of a failed ``install`` and ``upgrade`` of a chart app's HelmRelease (Flux:
    ``remediation.retries``, -1 forever): ``HelmChart(install_retries=..., upgrade_retries=...)``
    (source ``chart``), else the sync policy's ``retry`` limit (the layer that set it), else none
    (helm-controller's default, 0)."""
    retry = placement.settings.sync.retry
    layer = placement.settings.provenance.get("sync/retry", "default")
    found = {}
    for action in ("install", "upgrade"):
        chosen = getattr(app.chart, f"{action}_retries", None)
        if chosen is not None:
            found[action] = Effective(chosen, "chart")
        elif retry is not None and retry.limit != 0:
            found[action] = Effective(retry.limit, f"{layer}, from retry")
        else:
            found[action] = Effective(0, FLUX_DEFAULT)
    return found


_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_GO_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)")


def seconds(duration: str) -> float:
    """A Go duration (``fields.duration``) in seconds."""
    return sum(float(number) * _GO_UNITS[unit] for number, unit in _GO_PART.findall(duration))


def go_duration(total: float) -> str:
    """``total`` seconds as Go's ``Duration.String`` writes them, e.g. ``9m30s``, ``1h0m0s``."""
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.9f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{int(hours)}h{int(minutes)}m{text}"
    return f"{int(minutes)}m{text}" if minutes else text


@dataclass(frozen=True, slots=True)
class SecretPlan:
    """An AppSecret with its remote keys' ``{cluster}``/``{env}`` placeholders filled."""

    secret: AppSecret
    data: Mapping[str, tuple[str, str | None]]  # secret key -> (remote key, property)


@dataclass(frozen=True, slots=True)
class EnvOverlay:
    """``overlays/<app>/<env>/``: the base with the fleet, env, app and per_env layers."""

    app: str
    env: str
    path: str
    base: str  # repo-relative path of the user's base
    settings: Settings
    base_configmaps: frozenset[str]  # the base's and those of what its layers add
    secrets: tuple[SecretPlan, ...] = ()
    # (kind, name) -> hash of the fleetgen-set config its pod template reads (``confighash``)
    config_hashes: Mapping[tuple[str, str], str] = field(default_factory=dict)

    @property
    def namespace(self) -> str | None:
        """The namespace it rewrites objects into; None: none (App(namespace=None))."""
        return self.settings.filled_namespace()


@dataclass(frozen=True, slots=True)
class ClusterOverlay:
    """``overlays/<app>/clusters/<cluster>/``: the env overlay plus the per_label layers the
    cluster matches and its per_cluster layer, in that order."""

    app: str
    cluster: str
    env_overlay: EnvOverlay
    path: str
    layers: tuple[tuple[str, Layer], ...]  # (provenance name, layer), in order
    settings: Settings  # fully effective, per_label and per_cluster included
    # what it sets in ConfigMaps: its layers' config, and config values its cluster's vars fill
    config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    secrets: tuple[SecretPlan, ...] = ()
    config_hashes: Mapping[tuple[str, str], str] = field(default_factory=dict)  # only changed ones
    # ConfigMaps shipped by what its own layers add (resources, components), for config= to merge
    added_configmaps: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ChartSource:
    """The chart of a chart app's placement: from a repository, or kept in this repository."""

    name: str
    version: str  # exact; for a chart kept in the repository, its Chart.yaml's
    repo: str | None = None  # https:// Helm repository or oci:// registry path, as written
    path: str | None = None  # repo-relative directory of a chart kept in the repository

    @property
    def oci(self) -> bool:
        """Whether the chart comes from an OCI registry."""
        return self.repo is not None and self.repo.startswith("oci://")


@dataclass(frozen=True, slots=True)
class Remote:
    """Where an app without overlay reads its manifests as they are: a directory of another
    source, or (``source`` None) a plain directory of this repository (no kustomization: Argo CD
    reads it as a directory source, Flux through kustomize-controller's generated kustomization).

    No overlay rewrites them: an app from another source has no namespace, its manifests say
    where things go; a plain directory's ``App(namespace=...)`` is its Argo CD destination
    namespace and Flux ``targetNamespace``, which put its objects in the same namespaces
    (`fleetgen.resolver` refuses objects the two would place apart).
    """

    source: RemoteSource | None
    path: str  # relative to the source's root (None: the repository's), normalized ("." for it)


def remote_path(app: App, settings: Settings | None = None) -> str | ClusterVar:
    """The directory an app without overlay reads, normalized ("." for the root): the one in
    effect in ``settings`` (App.path of an app from another source, or an
    ``Overrides(path=...)``), else ``App.path`` (a plain directory's); a `ClusterVar` where
    settings not yet resolved for a cluster hold one."""
    path = settings.source_path if settings is not None else None
    path = path if path is not None else app.path
    if isinstance(path, ClusterVar):
        return path
    return repo_path(path) if path is not None else "."


# Not frozen, unlike the other records of the Plan, though nothing changes one: a Plan holds one
# per app and cluster (100,000 in a large fleet), and a frozen dataclass's __init__ (one
# object.__setattr__ per field) took most of resolve's time building them.
@dataclass(slots=True)
class Placement:
    """One app on one cluster."""

    app: str
    cluster: str
    env: str
    overlay: str  # output-relative overlay path the engines point at ("" for chart and remote)
    settings: Settings
    engine: Engine  # the one engine that reconciles it
    cascade_delete: bool  # removing it deletes its workloads (`Fleet.cascades`)
    wave: int | None = None  # 1-based rollout step, None without a rollout
    chart: ChartSource | None = None  # a chart app's chart; its values are settings.values
    remote: Remote | None = None  # an app without overlay: another source, a plain directory
    # Selector(runtime=True) with ClusterVars: its settings before they were filled in, which the
    # ApplicationSet template carries (each var read from the cluster Secret's annotation)
    template: Settings | None = None

    @property
    def namespace(self) -> str | None:
        """Where it puts objects: App.namespace or the Overrides(namespace=...) in effect (a
        `ClusterVar` filled in by resolve); None for an App(namespace=None), whose manifests say
        where things go."""
        return self.settings.filled_namespace()

    @property
    def reads_fleet_repo(self) -> bool:
        """Whether it reads the fleet's repository: an overlay, a chart or a plain directory
        there."""
        if self.remote is not None:
            return self.remote.source is None
        return not (self.chart and self.chart.repo)


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything emitters need; built by ``resolve``."""

    fleet: Fleet
    placements: Sequence[Placement]
    env_overlays: Sequence[EnvOverlay]
    cluster_overlays: Sequence[ClusterOverlay]
    waves: Mapping[str, tuple[tuple[str, ...], ...]]  # env -> steps -> cluster names
    credentials: Mapping[str, Credentials | None]  # cluster -> filled-in credentials
    # The clusters an engine reaches from outside, so the only ones whose credentials are used:
    # those with an Argo CD placement and the spokes of a Flux hub. On any other cluster with a
    # placement, its own Flux pulls from Git.
    reached: frozenset[str]
    landing: Landing  # where the output files land
    # Cluster -> its CA bundle (base64 PEM): Cluster.ca_data, or the content of its CaFile.
    ca_data: Mapping[str, str] = field(default_factory=dict)
    # App(namespace=None) apps: the namespaces their manifests put objects in (metadata.namespace
    # and the Namespace objects they ship, from the inventory; for an app from another source,
    # its project's namespace patterns), and those Namespace objects.
    manifest_namespaces: Mapping[str, frozenset[str]] = field(default_factory=dict)
    namespace_objects: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Kustomize apps: (group, kind) of the cluster-scoped objects their base ships (inventory).
    cluster_kinds: Mapping[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    # Kustomize apps whose base lists remote bases: where each is listed ("file:line").
    remote_bases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # `on` by engine: the emitters' check, warnings and emit each ask for their engine's part.
    _parts: dict[Engine, Plan] = field(default_factory=dict, init=False, repr=False, compare=False)
    _by_app: dict[str, list[Placement]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )  # `by_app`, once asked for

    def permitted_cluster_kinds(
        self, project: Project, apps: Iterable[str]
    ) -> list[tuple[str, str]]:
        """The cluster-scoped kinds ``project`` permits its placed ``apps`` (Namespace aside,
        permitted by name as the apps create them): ``cluster_resources`` as written when the
        spec sets it, a boundary resolve holds the bases to; else every kind the apps' bases
        ship. Argo CD syncs a cluster-scoped object only if its AppProject lists the kind
        (controller/sync.go ``validateSyncPermissions``, ``IsGroupKindNamePermitted``)."""
        if "cluster_resources" in project.model_fields_set:
            return list(project.cluster_resources)
        shipped = {kind for app in apps for kind in self.cluster_kinds.get(app, ())}
        return sorted(shipped - {("", "Namespace")})

    def namespaces_of(self, app: App) -> frozenset[str]:
        """The namespaces ``app`` deploys into: those of its placements (App.namespace, or an
        Overrides(namespace=...)), or where its manifests put objects."""
        if app.namespace is not None:
            return frozenset(p.namespace for p in self.by_app().get(app.name, ()) if p.namespace)
        return self.manifest_namespaces.get(app.name, frozenset())

    def by_app(self) -> Mapping[str, Sequence[Placement]]:
        """app -> its placements, in Plan order (one walk, however often asked)."""
        if not self._by_app:
            for placement in self.placements:
                self._by_app.setdefault(placement.app, []).append(placement)
        return self._by_app

    def on(self, engine: Engine) -> Plan:
        """This Plan with only the placements ``engine`` reconciles (what its emitter gets)."""
        part = self._parts.get(engine)
        if part is None:
            part = self._parts[engine] = replace(
                self, placements=tuple(p for p in self.placements if p.engine == engine)
            )
        return part
