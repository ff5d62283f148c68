"""``validate --render`` for chart apps: each placement's chart rendered in-process by Helm's Go
SDK (`fleetgen.tools.helm`) with its merged values, release name and namespace, cached.

Where the chart comes from:

- a chart kept in the repository (``HelmChart(path=…)``): that directory;
- a chart from a repository: ``--charts DIR``, a local chart cache holding
  ``DIR/<name>-<version>.tgz``, as ``helm pull REPO/NAME --version VERSION -d DIR`` (or ``helm pull
  oci://…/NAME --version VERSION -d DIR``) writes it. For a version range, the archive of the
  highest version there that it allows, as both engines pick one from a repository
  (`fleetgen.rules.chartversions.highest`; `ChartBuilds.versions` says which). The archive's
  Chart.yaml must name that chart and version. fleetgen never downloads a chart.

A chart app's ``images`` and ``patches`` then post-render the templates' objects with a real
kustomize, as helm-controller's kustomize post-renderer does (`fleetgen.emit.common.post_render`;
not the chart's ``crds/``), so the objects checked are those the cluster gets.
What Helm logs while rendering (a value whose kind, map or scalar, differs from the chart's
default, of which Helm ignores one) is kept as the render's warnings.
A placement whose chart cannot be rendered (a remote chart not in the cache, no ``--charts``,
helm-python-sdk not installed) is counted as not rendered, with the reason; it is never passed.
A render is keyed by the chart's content (the archive's bytes, or every file of the chart
directory), the values, release, namespace, post-render and Helm SDK version: placements with
the same inputs share one render, and an unchanged one is read from the content-addressed cache.
"""

from __future__ import annotations

import glob
import hashlib
import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fleetgen.emit.common import post_render
from fleetgen.manifests.yamlio import dump, dump_documents, load_all
from fleetgen.model import Fleet
from fleetgen.resolver.plan import ChartSource, Placement
from fleetgen.rules.chartversions import highest, strict
from fleetgen.tools import helm
from fleetgen.tools.kustomize import KustomizeBuildError, build
from fleetgen.util import cache
from fleetgen.util.progress import SILENT, Progress
from fleetgen.validate.render import Rendered

_NAMESPACE = "helm"
NO_SDK = "helm-python-sdk not installed (pip install 'fleetgen[helm]')"


def unit(placement: Placement) -> str:
    """The name its rendered objects go by (in place of an overlay path)."""
    return f"chart {placement.app} on {placement.cluster}"


def releases(fleet: Fleet) -> dict[str, str]:
    """Chart app -> its Helm release name (`App.release_name`)."""
    return {app.name: app.release_name for app in fleet.apps if app.release_name is not None}


def archive_name(name: str, version: str) -> str:
    """The file a remote chart of that exact version is looked up as in ``--charts DIR``."""
    return f"{name}-{version}.tgz"


@dataclass(frozen=True, slots=True)
class ChartBuilds:
    """Rendered objects per unit (`unit`) and what could not be rendered."""

    objects: Mapping[str, list[Rendered]]
    failures: Mapping[str, str]  # unit -> Helm's error
    warnings: Mapping[str, list[str]]  # unit -> what Helm logged while rendering
    not_rendered: Mapping[str, int]  # "chart NAME VERSION: reason" -> placements
    placements: int  # chart placements
    distinct: int  # distinct render inputs
    built: int  # renders run in this call
    cached: int  # distinct inputs served from the cache
    inputs: Mapping[str, str] = field(default_factory=dict)  # unit -> its render's cache key
    skipped: Mapping[str, str] = field(default_factory=dict)  # unit -> its not_rendered label
    versions: Mapping[str, str] = field(default_factory=dict)  # unit -> a range's version rendered


@dataclass(frozen=True, slots=True)
class _Source:
    path: Path  # directory or archive
    origin: str | None  # repo-relative directory of a chart kept in the repository
    content: str  # hash of the chart's content
    version: str | None = None  # the version of the archive a range picked


