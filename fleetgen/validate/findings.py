"""Findings of what a spec emits: schema errors of the emitted documents, contract breaches and
Helm's failures, located in output/ or at the spec object in fleet.py (`_Locator`); merged per
problem, waived and put in report order."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from fleetgen.errors import HasOrigin, Problem
from fleetgen.inputs import scan
from fleetgen.inputs.workspace import Workspace
from fleetgen.manifests.yamlio import document_nodes, load_all, node_line
from fleetgen.model import Fleet
from fleetgen.model.fields import placeholder_note, repo_path
from fleetgen.pipeline import api
from fleetgen.resolver import ranges
from fleetgen.resolver.plan import Plan
from fleetgen.rules import secrets as scanrules
from fleetgen.validate import cel, charts as chart_renders, contracts, rendered, schemas
from fleetgen.validate.report import Finding, Location, Waived


class _Locator:
    """Locations of emitted objects, rendered objects and spec objects."""

    def __init__(self, root: Path, compiled: api.Compiled) -> None:
        self.root = root
        self.prefix = compiled.out_dir.resolve().relative_to(root).as_posix()
        self._rendered = compiled.rendered
        self._indexes: dict[str, dict[tuple[str, str], yaml.Node]] = {}

    def object(self, path: str, doc: Mapping[str, Any], field: scanrules.Path = ()) -> Location:
        """``path`` and the line of the document there with the same kind and name (of
        ``field`` in it, keys and indexes, as far as the document has it)."""
        index = self._indexes.get(path)
        if index is None:
            index = self._indexes[path] = _documents(self._read(path))
        return Location(path=path, line=node_line(index.get(_kind_name(doc)), field))

    def spec(self, item: HasOrigin) -> Location | None:
        """The constructor call of a spec object in fleet.py."""
        file, line = item.origin
        if not file:
            return None
        return Location(path=Path(os.path.relpath(file, self.root)).as_posix(), line=line or None)

    def problem(self, problem: Problem) -> Location | None:
        """Where a Problem of the spec is, as ``spec`` says it."""
        if not problem.file:
            return None
        path = Path(os.path.relpath(problem.file, self.root)).as_posix()
        return Location(path=path, line=problem.line or None)

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


def _documents(data: bytes) -> dict[tuple[str, str], yaml.Node]:
    """(kind, name) -> the node of the first document of that kind and name."""
    lines: dict[tuple[str, str], yaml.Node] = {}
    try:
        for node in document_nodes(data):
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
                lines.setdefault(key, node)
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
    plan: Plan, emitted: Sequence[tuple[str, dict[str, Any]]], locate: _Locator
) -> Iterator[Finding]:
    """Contract breaches, located at the Project (project rules) or App in fleet.py; the
    registrations of external clusters count as fleet.py declares them."""
    fleet = plan.fleet
    apps = {app.name: app for app in fleet.apps}
    projects = {project.name: project for project in fleet.projects}
    for breach in _breaches(plan, emitted, locate.prefix):
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


def _breaches(
    plan: Plan, emitted: Sequence[tuple[str, dict[str, Any]]], prefix: str
) -> Iterator[contracts.Breach]:
    """The contract breaches of each Argo CD instance, among the files in its folder."""
    for instance in plan.fleet.argocd_instances:
        top = f"{prefix}/{instance.directory}/"
        yield from contracts.check(
            [(file, doc) for file, doc in emitted if file.startswith(top)],
            contracts.external_registrations(plan, instance.envs),
        )


def _cel_skipped(rules: cel.Rules) -> Iterator[Finding]:
    """A warning per CRD rule that met an object but could not be evaluated."""
    for (where, path, rule), reason in sorted(rules.not_evaluated.items()):
        schema_set, _, kind = where.partition(": ")
        yield rendered.finding(
            "cel-not-evaluated",
            "warning",
            f"rule not evaluated ({schema_set}): {rule}: {reason}",
            object=kind,
            field=path,
        )


def _placeholders(fleet: Fleet, locate: _Locator) -> Iterator[Finding]:
    """The fleet's repo still a placeholder (`fleetgen.model.fields.placeholder_note`), at
    Fleet(."""
    note = placeholder_note(fleet.repo)
    if note:
        yield rendered.finding("placeholder-repo", "warning", note, location=locate.spec(fleet))


def _spec_warnings(compiled: api.Compiled, locate: _Locator) -> Iterator[Finding]:
    """The warnings ``build`` prints of the spec (`api.Compiled.warnings`), each a
    ``spec-warning`` at its line, but those reported under a rule of their own:
    ``placeholder-repo`` and ``chart-range`` (`_placeholders`, `_chart_ranges`)."""
    plan = compiled.plan
    covered = {*ranges.unpinned(plan), placeholder_note(plan.fleet.repo)}
    for problem in compiled.warnings:
        if problem not in covered and problem.message not in covered:
            yield rendered.finding(
                "spec-warning", "warning", problem.message, location=locate.problem(problem)
            )


def _chart_ranges(plan: Plan, locate: _Locator) -> Iterator[Finding]:
    """``chart-range`` per app and environment whose chart version is a range
    (`fleetgen.resolver.ranges`), at the HelmChart or Overrides that writes it, as severe as
    the environment's policy says (a Waiver is applied with the others)."""
    for use in ranges.uses(plan):
        if use.level != "off":
            yield rendered.finding(
                ranges.RULE,
                use.level,
                f"chart version {use.version!r} is a range: Argo CD and Flux each resolve it on "
                f"their own at sync time, so what runs in {use.env} is not pinned",
                app=use.app.name,
                clusters=list(use.clusters),
                location=locate.spec(use.written),
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


def _base_secrets(fleet: Fleet, workspace: Workspace) -> Iterator[Finding]:
    """Secret material in the app bases' files (the workspace inventory), per app: what build
    let through is what the app waives, so these findings show with the waivers' reasons."""
    for app in fleet.apps:
        base = workspace.bases.get(repo_path(app.base_path)) if app.base_path else None
        for found in base.secrets if base else ():
            yield rendered.finding(
                found.rule,
                "error",
                scan.describe(found.length, found.description, found.rule),
                app=app.name,
                object=found.object or None,
                field=found.field or None,
                location=Location(path=found.file, line=found.line),
            )


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
