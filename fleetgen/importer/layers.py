"""Settings that differ per cluster, split into what every cluster shares and, per environment
and cluster, what is left: the shallowest layer that holds a value sets it, so the fleet says
each value once (Helm's and fleetgen's deep merge puts them back together)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


def common(values: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What every mapping of ``values`` holds alike (mappings compared key by key, deeply)."""
    if not values:
        return {}
    first, rest = values[0], values[1:]
    shared: dict[str, Any] = {}
    for key, value in first.items():
        others = [other[key] for other in rest if key in other]
        if len(others) != len(rest):
            continue
        if isinstance(value, Mapping) and all(isinstance(o, Mapping) for o in others):
            inner = common([value, *others])
            if inner or not any([value, *others]):
                shared[key] = inner
        elif all(other == value for other in others):
            shared[key] = value
    return shared


def residual(value: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    """What ``value`` holds beyond ``base`` (a `common` of it): merged deeply over ``base``,
    it gives ``value`` back."""
    left: dict[str, Any] = {}
    for key, item in value.items():
        if key not in base:
            left[key] = item
        elif isinstance(item, Mapping) and isinstance(base[key], Mapping):
            inner = residual(item, base[key])
            if inner:
                left[key] = inner
        elif item != base[key]:
            left[key] = item
    return left


@dataclass(frozen=True, slots=True)
class Layers:
    """Settings by layer: shared by all clusters, then per environment, per cluster label
    (``key=value``) and per cluster, each holding only what the layers above do not."""

    shared: dict[str, Any]
    per_env: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_label: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_cluster: dict[str, dict[str, Any]] = field(default_factory=dict)


def layered(
    by_cluster: Mapping[str, Mapping[str, Any]],
    env_of: Mapping[str, str],
    labels_of: Mapping[str, Mapping[str, str]],
    defaults: Mapping[str, Any] | None = None,
) -> Layers:
    """The layers of the clusters' settings ``by_cluster`` (empty layers left out): what the
    clusters of an environment share, else, when a label's values explain every difference, per
    label, and what is left per cluster. ``defaults`` are shared where the clusters share no
    value (a value the shallowest layer must hold)."""
    shared = {**(defaults or {}), **common(list(by_cluster.values()))}
    rest = {cluster: residual(value, shared) for cluster, value in by_cluster.items()}
    per_env, left = _grouped(rest, {cluster: env_of[cluster] for cluster in rest})
    if not left:
        return Layers(shared, per_env)
    keys = set.intersection(*(set(labels_of.get(cluster, {})) for cluster in rest))
    for key in sorted(keys):
        groups = {cluster: f"{key}={labels_of[cluster][key]}" for cluster in rest}
        per_label, unexplained = _grouped(rest, groups)
        if not unexplained and len(set(groups.values())) > 1:
            return Layers(shared, per_label=per_label)
    return Layers(shared, per_env, per_cluster=left)


def _grouped(
    rest: Mapping[str, Mapping[str, Any]], group_of: Mapping[str, str]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(what each group's clusters share, what is left of each cluster's settings)."""
    layers: dict[str, dict[str, Any]] = {}
    for group in sorted(set(group_of.values())):
        found = common([rest[cluster] for cluster in sorted(rest) if group_of[cluster] == group])
        if found:
            layers[group] = found
    left = {
        cluster: remains
        for cluster, value in sorted(rest.items())
        if (remains := residual(value, layers.get(group_of[cluster], {})))
    }
    return layers, left


def layered_files(
    by_cluster: Mapping[str, Sequence[str]], env_of: Mapping[str, str], key: str
) -> Layers:
    """Ordered lists of files by layer, under ``key``: the longest start every cluster's list
    shares, then the longest start the rest of an environment's clusters share, the rest per
    cluster (each layer's files come after those of the layers above it, so every cluster gets
    its list back)."""
    shared = _start(list(by_cluster.values()))
    rest = {cluster: list(files[len(shared) :]) for cluster, files in sorted(by_cluster.items())}
    per_env = {}
    for env in sorted({env_of[cluster] for cluster in rest}):
        found = _start([files for cluster, files in rest.items() if env_of[cluster] == env])
        if found:
            per_env[env] = {key: found}
    per_cluster = {}
    for cluster, files in rest.items():
        left = files[len(per_env.get(env_of[cluster], {}).get(key, [])) :]
        if left:
            per_cluster[cluster] = {key: left}
    return Layers({key: shared} if shared else {}, per_env, per_cluster=per_cluster)


def _start(lists: Sequence[Sequence[str]]) -> list[str]:
    """The longest start all ``lists`` share."""
    shared: list[str] = []
    for items in zip(*lists, strict=False):
        if any(item != items[0] for item in items):
            break
        shared.append(items[0])
    return shared