def render(
    placements: Sequence[Placement],
    root: Path,
    charts_dir: Path | None,
    store: cache.Cache,
    progress: Progress = SILENT,
    phase: str = "helm render",
    releases: Mapping[str, str] | None = None,
) -> ChartBuilds:
    """Render the chart of every chart placement in ``placements`` (released into its
    namespace; ``releases``: app -> release name, the app's name where missing) that can be
    rendered; ``progress`` gets the renders as a counted ``phase``."""
    releases = releases or {}
    charts = [p for p in placements if p.chart is not None]
    sources: dict[ChartSource, _Source | str] = {}
    keys: dict[str, tuple[str, Placement]] = {}  # unit -> (cache key, placement)
    not_rendered: dict[str, int] = {}
    skipped: dict[str, str] = {}
    picked: dict[str, str] = {}
    version = _sdk_version()
    for placement in charts:
        chart = placement.chart
        assert chart is not None
        if chart not in sources:
            sources[chart] = NO_SDK if version is None else _source(chart, root, charts_dir)
        source = sources[chart]
        if isinstance(source, str):
            label = f"chart {chart.name} {chart.version}: {source}"
            not_rendered[label] = not_rendered.get(label, 0) + 1
            skipped[unit(placement)] = label
            continue
        if source.version is not None:
            picked[unit(placement)] = source.version
        keys[unit(placement)] = (
            cache.key(
                {
                    "helm": version,
                    "chart": source.content,
                    "values": placement.settings.values,
                    "release": releases.get(placement.app, placement.app),
                    "namespace": placement.namespace,
                    "post_render": post_render(placement.settings),
                }
            ),
            placement,
        )
    results: dict[str, Any] = {}
    missing: dict[str, Placement] = {}  # distinct render inputs not in the cache
    for name in sorted(keys):
        entry, placement = keys[name]
        if entry in results or entry in missing:
            continue
        stored = store.get(_NAMESPACE, entry)
        if _valid(stored):
            results[entry] = stored
        else:
            missing[entry] = placement
    if keys:
        progress.phase(
            phase,
            unit="charts",
            verb="rendered",
            total=len(results) + len(missing),
            cached=len(results),
        )
    for entry, placement in missing.items():
        assert placement.chart is not None
        source = sources[placement.chart]
        assert isinstance(source, _Source)
        results[entry] = _render(
            source,
            placement,
            releases.get(placement.app, placement.app),
            str(placement.namespace),
        )
        store.put(_NAMESPACE, entry, results[entry])
        progress.advance()
    built = len(missing)
    objects, failures, warnings = {}, {}, {}
    for name, (entry, _) in keys.items():
        result = results[entry]
        if isinstance(result, str):
            failures[name] = result
            continue
        objects[name] = [Rendered(doc, origin) for doc, origin in result["objects"]]
        if result["warnings"]:
            warnings[name] = list(result["warnings"])
    distinct = len(results)
    return ChartBuilds(
        objects,
        failures,
        warnings,
        dict(sorted(not_rendered.items())),
        len(charts),
        distinct,
        built,
        distinct - built,
        {name: entry for name, (entry, _) in keys.items()},
        skipped,
        picked,
    )


def _sdk_version() -> str | None:
    try:
        return helm.sdk_version()
    except helm.HelmNotInstalled:
        return None


def _source(chart: ChartSource, root: Path, charts_dir: Path | None) -> _Source | str:
    """Where ``chart`` is read from, or why it cannot be rendered."""
    if chart.path is not None:
        directory = root / chart.path
        files = sorted(p for p in directory.rglob("*") if p.is_file())
        content = [(p.relative_to(directory).as_posix(), _sha256(p)) for p in files]
        return _Source(directory, chart.path, cache.key(content))
    if charts_dir is None:
        return "a chart from a repository; give a local chart cache with --charts DIR"
    found = _archive(chart, charts_dir)
    if isinstance(found, str):
        return found
    archive, version = found
    try:
        held = helm.chart_id(archive)
    except helm.RenderError as error:
        return f"{archive}: {error}"
    if held != (chart.name, version):
        return f"{archive} holds chart {held[0]} {held[1]}"
    return _Source(archive, None, _sha256(archive), version if chart.range else None)


