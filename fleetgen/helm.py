"""Render Helm charts in-process with Helm's Go SDK (helm-python-sdk, the ``fleetgen[helm]`` extra).

``build`` never renders charts; tests (and ``validate --render``) do, to show that what each engine
passes to Helm renders what the spec says. Values given as text are parsed by Helm's own values
reader, as ``helm template -f`` (Argo CD) and helm-controller's ``valuesFrom`` read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = ["HelmNotInstalled", "parse_values", "render_chart"]

_HINT = "install fleetgen with the helm extra: pip install 'fleetgen[helm]'"


class HelmNotInstalled(Exception):
    """helm-python-sdk is not installed."""


def _sdk() -> Any:
    try:
        import helm_python  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise HelmNotInstalled(f"rendering charts needs helm-python-sdk; {_HINT}") from None
    return helm_python


def parse_values(text: str) -> dict[str, Any]:
    """A values document as Helm reads a ``-f`` file (YAML 1.1 scalars: ``no`` is false)."""
    values: dict[str, Any] = _sdk().values_from_yaml(text)
    return values


def render_chart(chart: Path, values: Mapping[str, Any], release: str,
                 namespace: str) -> list[dict[str, Any]]:
    """The objects ``chart`` (a directory) renders with ``values``, sorted by template path."""
    with _sdk().Chart.load(str(chart)) as loaded:
        rendered: dict[str, str] = loaded.render(dict(values), name=release, namespace=namespace)
    return [doc for _, text in sorted(rendered.items())
            for doc in yaml.safe_load_all(text) if isinstance(doc, dict)]
