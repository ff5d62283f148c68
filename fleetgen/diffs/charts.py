"""Chart apps in ``diff``: what changes for Helm, read from the two Plans, not from the files.

A chart version change is one line per app and environment with the clusters it reaches; a values
change is one line per value path (Helm's ``--set`` notation, `fleetgen.resolver.values.value_path`)
with the
clusters whose merged values change that way: the emitted objects carry values as a YAML text
block where a document holds a null, which a field diff would show as a blob. Only placements
present at both refs with a chart at both count (additions and removals are listed as such).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.resolver.plan import ChartSource, Placement, Plan
from fleetgen.resolver.values import value_path

ABSENT = object()  # a value path not set at one ref


@dataclass(frozen=True, slots=True)
class Bump:
    """The chart of an app in one environment changes version (or source) on ``clusters``."""

    app: str
    env: str
    clusters: tuple[str, ...]
    production: bool
    old: str  # the version, or "NAME VERSION from SOURCE" when the chart itself changes
    new: str


@dataclass(frozen=True, slots=True)
class ValueChange:
    """One value path of an app's merged values changes on ``clusters`` of one environment."""

    app: str
    env: str
    clusters: tuple[str, ...]
    production: bool
    path: str
    old: Any  # ABSENT where not set
    new: Any


def changes(
    base: Plan | None, head: Plan | None, production: frozenset[str]
) -> tuple[tuple[Bump, ...], tuple[ValueChange, ...]]:
    """Version and value changes of every chart placement at both refs, grouped by clusters."""
    before = _charted(base)
    bumps: dict[tuple[Any, ...], list[str]] = {}
    values: dict[tuple[Any, ...], list[str]] = {}
    for pair, new in sorted(_charted(head).items()):
        old = before.get(pair)
        if old is None:
            continue
        assert old.chart is not None and new.chart is not None
        if old.chart != new.chart:
            shown = _shown(old.chart, new.chart)
            bumps.setdefault((new.app, new.env, *shown), []).append(new.cluster)
        for path, was, now in _value_changes(old.settings.values, new.settings.values):
            values.setdefault((new.app, new.env, path, _key(was), _key(now)), []).append(
                new.cluster
            )
    found_bumps = tuple(
        sorted(
            (
                Bump(app, env, tuple(sorted(clusters)), env in production, old, new)
                for (app, env, old, new), clusters in bumps.items()
            ),
            key=order,
        )
    )
    found_values = tuple(
        sorted(
            (
                ValueChange(
                    app,
                    env,
                    tuple(sorted(clusters)),
                    env in production,
                    path,
                    _value(was),
                    _value(now),
                )
                for (app, env, path, was, now), clusters in values.items()
            ),
            key=order,
        )
    )
    return found_bumps, found_values


def _charted(plan: Plan | None) -> dict[tuple[str, str], Placement]:
    if plan is None:
        return {}
    return {(p.app, p.cluster): p for p in plan.placements if p.chart is not None}


def _shown(old: ChartSource, new: ChartSource) -> tuple[str, str]:
    """How the two ends of a chart change read: versions only when the chart stays the same."""
    if (old.name, old.repo, old.path) == (new.name, new.repo, new.path):
        return old.version, new.version
    return _described(old), _described(new)


def _described(chart: ChartSource) -> str:
    return f"{chart.name} {chart.version} from {chart.path or chart.repo}"


def _value_changes(
    old: Mapping[str, Any], new: Mapping[str, Any]
) -> Iterator[tuple[str, Any, Any]]:
    before, after = dict(_leaves(old)), dict(_leaves(new))
    for path in sorted(before.keys() | after.keys()):
        was, now = before.get(path, ABSENT), after.get(path, ABSENT)
        if _key(was) != _key(now):
            yield path, was, now


def _leaves(values: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(value path, value) of every leaf: a non-map value or an empty map."""
    if isinstance(values, Mapping) and (values or not path):
        for key, value in values.items():
            yield from _leaves(value, (*path, str(key)))
    else:
        yield value_path(path), values


def _key(value: Any) -> str:
    """A hashable, comparable form of a value (``1`` and ``True`` stay apart)."""
    return "" if value is ABSENT else json.dumps(value, sort_keys=True, default=str)


def _value(key: str) -> Any:
    return ABSENT if key == "" else json.loads(key)


def order(change: Bump | ValueChange) -> tuple[Any, ...]:
    """Production first, then by environment and app; a version change before its values."""
    return (
        not change.production,
        change.env,
        change.app,
        isinstance(change, ValueChange),
        change.clusters,
        getattr(change, "path", ""),
    )


def shown_value(value: Any) -> str:
    """A value as a diff line shows it: ``(unset)``, ``null``, a plain string, else JSON."""
    if value is ABSENT:
        return "(unset)"
    if isinstance(value, str) and value and value == value.strip() and "\n" not in value:
        return value
    return json.dumps(value, ensure_ascii=False)


def where(env: str, clusters: tuple[str, ...]) -> str:
    """``prod (3 clusters: dr, prod-east, prod-west)``."""
    count = f"{len(clusters)} cluster{'' if len(clusters) == 1 else 's'}"
    return f"{env} ({count}: {', '.join(clusters)})"


def line(change: Bump | ValueChange) -> str:
    """``chart cert-manager v1.16.2 → v1.17.1 in prod (3 clusters: …)`` or
    ``values of cert-manager in prod (3 clusters: …): replicaCount 2 → 3``."""
    if isinstance(change, Bump):
        return (
            f"chart {change.app} {change.old} → {change.new} in "
            f"{where(change.env, change.clusters)}"
        )
    return (
        f"values of {change.app} in {where(change.env, change.clusters)}: {change.path} "
        f"{shown_value(change.old)} → {shown_value(change.new)}"
    )


# Fields of emitted objects that carry a values document as text: an ApplicationSet's
# helm.values and its generators' helmValues, a Flux values ConfigMap's data (its key named
# after the text's hash, `fleetgen.emit.flux.charts.values_key`; once ``values.yaml``).
_VALUES_TEXT = re.compile(
    r'(\.helm\.values|\.values\.helmValues|data\["values(-[0-9a-f]+)?\.yaml"\])$'
)


def values_text(path: str) -> bool:
    """Whether a field path of an emitted object is a values document carried as text."""
    return bool(_VALUES_TEXT.search(path))
