"""Instances folded into apps: one ``App(...)`` per name and identity, its targets the clusters
it runs on (whole environments where it can), what differs per cluster in per_env/per_cluster
layers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fleetgen.importer.draft import ChartRef, Draft, Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.layers import Layers, common, layered, layered_files, residual
from fleetgen.importer.sources import RANGE_WAIVER
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model import SyncPolicy
from fleetgen.rules.chartversions import is_range
from fleetgen.util.templating import Call

_META = (("labels", "label"), ("annotations", "annotation"))  # Instance fields, what each is


def sync_call(fields: Mapping[str, Any]) -> Call:
    """``SyncPolicy(...)`` with its arguments in the order the class declares them."""
    order = list(SyncPolicy.model_fields)
    return Call("SyncPolicy", dict(sorted(fields.items(), key=lambda item: order.index(item[0]))))


def fleet_sync(instances: Sequence[Instance]) -> dict[str, Any]:
    """The sync settings every instance shares: the fleet's."""
    return common([instance.sync for instance in instances])


@dataclass(frozen=True, slots=True)
class Folded:
    """One app: its name, the instances it stands for, and its ``App(...)``."""

    name: str
    instances: tuple[Instance, ...]
    call: Call


def fold(draft: Draft, shared_sync: Mapping[str, Any]) -> list[Folded]:
    """The apps the draft's instances make, in the order they were found."""
    clusters = draft.clusters
    where = _Clusters(
        {cluster.name: cluster.env for cluster in clusters},
        draft.envs,
        {cluster.name: dict(cluster.labels) for cluster in clusters},
        draft.cascade,
    )
    apps = _split(draft.instances, where.env_of)
    renamed = {
        (instance.name, instance.cluster): name for name, group in apps for instance in group
    }
    folded = [
        Folded(name, tuple(group), _app(name, group, where, renamed, shared_sync))
        for name, group in apps
    ]
    draft.findings += [f for name, group in apps for f in _partial(name, group, renamed)]
    draft.findings += [f for name, group in apps for f in _unshared(name, group)]
    return _dependencies_first(folded)


def _dependencies_first(apps: list[Folded]) -> list[Folded]:
    """``apps`` with each after those it depends on, else in the order found."""
    left = list(apps)
    done: list[Folded] = []
    while left:
        names = {app.name for app in left}
        ready = next(
            (app for app in left if not names & set(app.call.kwargs.get("depends_on", []))),
            left[0],  # a cycle: as found (the build reports it)
        )
        left.remove(ready)
        done.append(ready)
    return done


def _split(
    instances: Sequence[Instance], env_of: Mapping[str, str]
) -> list[tuple[str, list[Instance]]]:
    """(app name, its instances): instances of one name that differ in identity (e.g. a path
    per environment) are apps of their own, named after their environment or cluster."""
    by_name: dict[str, dict[tuple[Any, ...], list[Instance]]] = {}
    for instance in instances:
        by_name.setdefault(instance.name, {}).setdefault(instance.identity(), []).append(instance)
    taken = set(by_name)
    apps: list[tuple[str, list[Instance]]] = []
    for name, kinds in by_name.items():
        for group in kinds.values():
            apps.append((_name(name, group, env_of, taken) if len(kinds) > 1 else name, group))
    return apps


def _name(name: str, group: list[Instance], env_of: Mapping[str, str], taken: set[str]) -> str:
    """``NAME-ENV`` for the instances of one environment, else ``NAME-CLUSTER``."""
    envs = sorted({env_of[instance.cluster] for instance in group})
    suffix = envs[0] if len(envs) == 1 else sorted(i.cluster for i in group)[0]
    found = f"{name}-{suffix}"
    if found in taken:
        found = f"{name}-{sorted(i.cluster for i in group)[0]}"
    taken.add(found)
    return found


@dataclass(frozen=True, slots=True)
class _Clusters:
    """What an app's fields depend on beyond its instances: each cluster's environment and
    labels, the environments in order, whether the fleet deletes what a removed app deployed."""

    env_of: Mapping[str, str]
    envs: list[str]
    labels_of: Mapping[str, Mapping[str, str]]
    cascade: bool  # the fleet's cascade_delete


def _app(
    name: str,
    group: list[Instance],
    where: _Clusters,
    renamed: Mapping[tuple[str, str], str],
    shared_sync: Mapping[str, Any],
) -> Call:
    """``App(...)`` of one app's instances: its source, targets, dependencies, settings and
    layers."""
    first = group[0]
    by_cluster = {instance.cluster: _settings(instance, shared_sync) for instance in group}
    defaults = {"chart_version": first.chart_version} if first.chart_version else {}
    files = {instance.cluster: instance.values_files for instance in group}
    layers = _joined(
        layered(by_cluster, where.env_of, where.labels_of, defaults),
        _folders(group, where),
        layered_files(files, where.env_of, "values_files"),
    )
    fields: dict[str, Any] = {"name": name, "project": first.project, "namespace": first.namespace}
    fields.update(_source(first, layers.shared))
    placed = {instance.cluster for instance in group}
    runtime = first.runtime
    targets = _targets(placed, where) if runtime is None else _runtime(runtime, placed, where)
    if targets is not None:
        fields["targets"] = targets
    depends = set.intersection(*(_depends(i, renamed) for i in group))
    if depends:
        fields["depends_on"] = sorted(depends)
    fields.update(_layer_fields(layers.shared))
    fields.update(_layers(layers, where.envs))
    own = dict(first.app_fields)
    if "patches" in own and "patches" in fields:  # the Kustomization's, then substitution's
        own["patches"] = [*own["patches"], *fields.pop("patches")]
    fields.update(own)
    fields.update(_shared_meta(group))
    if all(i.cascade for i in group) and not where.cascade:
        fields["cascade_delete"] = True
    if any(i.chart_version and is_range(i.chart_version) for i in group):
        fields["waivers"] = [RANGE_WAIVER]  # said in a finding where the version was read
    return Call("App", fields)


