"""``validate``'s report as text (grouped by cluster and app), JSON and SARIF 2.1.0.

SARIF results carry a location GitHub code scanning can annotate: the fleet.py line of the spec
object, the base file of a rendered object, or the emitted file; URIs are relative to the
directory holding fleet.py (``%SRCROOT%``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fleetgen.rules.policy import BY_ID, RULES
from fleetgen.validate.report import Finding, Report

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def text(report: Report) -> str:
    """Findings grouped by clusters and app (groups with errors first), waivers, a summary."""
    groups: dict[tuple[tuple[str, ...], str], list[Finding]] = {}
    for finding in report.findings:
        groups.setdefault((tuple(finding.clusters), finding.app or ""), []).append(finding)
    lines: list[str] = []
    for (clusters, app), members in sorted(groups.items(), key=_group_order):
        lines.append(_heading(clusters, app))
        for finding in members:
            where = f"{finding.location}: " if finding.location else ""
            lines.append(f"  {where}{finding.severity}: {finding.text()} [{finding.rule}]")
            lines.append(f"    fix: {finding.hint}")
    for waiver in report.waived:
        where = f"{waiver.location}: " if waiver.location else ""
        lines.append(
            f"{where}waived {waiver.rule} for {waiver.app} ({waiver.silenced} "
            f"finding(s)): {waiver.reason}"
        )
    if not report.rendered:
        lines.append(
            "overlay kustomizations checked against the fields fleetgen emits; "
            "--render also builds them with kustomize and checks what they render"
        )
    lines += chart_lines(report)
    lines += [f"note: {note}" for note in report.notes]
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _group_order(item: tuple[tuple[tuple[str, ...], str], list[Finding]]) -> tuple[Any, ...]:
    (clusters, app), members = item
    return (all(f.severity != "error" for f in members), clusters, app)


def _heading(clusters: Iterable[str], app: str) -> str:
    names = ", ".join(clusters)
    parts = [
        f"cluster{'s' if ',' in names else ''} {names}" if names else "",
        f"app {app}" if app else "",
    ]
    return "== " + (" · ".join(p for p in parts if p) or "emitted files")


def summary(report: Report) -> str:
    """One line: findings by severity, what was checked, what not, builds."""
    counts = report.summary
    unchecked = sum(counts.not_checked.values())
    kinds = ", ".join(f"{kind} ×{n}" for kind, n in counts.not_checked.items())
    line = (
        f"{counts.errors} error(s), {counts.warnings} warning(s); {counts.emitted_checked} "
        f"emitted object(s) checked against schemas"
    )
    if report.rendered:
        line += (
            f", {counts.rendered_checked} rendered object(s) against Kubernetes "
            f"{report.kubernetes_version} and CRD schemas"
        )
    line += f"; {unchecked} not checked" + (f" (no schema: {kinds})" if kinds else "")
    if counts.builds is not None:
        builds = counts.builds
        line += (
            f"; {builds.overlays} overlay(s), {builds.distinct} distinct: {builds.built} "
            f"built, {builds.cached} from cache"
        )
    if counts.charts is not None and counts.charts.placements:
        charts = counts.charts
        missing = sum(charts.not_rendered.values())
        line += (
            f"; {charts.placements} chart placement(s), {charts.distinct} distinct render(s): "
            f"{charts.built} rendered, {charts.cached} from cache, {missing} not rendered"
        )
    return line


def chart_lines(report: Report) -> list[str]:
    """One line per chart version range rendered, with the version; one per chart that was not
    rendered, with its reason and placements."""
    charts = report.summary.charts
    return [
        *(
            f"rendered {chart} as {version}: the highest version in --charts it allows (Argo "
            "CD and Flux each resolve the range on their own)"
            for chart, version in (sorted(charts.ranges.items()) if charts else ())
        ),
        *(
            f"not rendered: {reason} ({count} placement(s))"
            for reason, count in (charts.not_rendered.items() if charts else ())
        ),
    ]


def to_json(report: Report) -> str:
    """The report as JSON (docs/validate.schema.json)."""
    return report.model_dump_json(indent=2) + "\n"


def sarif(report: Report) -> str:
    """The report as one SARIF 2.1.0 run."""
    rules = [
        {
            "id": rule.id,
            "name": rule.id,
            "shortDescription": {"text": rule.summary},
            "help": {"text": rule.hint},
            "defaultConfiguration": {"level": _level(rule.default(False))},
        }
        for rule in RULES
    ]
    index = {rule.id: number for number, rule in enumerate(RULES)}
    run = {
        "tool": {
            "driver": {"name": "fleetgen", "version": report.fleetgen_version, "rules": rules}
        },
        "originalUriBaseIds": {
            "%SRCROOT%": {"description": {"text": "the directory holding fleet.py"}}
        },
        "results": [_result(finding, index[finding.rule]) for finding in report.findings],
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def _level(severity: str) -> str:
    return {"error": "error", "warning": "warning"}.get(severity, "none")


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    where = f" (clusters {', '.join(finding.clusters)})" if finding.clusters else ""
    app = f"{finding.app}: " if finding.app else ""
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.severity,
        "message": {"text": f"{app}{finding.text()}{where}. Fix: {BY_ID[finding.rule].hint}"},
    }
    if finding.location is not None:
        physical: dict[str, Any] = {
            "artifactLocation": {"uri": finding.location.path, "uriBaseId": "%SRCROOT%"}
        }
        if finding.location.line:
            physical["region"] = {"startLine": finding.location.line}
        result["locations"] = [{"physicalLocation": physical}]
    return result
