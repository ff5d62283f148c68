"""Values as layers set them: Helm values documents merged as Helm merges chained values files
(`merge_values`, each leaf named as ``--set`` names it: `value_path`), and the `ClusterVar`s in
values, config and paths found (`vars_in`) and filled in (`filled`, `filled_values`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fleetgen.model import ClusterVar


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


def filled_values(
    doc: Mapping[str, Any],
    values: Mapping[str, str],
    resolved: dict[str, tuple[str, ...]],
    path: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A values document with its `ClusterVar`s filled in, each leaf as `filled`."""
    return {
        key: filled_values(item, values, resolved, (*path, key))
        if isinstance(item, dict) and item
        else filled(item, values, resolved, "values/" + value_path((*path, key)))
        for key, item in doc.items()
    }


def filled(
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


def leaf_items(value: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """(path, value) of each leaf of a values document under ``path`` (an empty map a leaf)."""
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in leaf_items(item, (*path, key))]
    return [(path, value)] if path else []