def _depends(instance: Instance, renamed: Mapping[tuple[str, str], str]) -> set[str]:
    """The apps an instance depends on (on its cluster)."""
    found = {renamed.get((dep, instance.cluster)) for dep in instance.depends_on}
    return {name for name in found if name is not None}


def _partial(
    name: str, group: list[Instance], renamed: Mapping[tuple[str, str], str]
) -> list[Finding]:
    """A finding for each dependency of an app on some of its clusters only (an app's
    ``depends_on`` holds on all of them)."""
    everywhere = set.intersection(*(_depends(i, renamed) for i in group))
    return [
        instance.origin.finding(
            f"{name} depends on {dep!r} on {instance.cluster!r}, not on all its clusters",
            "fleetgen's depends_on holds on every cluster of an app: that order is not kept; "
            "order it by hand if it matters",
        )
        for instance in group
        for dep in sorted(_depends(instance, renamed) - everywhere)
    ]


def _shared_meta(group: list[Instance]) -> dict[str, Any]:
    """The labels and annotations the Applications of every instance have alike:
    ``App(labels=..., annotations=...)``."""
    found: dict[str, Any] = {}
    for field, _ in _META:
        first: dict[str, str] = getattr(group[0], field)
        same = {k: v for k, v in first.items() if all(getattr(i, field).get(k) == v for i in group)}
        if same:
            found[field] = same
    return found


def _unshared(name: str, group: list[Instance]) -> list[Finding]:
    """A finding for each label or annotation that differs between an app's clusters (or
    some lack)."""
    found = []
    for field, word in _META:
        for key in sorted({key for i in group for key in getattr(i, field)}):
            values = {i.cluster: getattr(i, field).get(key) for i in group}
            if len(set(values.values())) > 1:
                shown = ", ".join(f"{v!r} on {c!r}" for c, v in sorted(values.items()) if v)
                found.append(
                    group[0].origin.finding(
                        f"{name}: {word} {key!r} differs between its clusters ({shown})",
                        f"fleetgen's {field} are the same on every cluster of an app: not "
                        "mapped; set it by hand if it matters",
                    )
                )
    return found


def _source(first: Instance, shared: dict[str, Any]) -> dict[str, Any]:
    """The fields saying where an app's manifests come from (taking the chart version and a
    source's path out of the settings all clusters share)."""
    if first.chart is not None:
        version, files = shared.pop("chart_version", None), shared.pop("values_files", [])
        return {"chart": _chart(first.chart, version, files)}
    if first.source is not None:
        path = shared.pop("path", None)
        return {"source": first.source, **({"path": path} if path not in (None, ".") else {})}
    if first.overlay is not None:  # its overlay folders are layers (`_with_folders`)
        return {}
    return {"path": first.path}


def _settings(instance: Instance, shared_sync: Mapping[str, Any]) -> dict[str, Any]:
    """An instance's layered settings, its sync beyond the fleet's."""
    settings: dict[str, Any] = {}
    if instance.source is not None and instance.path is not None:
        settings["path"] = instance.path
    if instance.chart_version:
        settings["chart_version"] = instance.chart_version
    if instance.values:
        settings["values"] = instance.values
    if instance.config:
        settings["config"] = instance.config
    if instance.replaced:
        settings["replaced"] = instance.replaced
    sync = residual(instance.sync, shared_sync)
    if sync:
        settings["sync"] = sync
    return settings


def _folders(group: list[Instance], where: _Clusters) -> Layers:
    """The overlay folder of each instance that has one where it is kept: an environment's in
    its per_env layer, a cluster's in its per_cluster layer."""
    per_env: dict[str, dict[str, Any]] = {}
    per_cluster: dict[str, dict[str, Any]] = {}
    for instance in group:
        if instance.overlay == "per_env":
            per_env[where.env_of[instance.cluster]] = {"resources": [instance.path]}
        elif instance.overlay == "per_cluster":
            per_cluster[instance.cluster] = {"resources": [instance.path]}
    return Layers({}, per_env, per_cluster=per_cluster)


