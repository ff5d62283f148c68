"""Render Helm charts in-process with Helm's Go SDK (helm-python-sdk, the ``fleetgen[helm]`` extra).

``build`` never renders charts; tests (and ``validate --render``) do, to show that what each engine
passes to Helm renders what the spec says. Values given as text are parsed by Helm's own values
reader, as ``helm template -f`` (Argo CD) and helm-controller's ``valuesFrom`` read them.
A chart is a directory or a ``.tgz`` archive (as ``helm pull`` writes it). What Helm renders is
read with `fleetgen.manifests.yamlio.load_all` (libyaml: its syntax errors read as go-yaml's, the
port of libyaml that Helm and kubectl parse with).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from fleetgen.manifests.yamlio import load_all

__all__ = [
    "HelmNotInstalled",
    "RenderError",
    "chart_id",
    "parse_values",
    "render_chart",
    "render_files",
    "sdk_version",
]

_HINT = "install fleetgen with the helm extra: pip install 'fleetgen[helm]'"


class HelmNotInstalled(Exception):
    """helm-python-sdk is not installed."""


class RenderError(Exception):
    """A chart Helm cannot load or render with the given values (Helm's message)."""


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


def sdk_version() -> str:
    """The version of Helm's Go SDK that renders (part of a render's cache key)."""
    version: str = _sdk().helm_sdk_version()
    return version


def chart_id(chart: Path) -> tuple[str, str]:
    """(name, version) of the chart at ``chart``, from its Chart.yaml."""
    sdk = _sdk()
    try:
        with sdk.Chart.load(str(chart)) as loaded:
            return str(loaded.name), str(loaded.version)
    except sdk.HelmError as error:
        raise RenderError(str(error)) from None


def render_chart(
    chart: Path, values: Mapping[str, Any], release: str, namespace: str
) -> list[dict[str, Any]]:
    """The objects ``chart`` renders from its templates with ``values``, sorted by template
    path."""
    with _sdk().Chart.load(str(chart)) as loaded:
        rendered: dict[str, str] = loaded.render(dict(values), name=release, namespace=namespace)
    return [
        doc
        for _, text in sorted(rendered.items())
        for doc in load_all(text)
        if isinstance(doc, dict)
    ]


_GO_LOG_TIME = re.compile(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ")


@contextmanager
def _go_log() -> Iterator[list[str]]:
    """Collect what Helm's Go code logs to the process's stderr meanwhile (Go's ``log``, e.g.
    "destination for x is a table. Ignoring non-table value" when a value and the chart's
    default differ in kind), one line each, without Go's timestamp."""
    lines: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            text = capture.read().decode("utf-8", "replace")
            lines += [_GO_LOG_TIME.sub("", line) for line in text.splitlines() if line.strip()]


def render_files(
    chart: Path, values: Mapping[str, Any], release: str, namespace: str
) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """(file inside the chart, object) of everything an engine applies: the CRDs of ``crds/``
    (Argo CD's ``helm template --include-crds``, Flux's ``install.crds: Create``), then the
    rendered templates, sorted by path; and the warnings Helm logged. Raises RenderError with
    Helm's message."""
    sdk = _sdk()
    try:
        with _go_log() as warnings, sdk.Chart.load(str(chart)) as loaded:
            crds = [(str(crd["filename"]), str(crd["data"])) for crd in loaded.crds]
            rendered: dict[str, str] = loaded.render(
                dict(values), name=release, namespace=namespace
            )
    except sdk.HelmError as error:
        raise RenderError(" ".join(str(error).split())) from None
    found = []
    for path, text in [*sorted(crds), *sorted(rendered.items())]:
        if not path.endswith((".yaml", ".yml", ".json")):
            continue  # NOTES.txt, partials
        try:
            docs = load_all(text)
        except yaml.YAMLError as error:
            raise RenderError(f"{path}: {' '.join(str(error).split())}") from None
        found += [(path.partition("/")[2], doc) for doc in docs if isinstance(doc, dict)]
    return found, warnings
