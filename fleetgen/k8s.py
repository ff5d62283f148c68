"""Kubernetes' own rules that more than one layer needs: ConfigMap keys.

The spec's field types (`fleetgen.fields`) and the YAML writer (`fleetgen.yamlio`) both ask
these; they import nothing of fleetgen's but the YAML scalar rules.
"""

from __future__ import annotations

import re

from fleetgen.yamlscalar import needs_quotes

_CONFIGMAP_KEY = re.compile(r"[-._a-zA-Z0-9]{1,253}")


def configmap_key_problem(key: str) -> str | None:
    """Why ``key`` cannot be a key of a generated ConfigMap, or None.

    Keys that a YAML reader could take for a non-string are refused: kustomize v5's generator
    writes keys unquoted and fails on ``1``, ``true``, ``1e3``, ``2024-01-01`` and the like.
    """
    if not _CONFIGMAP_KEY.fullmatch(key):
        return f"invalid ConfigMap key {key!r}: use 1-253 letters, digits, '-_.'"
    if needs_quotes(key):
        return (f"ConfigMap key {key!r} reads as a number, boolean, null or date in YAML, and"
                " kustomize's configMapGenerator fails on such keys; rename it")
    return None
