"""``validate``: schema, contract and (with ``render``) policy checks; writes nothing but its cache.

Emitted YAML documents are checked against the strict schemas fleetgen ships (newest and oldest
supported release of each controller, the Kubernetes kinds it emits, the kustomization fields
its overlays use), which the given CRDs and any CRD files found in the repo (the directory of
fleet.py, without the output dir, ``.git`` and ``.venv``) override kind by kind; emitted
built-in kinds fleetgen has no schema of are checked against the Kubernetes schemas; a kind
without any schema is counted as not checked. The contracts between emitted objects
(``contracts``) are checked too. With ``render`` every distinct overlay is kustomize-built once
(``render``, cached) and every rendered object is checked against the strict Kubernetes schemas
of ``k8s_version`` or its CRD, and by the policy rules (``rendered``); so is every chart app's
placement, rendered by Helm's Go SDK from a chart kept in the repo or found in the ``charts``
cache directory (``charts``; the others are counted as not rendered). Findings an app waives are
dropped and counted with the waiver's reason.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from fleetgen import api, cache, collector, errors
from fleetgen.errors import HasOrigin
from fleetgen.fields import release
from fleetgen.model import Fleet
from fleetgen.validate import charts as chart_renders
from fleetgen.validate import contracts, rendered, schemas, scopes
from fleetgen.validate.kubernetes import KubernetesSchemas, UnknownVersion, built_in
from fleetgen.validate.render import Builds
from fleetgen.validate.render import render as build_overlays
from fleetgen.validate.report import (
    BuildCounts,
    ChartCounts,
    Finding,
    Location,
    Report,
    Summary,
    Waived,
)
from fleetgen.version import VERSION
from fleetgen.yamlio import load_all

__all__ = ["Report", "UsageError", "check", "validate"]

_NOT_SEARCHED = (".git", ".venv")


class UsageError(errors.UsageError):
    """A bad ``--crds`` or ``--charts`` path, a CRD file that cannot be read, an unknown
    ``--k8s-version``."""


@collector.pausing
def validate(
    spec: Path,
    *,
    crds: Sequence[Path] = (),
    render: bool = False,
    k8s_version: str | None = None,
    charts: Path | None = None,
) -> Report:
    """Compile ``spec`` (SpecError when it cannot be) and check what it emits and renders;
    ``charts``: a local chart cache directory (``fleetgen.validate.charts``)."""
    kubernetes = _kubernetes(k8s_version)
    for path in crds:
        if not path.exists():
            raise UsageError(f"--crds {path}: no such file or directory")
    if charts is not None and not render:
        raise UsageError("--charts: charts are rendered only with --render")
    if charts is not None and not charts.is_dir():
        raise UsageError(f"--charts {charts}: not a directory")
    compiled = api.compile_spec(spec)
    return check(
        compiled,
        spec.resolve().parent,
        crds=crds,
        render=render,
        kubernetes=kubernetes,
        charts=charts,
    )


def check(
    compiled: api.Compiled,
    root: Path,
    *,
    crds: Sequence[Path] = (),
    render: bool = False,
    kubernetes: KubernetesSchemas | None = None,
    charts: Path | None = None,
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
        "argocd": release(fleet.argocd.min_version),
        "flux": release(fleet.flux.min_version),
    }
    checker = schemas.Checker(schemas.shipped(minimums), overrides=_load_crds(files))
    locate = _Locator(root, compiled)

    def schema_errors(doc: Mapping[str, Any]) -> list[str] | None:
        errors = checker.errors(doc)
        return kubernetes.errors(doc) if errors is None else errors

    emitted = _emitted(compiled, locate.prefix)
    findings, checked, unchecked = _check_emitted(emitted, schema_errors, locate)
    findings.extend(_contracts(fleet, emitted, locate))
    builds, chart_counts, rendered_checked = None, None, 0
    if render:
        # An app from another source has no overlay: its manifests are not in this repository.
        placements = tuple(p for p in compiled.plan.placements if p.remote is None)
        overlays = sorted({p.overlay for p in placements if p.chart is None})
        built = build_overlays(compiled, root, overlays)
        charted = chart_renders.render(
            placements, chart_renders.namespaces(fleet), root, charts, cache.Cache(compiled.out_dir)
        )
        # A chart placement's objects go by the name of its render, in place of an overlay.
        plan = replace(
            compiled.plan,
            placements=tuple(
                p if p.chart is None else replace(p, overlay=chart_renders.unit(p))
                for p in placements
                if p.chart is None or chart_renders.unit(p) in charted.objects
            ),
        )
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
            overlays=len(overlays), distinct=built.distinct, built=built.built, cached=built.cached
        )
        chart_counts = ChartCounts(
            placements=charted.placements,
            distinct=charted.distinct,
            built=charted.built,
            cached=charted.cached,
            not_rendered=dict(charted.not_rendered),
        )
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
        summary=summary,
    )


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


class _Locator:
    """Locations of emitted objects, rendered objects and spec objects."""

    def __init__(self, root: Path, compiled: api.Compiled) -> None:
        self.root = root
        self.prefix = compiled.out_dir.resolve().relative_to(root).as_posix()
        self._rendered = compiled.rendered
        self._indexes: dict[str, dict[tuple[str, str], int]] = {}

    def object(self, path: str, doc: Mapping[str, Any]) -> Location:
        """``path`` and the line of the document there with the same kind and name."""
        index = self._indexes.get(path)
        if index is None:
            index = self._indexes[path] = _document_lines(self._read(path))
        return Location(path=path, line=index.get(_kind_name(doc)))

    def spec(self, item: HasOrigin) -> Location | None:
        """The constructor call of a spec object in fleet.py."""
        file, line = item.origin
        if not file:
            return None
        return Location(path=Path(os.path.relpath(file, self.root)).as_posix(), line=line or None)

    def _read(self, path: str) -> bytes:
        inside = path.removeprefix(self.prefix + "/")
        if path.startswith(self.prefix + "/") and inside in self._rendered:
            return self._rendered[inside]
        try:
            return (self.root / path).read_bytes()
        except OSError:
            return b""


def _kind_name(doc: Mapping[str, Any]) -> tuple[str, str]:
    return str(doc.get("kind")), str((doc.get("metadata") or {}).get("name"))


def _document_lines(data: bytes) -> dict[tuple[str, str], int]:
    """(kind, name) -> 1-based line where that document starts."""
    lines: dict[tuple[str, str], int] = {}
    try:
        for node in yaml.compose_all(data, Loader=yaml.CSafeLoader):
            if isinstance(node, yaml.MappingNode):
                fields = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
                meta = fields.get("metadata")
                name = (
                    next((v.value for k, v in meta.value if k.value == "name"), None)
                    if isinstance(meta, yaml.MappingNode)
                    else None
                )
                kind = fields.get("kind")
                key = (str(kind.value if kind is not None else None), str(name))
                lines.setdefault(key, node.start_mark.line + 1)
    except yaml.YAMLError:
        return lines
    return lines


def _emitted(compiled: api.Compiled, prefix: str) -> list[tuple[str, dict[str, Any]]]:
    """(repo-relative file, object) of every emitted YAML document."""
    return [
        (f"{prefix}/{path}", doc)
        for path, data in sorted(compiled.rendered.items())
        if path.endswith(schemas.YAML_SUFFIXES)
        for doc in load_all(data)
        if isinstance(doc, dict)
    ]


def _check_emitted(
    emitted: Sequence[tuple[str, dict[str, Any]]], schema_errors: Any, locate: _Locator
) -> tuple[list[Finding], int, Counter[str]]:
    findings: list[Finding] = []
    checked, unchecked = 0, Counter[str]()
    for path, doc in emitted:
        errors = schema_errors(doc)
        if errors is None:
            unchecked[f"{doc.get('apiVersion')} {doc.get('kind')}"] += 1
            continue
        checked += 1
        kind, name = _kind_name(doc)
        for error in errors:
            field, _, message = error.partition(": ")
            findings.append(
                rendered.finding(
                    "schema",
                    "error",
                    message,
                    field=field,
                    object=f"{kind} {name}",
                    location=locate.object(path, doc),
                )
            )
    return findings, checked, unchecked


def _contracts(
    fleet: Fleet, emitted: Sequence[tuple[str, dict[str, Any]]], locate: _Locator
) -> Iterator[Finding]:
    """Contract breaches, located at the Project (project rules) or App in fleet.py."""
    apps = {app.name: app for app in fleet.apps}
    projects = {project.name: project for project in fleet.projects}
    for breach in contracts.check(emitted):
        owner: HasOrigin | None = apps.get(breach.app or "")
        if breach.rule.startswith("project-") and breach.project in projects:
            owner = projects[breach.project]
        location = locate.spec(owner) if owner is not None else None
        yield rendered.finding(
            breach.rule,
            "error",
            breach.message,
            app=breach.app,
            object=breach.source,
            location=location or Location(path=breach.file),
        )


def _chart_failures(
    compiled: api.Compiled, charted: chart_renders.ChartBuilds, locate: _Locator
) -> Iterator[Finding]:
    """Per chart placement, at its App: a ``helm-render`` finding where Helm could not render
    it, a ``helm-warning`` per warning Helm logged."""
    apps = {app.name: app for app in compiled.plan.fleet.apps}
    for placement in compiled.plan.placements:
        if placement.chart is None:
            continue
        unit = chart_renders.unit(placement)
        where = {
            "app": placement.app,
            "clusters": [placement.cluster],
            "location": locate.spec(apps[placement.app]),
        }
        if unit in charted.failures:
            yield rendered.finding("helm-render", "error", charted.failures[unit], **where)
        for warning in charted.warnings.get(unit, []):
            yield rendered.finding("helm-warning", "warning", warning, **where)


def _merge(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per problem, with the union of the clusters it occurs on."""
    merged: dict[str, Finding] = {}
    for item in findings:
        key = json.dumps(item.model_dump(exclude={"clusters"}), sort_keys=True)
        seen = merged.get(key)
        clusters = sorted({*item.clusters, *(seen.clusters if seen else [])})
        merged[key] = item.model_copy(update={"clusters": clusters})
    return list(merged.values())


def _waive(
    fleet: Fleet, findings: list[Finding], locate: _Locator, render: bool
) -> tuple[list[Finding], list[Waived]]:
    """Findings no waiver covers, the waivers that applied; unused ones warn (with render)."""
    kept, waived = list(findings), []
    for app in fleet.apps:
        for waiver in app.waivers:
            covered = [f for f in kept if f.app == app.name and f.rule == waiver.rule]
            kept = [f for f in kept if not (f.app == app.name and f.rule == waiver.rule)]
            location = locate.spec(waiver)
            if covered:
                waived.append(
                    Waived(
                        app=app.name,
                        rule=waiver.rule,
                        reason=waiver.reason,
                        location=location,
                        silenced=len(covered),
                    )
                )
            elif render:
                kept.append(
                    rendered.finding(
                        "unused-waiver",
                        "warning",
                        f"the waiver of {waiver.rule} for {app.name} silenced nothing",
                        app=app.name,
                        location=location,
                    )
                )
    return kept, waived


def _order(item: Finding) -> tuple[Any, ...]:
    return (
        item.severity != "error",
        item.clusters,
        item.app or "",
        str(item.location or ""),
        item.object or "",
        item.field or "",
        item.message,
    )