def _archive(chart: ChartSource, charts_dir: Path) -> tuple[Path, str] | str:
    """The archive of ``chart`` in the cache and its version, or why there is none: for a
    range, the highest version among the chart's archives (``<name>-<version>.tgz``) it
    allows."""
    if not chart.range:
        archive = charts_dir / archive_name(chart.name, chart.version)
        return (archive, chart.version) if archive.is_file() else f"{archive} not found"
    prefix = f"{chart.name}-"
    offered = sorted(
        path.name[len(prefix) : -len(".tgz")]
        for path in charts_dir.glob(f"{glob.escape(prefix)}*.tgz")
        if path.is_file()
    )
    best = highest(chart.version, offered)
    if best is None:
        there = ", ".join(v for v in offered if strict(v) is not None) or "none"
        return (
            f"no archive in {charts_dir} satisfies the range (versions of {chart.name} there: "
            f"{there})"
        )
    return charts_dir / archive_name(chart.name, best), best


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _render(
    source: _Source, placement: Placement, release: str, namespace: str
) -> dict[str, Any] | str:
    """``objects``: [object, repo-relative origin] of what the chart renders, ``warnings``: what
    Helm logged; or Helm's error."""
    values = json.loads(json.dumps(placement.settings.values))
    try:
        files, warnings = helm.render_files(source.path, values, release, namespace)
    except helm.RenderError as error:
        return str(error)
    kustomization = post_render(placement.settings)
    if kustomization:
        try:
            files = _post_rendered(files, kustomization)
        except KustomizeBuildError as error:
            (stderr,) = error.failures.values()
            return f"post-render (images, patches): {' '.join(stderr.split())}"
    return {
        "objects": [
            [doc, f"{source.origin}/{path}" if source.origin and path else None]
            for path, doc in files
        ],
        "warnings": warnings,
    }


def _post_rendered(
    files: list[tuple[str, dict[str, Any]]], kustomization: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """``files`` with the objects of the chart's templates built by kustomize with
    ``kustomization`` (its images and patches) over them, as helm-controller's post-renderer
    does (internal/postrender ``Kustomize.Run``); the CRDs of ``crds/`` are not post-rendered.
    Each object keeps the file it was rendered from (by kind, namespace and name; "" for one a
    patch renamed)."""
    crds = [(path, doc) for path, doc in files if "/templates/" not in f"/{path}"]
    templated = [(path, doc) for path, doc in files if "/templates/" in f"/{path}"]
    origins = {_identity(doc): path for path, doc in templated}
    with tempfile.TemporaryDirectory(prefix="fleetgen-post-render-") as folder:
        root = Path(folder)
        (root / "helm-output.yaml").write_text(
            dump_documents([doc for _, doc in templated]), encoding="utf-8"
        )
        (root / "kustomization.yaml").write_text(
            dump({"resources": ["helm-output.yaml"], **kustomization}), encoding="utf-8"
        )
        built = [doc for doc in load_all(build(root)) if isinstance(doc, dict)]
    return crds + [(origins.get(_identity(doc), ""), doc) for doc in built]


def _identity(doc: dict[str, Any]) -> tuple[str, str, str]:
    metadata = doc.get("metadata") or {}
    return str(doc.get("kind")), str(metadata.get("namespace")), str(metadata.get("name"))


def _valid(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if not isinstance(value, dict) or set(value) != {"objects", "warnings"}:
        return False
    objects, warnings = value["objects"], value["warnings"]
    return (
        isinstance(warnings, list)
        and all(isinstance(w, str) for w in warnings)
        and isinstance(objects, list)
        and all(
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], dict)
            and (item[1] is None or isinstance(item[1], str))
            for item in objects
        )
    )