def _joined(*found: Layers) -> Layers:
    """The settings of several `Layers` (of different fields) together."""
    merged = Layers({})
    for layers in found:
        merged.shared.update(layers.shared)
        for mine, theirs in (
            (merged.per_env, layers.per_env),
            (merged.per_label, layers.per_label),
            (merged.per_cluster, layers.per_cluster),
        ):
            for key, settings in theirs.items():
                mine[key] = {**mine.get(key, {}), **settings}
    return Layers(
        merged.shared, merged.per_env, merged.per_label, dict(sorted(merged.per_cluster.items()))
    )


def _layer_fields(settings: Mapping[str, Any]) -> dict[str, Any]:
    """App or Overrides fields of one layer's settings."""
    fields: dict[str, Any] = {}
    if "path" in settings:  # in another source: Overrides(path=...)
        fields["path"] = settings["path"]
    if "resources" in settings:  # an overlay folder: Overrides(resources=[...])
        fields["resources"] = settings["resources"]
    if "chart_version" in settings:
        fields["chart_version"] = settings["chart_version"]
    if settings.get("values_files"):
        fields["values_files"] = settings["values_files"]
    if settings.get("values"):
        fields["values"] = settings["values"]
    if settings.get("config"):
        fields["config"] = settings["config"]
    if settings.get("replaced"):
        fields["patches"] = [_replace(target, ops) for target, ops in settings["replaced"].items()]
    if settings.get("sync"):
        fields["sync"] = sync_call(settings["sync"])
    return fields


def _layers(layers: Layers, envs: list[str]) -> dict[str, Any]:
    """``per_env``, ``per_label`` and ``per_cluster`` of an app, environments in the fleet's
    order."""
    found = {
        "per_env": {env: layers.per_env[env] for env in envs if env in layers.per_env},
        "per_label": layers.per_label,
        "per_cluster": layers.per_cluster,
    }
    return {
        field: {key: Call("Overrides", _layer_fields(settings)) for key, settings in layer.items()}
        for field, layer in found.items()
        if layer
    }


def _replace(target: tuple[str, str, str], values: Mapping[str, Any]) -> Call:
    """``Patch(...)`` replacing the value at each JSON pointer of the object ``target`` (group,
    kind, name)."""
    group, kind, name = target
    selector = {"group": group} if group else {}
    operations = [{"op": "replace", "path": path, "value": v} for path, v in values.items()]
    return Call("Patch", {"target": {**selector, "kind": kind, "name": name}, "patch": operations})


def _chart(chart: ChartRef, version: str | None, files: list[str]) -> Call:
    """``HelmChart(...)``: a repository's chart with its version, or one kept here; the values
    files all its clusters read first."""
    fields = {
        "repo": chart.repo,
        "name": chart.name,
        "version": version if chart.path is None else None,
        "path": chart.path,
        "release_name": chart.release_name,
    }
    kept = {key: value for key, value in fields.items() if value is not None}
    return Call(
        "HelmChart", {**kept, **dict(chart.options), **({"values_files": files} if files else {})}
    )


def _runtime(selector: Mapping[str, Any], placed: set[str], where: _Clusters) -> Call:
    """``Selector(runtime=True)`` of a generator's label selector, which picks clusters another
    tool registers when the ApplicationSet runs; the clusters of the fleet it matches that the
    app does not run on excluded (Argo CD selects no cluster without a Secret)."""
    fields: dict[str, Any] = {}
    written = selector.get("matchExpressions", [])
    envs = [e for e in written if e["operator"] == "In" and _names_env(e["key"], where)]
    if envs:  # an environment label's values: its ApplicationSets select per environment
        fields["envs"] = [env for env in where.envs if all(env in e["values"] for e in envs)]
    if selector.get("matchLabels"):
        fields["match_labels"] = dict(selector["matchLabels"])
    expressions = [
        Call("Expr", {k: e[k] for k in ("key", "operator", "values") if e.get(k)})
        for e in written
        if e not in envs
    ]
    if expressions:
        fields["match_expressions"] = expressions
    others = [
        cluster
        for cluster, labels in where.labels_of.items()
        if cluster not in placed and selector_matches(selector, labels)
    ]
    if others:
        fields["exclude"] = sorted(others)
    return Call("Selector", {**fields, "runtime": True})


def _names_env(key: str, where: _Clusters) -> bool:
    """Whether label ``key`` holds each cluster's environment wherever a cluster has it."""
    carry = [(cluster, labels[key]) for cluster, labels in where.labels_of.items() if key in labels]
    return bool(carry) and all(where.env_of[cluster] == value for cluster, value in carry)


def _targets(clusters: set[str], where: _Clusters) -> Call | None:
    """No selector for every cluster; whole environments by name; else a label exactly those
    clusters have; else the clusters by name."""
    env_of = where.env_of
    if clusters == set(env_of):
        return None
    whole = [env for env in where.envs if {c for c, e in env_of.items() if e == env} <= clusters]
    if {c for c, e in env_of.items() if e in whole} == clusters:
        return Call("Selector", {"envs": whole})
    pairs = sorted({pair for c in clusters for pair in where.labels_of.get(c, {}).items()})
    for key, value in pairs:
        if {c for c, labels in where.labels_of.items() if labels.get(key) == value} == clusters:
            return Call("Selector", {"match_labels": {key: value}})
    return Call("Selector", {"clusters": sorted(clusters)})
