"""Settings that differ per cluster, split into what every cluster shares and, per environment
and cluster, what is left: the shallowest layer that holds a value sets it, so the fleet says
each value once (Helm's and fleetgen's deep merge puts them back together)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


Layers = tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]


def layered(
    by_cluster: Mapping[str, Mapping[str, Any]],
    env_of: Mapping[str, str],
    defaults: Mapping[str, Any] | None = None,
) -> Layers:
    """(shared by all, per environment, per cluster) of the clusters' settings ``by_cluster``,
    empty layers left out; ``defaults`` are shared where the clusters share no value (a value
    the shallowest layer must hold)."""
    shared = {**(defaults or {}), **common(list(by_cluster.values()))}
    rest = {cluster: residual(value, shared) for cluster, value in by_cluster.items()}
    per_env: dict[str, dict[str, Any]] = {}
    for env in sorted({env_of[cluster] for cluster in rest}):
        found = common([rest[cluster] for cluster in sorted(rest) if env_of[cluster] == env])
        if found:
            per_env[env] = found
    per_cluster = {
        cluster: left
        for cluster, value in sorted(rest.items())
        if (left := residual(value, per_env.get(env_of[cluster], {})))
    }
    return shared, per_env, per_cluster
