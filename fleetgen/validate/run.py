"""``validate`` and ``check``: refuse bad arguments, compile, check what the spec emits (and with
``render`` renders), drop what apps waive, and return the Report."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from fleetgen import errors
from fleetgen.emit.common import flux_bootstrap
from fleetgen.inputs.load import load
from fleetgen.model.fields import release
from fleetgen.pipeline import api
from fleetgen.tools.renders import directory_unit
from fleetgen.util import cache
from fleetgen.util.progress import SILENT, Progress
from fleetgen.validate import charts as chart_renders, rendered, schemas, scopes
from fleetgen.validate.findings import (
    _base_secrets,
    _cel_skipped,
    _chart_failures,
    _chart_ranges,
    _check_emitted,
    _contracts,
    _emitted,
    _Locator,
    _merge,
    _order,
    _placeholders,
    _spec_warnings,
    _waive,
)
from fleetgen.validate.kubernetes import KubernetesSchemas, UnknownVersion, built_in
from fleetgen.validate.render import Builds, render as build_overlays
from fleetgen.validate.report import BuildCounts, ChartCounts, Report, Summary
from fleetgen.version import VERSION

_NOT_SEARCHED = (".git", ".venv")


class UsageError(errors.UsageError):
    """A bad ``--crds`` or ``--charts`` path, a CRD file that cannot be read, an unknown
    ``--k8s-version``."""


def validate(
    spec: Path,
    *,
    crds: Sequence[Path] = (),
    render: bool = False,
    k8s_version: str | None = None,
    charts: Path | None = None,
    progress: Progress = SILENT,
) -> Report:
    """Compile ``spec`` (SpecError when it cannot be) and check what it emits and renders;
    ``charts``: a local chart cache directory (``fleetgen.validate.charts``); ``progress``:
    where the phases of the work are reported."""
    kubernetes = _kubernetes(k8s_version)
    for path in crds:
        if not path.exists():
            raise UsageError(f"--crds {path}: no such file or directory")
    if charts is not None and not render:
        raise UsageError("--charts: charts are rendered only with --render")
    if charts is not None and not charts.is_dir():
        raise UsageError(f"--charts {charts}: not a directory")
    loaded = load(spec)  # a spec that cannot be read is refused before any progress
    progress.phase("compiling")
    compiled = api.compile_loaded(spec, loaded)
    return check(
        compiled,
        spec.resolve().parent,
        crds=crds,
        render=render,
        kubernetes=kubernetes,
        charts=charts,
        progress=progress,
    )


def check(
    compiled: api.Compiled,
    root: Path,
    *,
    crds: Sequence[Path] = (),
    render: bool = False,
    kubernetes: KubernetesSchemas | None = None,
    charts: Path | None = None,
    progress: Progress = SILENT,
) -> Report:
    """Check a compiled spec whose fleet.py lives in ``root`` (what ``validate`` does after
    compiling)."""
    kubernetes = kubernetes or KubernetesSchemas()
    try:
        files = schemas.crd_files(
            [root, *crds], exclude=[compiled.out_dir, *(root / name for name in _NOT_SEARCHED)]
        )
    except OSError as error:
        raise UsageError(
            f"{error.filename}: cannot read it looking for CRDs ({error.strerror})"
        ) from None
    fleet = compiled.plan.fleet
    minimums = {
        "argocd": min(release(i.options.min_version) for i in fleet.argocd_instances),
        "flux": release(fleet.flux.min_version),
    }
    checker = schemas.Checker(schemas.shipped(minimums), overrides=_load_crds(files))
    locate = _Locator(root, compiled)

    def schema_errors(doc: Mapping[str, Any]) -> list[str] | None:
        errors = checker.errors(doc)
        return kubernetes.errors(doc) if errors is None else errors

    emitted = _emitted(compiled, locate.prefix)
    progress.phase("checking the emitted objects")
    findings, checked, unchecked = _check_emitted(emitted, schema_errors, locate)
    findings.extend(_contracts(compiled.plan, emitted, locate))
    findings.extend(_placeholders(fleet, locate))
    findings.extend(_chart_ranges(compiled.plan, locate))
    findings.extend(_spec_warnings(compiled, locate))
    builds, chart_counts, rendered_checked = None, None, 0
    if not render:  # rendered, the objects of the bases are checked as kustomize builds them
        findings.extend(_base_secrets(fleet, compiled.loaded.workspace))
    if render:
        # An app from another source has no overlay: its manifests are not in this repository.
        # A plain directory's are, built as kustomize-controller does (`directory_unit`).
        placements = tuple(
            p for p in compiled.plan.placements if p.remote is None or p.remote.source is None
        )
        overlays = sorted({p.overlay for p in placements if p.chart is None and p.remote is None})
        directories = {
            directory_unit(p.remote.path, p.namespace) for p in placements if p.remote is not None
        }
        built = build_overlays(compiled, root, overlays, progress, directories)
        charted = chart_renders.render(
            placements,
            root,
            charts,
            cache.Cache(compiled.out_dir),
            progress,
            releases=chart_renders.releases(fleet),
        )
        # A chart placement's objects go by the name of its render, in place of an overlay.
        plan = replace(
            compiled.plan,
            placements=tuple(
                replace(p, overlay=directory_unit(p.remote.path, p.namespace))
                if p.remote is not None
                else p
                if p.chart is None
                else replace(p, overlay=chart_renders.unit(p))
                for p in placements
                if p.chart is None or chart_renders.unit(p) in charted.objects
            ),
        )
        progress.phase("checking the rendered objects")
        result = rendered.check(
            plan,
            Builds(
                {**built.objects, **charted.objects},
                built.failures,
                built.distinct,
                built.built,
                built.cached,
            ),
            lambda doc: (
                kubernetes.errors(doc)
                if built_in(str(doc.get("apiVersion") or ""))
                else checker.errors(doc)
            ),
            locate.object,
            scopes.known(files),
        )
        findings.extend(result.findings)
        findings.extend(_chart_failures(compiled, charted, locate))
        unchecked.update(result.unchecked)
        rendered_checked = result.checked
        builds = BuildCounts(
            overlays=len(overlays) + len(directories),
            distinct=built.distinct,
            built=built.built,
            cached=built.cached,
        )
        chart_counts = ChartCounts(
            placements=charted.placements,
            distinct=charted.distinct,
            built=charted.built,
            cached=charted.cached,
            not_rendered=dict(charted.not_rendered),
            ranges={
                f"chart {p.chart.name} {p.chart.version}": charted.versions[chart_renders.unit(p)]
                for p in placements
                if p.chart is not None and chart_renders.unit(p) in charted.versions
            },
        )
    findings.extend(_cel_skipped(checker.cel))
    kept, waived = _waive(fleet, _merge(findings), locate, render)
    kept.sort(key=_order)
    summary = Summary(
        errors=sum(f.severity == "error" for f in kept),
        warnings=sum(f.severity == "warning" for f in kept),
        emitted_checked=checked,
        rendered_checked=rendered_checked,
        not_checked=dict(sorted(unchecked.items())),
        builds=builds,
        charts=chart_counts,
    )
    return Report(
        fleetgen_version=VERSION,
        kubernetes_version=kubernetes.version if render else None,
        rendered=render,
        findings=kept,
        waived=waived,
        notes=_unbootstrapped(compiled, root),
        summary=summary,
    )


def _unbootstrapped(compiled: api.Compiled, root: Path) -> list[str]:
    """A note per Flux cluster folder of the output without the ``flux-system/`` that ``flux
    bootstrap`` commits there: until it is, the cluster's root Kustomization fails (path not
    found), so nothing of the folder is applied and no removal there deletes anything.
    Information, not a finding: bootstrap may run later."""
    fleet = compiled.plan.fleet
    clusters = sorted(
        {path.split("/")[2] for path in compiled.rendered if path.startswith("flux/clusters/")}
    )
    folder = f"{fleet.output_dir}/flux/clusters"
    return [
        f"{folder}/{cluster}/ has no flux-system/: Flux on {cluster} applies nothing of it, and "
        f"a removal there deletes nothing, until `{flux_bootstrap(fleet, cluster)}` commits it"
        for cluster in clusters
        if not (root / folder / cluster / "flux-system").is_dir()
    ]


def _kubernetes(version: str | None) -> KubernetesSchemas:
    try:
        return KubernetesSchemas(version)
    except UnknownVersion as error:
        raise UsageError(f"--k8s-version {version}: {error}") from None


def _load_crds(files: Iterable[Path]) -> schemas.SchemaSet:
    """The user's CRDs; a file that cannot be read or is no valid CRD is a UsageError."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in files:
        try:
            found.update(schemas.load([path]).schemas)
        except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as error:
            detail = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise UsageError(
                f"{path}: not a readable CustomResourceDefinition ({' '.join(detail.split())})"
            ) from None
    return schemas.SchemaSet("your CRDs", found)
