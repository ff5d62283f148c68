"""What more than one emitter writes: constants, and the text of a chart app's values.

Emitters never import from one another; what two of them share lives here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleetgen.yamlio import dump

KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}


def values_text(values: Mapping[str, Any]) -> str:
    """A chart app's merged values as the text of a Helm values file (``-f``). Strings Helm's
    YAML 1.1 reader would take for something else (``no``, ``1e3``) are quoted, and a None is
    written ``null``, which Helm reads as "drop this key, the chart's default included"."""
    return dump(dict(values))
