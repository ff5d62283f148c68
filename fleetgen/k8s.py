"""Kubernetes' own rules that more than one layer needs: ConfigMap keys and object identity.

`configmap_key_problem` serves the spec's field types (`fleetgen.fields`) and the YAML writer
(`fleetgen.yamlio`); `Key` and `identity` serve ``diff`` and ``validate``. Nothing here imports
more of fleetgen than the YAML scalar rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True, slots=True, order=True)
class Key:
    """The identity of one object; ``scope`` says where it lives (a cluster, the Argo CD hub, a
    file)."""

    scope: str
    group: str
    kind: str
    namespace: str
    name: str


def identity(scope: str, doc: Any) -> Key:
    """(scope, group, kind, namespace, name) of a Kubernetes-shaped document."""
    if not isinstance(doc, dict):
        return Key(scope, "", "", "", "")
    api = str(doc.get("apiVersion") or "")
    metadata = doc.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    return Key(scope, api.rpartition("/")[0] if "/" in api else "", str(doc.get("kind") or ""),
               str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
