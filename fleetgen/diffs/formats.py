"""Formats of a ``diff`` report: text (coloured on a terminal), markdown (a PR comment), JSON.

Markdown comes from ``templates/diff.md.j2``. It is capped at ``max_chars``: the blast radius,
deletions, moves and renames always come first; then per-cluster sections, production first, as long
as they fit, and a note names what was cut.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from fleetgen.diffs import charts
from fleetgen.diffs.blast import Change, Where
from fleetgen.diffs.objects import Field
from fleetgen.diffs.report import Deletion, Move, Rename, Report, section
from fleetgen.emit import pictures
from fleetgen.resolver.plan import SUSPENDED
from fleetgen.util import templating

DEFAULT_MAX_CHARS = 60_000  # GitHub refuses comments over 65,536 characters
MAX_NAMES = 20  # names listed per touched kind
MAX_ROWS = 100  # deletion and rename rows in markdown
MAX_LINES = 200  # diff lines per object
_STYLES = {"-": "red", "+": "green", "@": "bold cyan", "!": "bold red", "#": "bold"}


def to_json(report: Report) -> str:
    """The JSON contract (``report`` module docstring), indented, newline-terminated."""
    return json.dumps(report.to_json(), indent=2, default=str) + "\n"


@dataclass(frozen=True, slots=True)
class Section:
    """Changes listed together: one cluster, one environment's clusters, or fleet-wide."""

    title: str
    subtitle: str
    production: bool
    changes: tuple[Change, ...]


def sections(changes: Iterable[Change]) -> list[Section]:
    """Changes grouped as ordered (production first, then by cluster or environment)."""
    found = []
    for (production, where), group in itertools.groupby(
        changes, key=lambda c: (c.where.production, section(c.where))
    ):
        members = tuple(group)
        reach = Where()
        for change in members:
            reach |= change.where
        title, subtitle = _titles(where, reach)
        subtitle = "; ".join(
            part for part in (subtitle, "production" if production else "") if part
        )
        found.append(Section(title, subtitle, production, members))
    return found


def _titles(where: tuple[int, str], reach: Where) -> tuple[str, str]:
    rank, name = where
    envs = ", ".join(sorted(reach.envs))
    if rank == 0:
        return name, envs
    if rank == 1:
        return f"{name}: {len(reach.clusters)} clusters", _few(sorted(reach.clusters))
    if rank == 2:
        return f"{len(reach.clusters)} clusters", envs
    if rank == 3:
        return f"{name}: environment-wide", ""
    return "fleet-wide", ""


def _few(names: Sequence[str], limit: int = MAX_NAMES) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" … and {len(names) - limit} more" if len(names) > limit else "")


def _radius(where: Where) -> str:
    parts = [
        (len(where.clusters), "cluster"),
        (len(where.envs), "environment"),
        (len(where.apps), "app"),
        (len(where.projects), "project"),
    ]
    return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in parts)


def _production(report: Report) -> str:
    prod = report.production
    if not prod.envs:
        return ""
    return (
        f"{len(prod.clusters)} cluster(s) in {', '.join(sorted(prod.envs))}: "
        f"{_few(sorted(prod.clusters)) or 'no single cluster'}"
    )


def _header(change: Change) -> str:
    key = change.obj.key
    name = "/".join(part for part in (key.namespace, key.name) if part)
    what = " ".join(part for part in (change.op, key.kind, name) if part)
    source = f" ({change.source})" if change.source != "generated" else ""
    return f"@@ {what}{source}: {change.file} @@"


def _lines(change: Change) -> list[str]:
    """Diff lines of one change: ``-`` old, ``+`` new (a removed object lists no fields)."""
    lines: list[str] = []
    if change.op != "removed":
        for field in change.fields:
            lines += _field_lines(field, change.op)
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], f"  … {len(lines) - MAX_LINES} more lines"]
    return lines


def _field_lines(field: Field, op: str) -> list[str]:
    if op == "changed" and charts.values_text(field.path):
        return [_values_text_line(field)]
    lines = []
    for sign, value, present in (
        ("-", field.old, field.old is not None),
        ("+", field.new, field.new is not None),
    ):
        if present:
            shown = _value(value)
            label = f"{field.path}: " if field.path else ""
            lines.append(f"{sign} {label}{shown[0]}")
            lines += [f"{sign}   {line}" for line in shown[1:]]
    return lines


def _values_text_line(field: Field) -> str:
    """A values document carried as text in a changed object, its value paths being under
    # charts: changed in place, or gone from or come to a key (a Flux values ConfigMap's key is
    named after the text's hash)."""
    if field.old is not None and field.new is not None:
        return f"~ {field.path}: values document (text) changed; by value path under # charts"
    sign = "-" if field.new is None else "+"
    return f"{sign} {field.path}: values document (text); by value path under # charts"


def _value(value: Any) -> list[str]:
    """A value as display lines: multi-line text as a block, other non-strings as JSON."""
    if isinstance(value, str):
        if "\n" in value:
            return ["|", *value.rstrip("\n").split("\n")]
        if value and value == value.strip():
            return [value]
    return [json.dumps(value, default=str)]


def _deletion(deletion: Deletion) -> str:
    change = deletion.change
    key, where = change.obj.key, change.where
    name = "/".join(part for part in (key.namespace, key.name) if part)
    on = f" on {', '.join(sorted(where.clusters))}" if where.clusters else ""
    app = f" (app {', '.join(sorted(where.apps))})" if where.apps else ""
    fate = f": workloads {_said(deletion.workloads)}" if deletion.workloads else ""
    return f"{deletion.engine} {key.kind} {name}{on}{app}{fate}"


def _said(workloads: str | None) -> str | None:
    """A deletion's ``workloads`` in words: ``kept (prune disabled)``, else as it is."""
    return "kept (prune disabled)" if workloads == "kept-prune-disabled" else workloads


def _rename_ends(rename: Rename) -> tuple[str, str]:
    """How the old and new identities read: their names (or files), and clusters if only those
    differ."""
    old, new = rename.old, rename.new
    ends = [old.obj.key.name or old.file, new.obj.key.name or new.file]
    if ends[0] == ends[1]:
        ends = [
            f"{end} on {change.where.cluster or change.obj.key.scope}"
            for end, change in zip(ends, (old, new), strict=True)
        ]
    elif new.obj.key.name and new.where.cluster:
        ends[1] += f" on {new.where.cluster}"
    return ends[0], ends[1]


def _rename(rename: Rename) -> str:
    source, target = _rename_ends(rename)
    fate = f"; workloads of the old one {_said(rename.workloads)}" if rename.workloads else ""
    return f"{rename.new.obj.key.kind} {source} → {target} ({rename.because}){fate}"


def _fate(move: Move) -> str:
    """What happens to a moved placement's workloads (a suspended target takes none of them)."""
    if move.suspended:
        left = "deletes" if move.workloads == "deleted" else "orphans"
        return f"{move.old} {left} the workloads; {move.new} is {SUSPENDED}"
    if move.workloads == "deleted":
        return (
            f"{move.old} deletes the workloads {move.new} takes over, in either order, and they "
            f"stay down until {move.new} applies again (cascade_delete=True; a build refuses "
            "this: orphan first)"
        )
    return f"{move.old} orphans the workloads, {move.new} adopts them"


def _move(move: Move) -> str:
    return f"{move.app} on {move.cluster} ({move.env}): {move.old} → {move.new}; {_fate(move)}"


def _moves_heading(report: Report) -> str:
    deleting = sum(m.workloads == "deleted" for m in report.moved)
    if deleting:
        return (
            f"! moves ({len(report.moved)}), engine changes; {deleting} delete and "
            "recreate running workloads:"
        )
    return f"# moves ({len(report.moved)}), engine changes; the workloads stay:"


def _charts(report: Report) -> list[str]:
    """Chart version changes, then value changes (``fleetgen.diffs.charts``)."""
    found: list[charts.Bump | charts.ValueChange] = [*report.bumps, *report.values]
    return [f"~ {charts.line(change)}" for change in sorted(found, key=charts.order)]


def _placements(report: Report) -> list[str]:
    return [f"+ {p.app} on {p.cluster} ({p.env})" for p in report.added] + [
        f"- {p.app} on {p.cluster} ({p.env})" for p in report.removed
    ]


def text(report: Report, color: bool = False) -> str:
    """The report for a terminal or a log; ANSI colours only when ``color``."""
    base = f"{(report.base.sha or '')[:12]} ({report.base.label})"
    lines = [f"# fleetgen diff: {base} → {report.head.label}"]
    if not report.changed:
        lines.append("no changes")
    else:
        lines += _text_body(report)
    lines += [f"note: {note}" for note in report.notes]
    return _painted(lines) if color else "".join(line + "\n" for line in lines)


def blast(report: Report) -> list[str]:
    """The blast radius as the text report opens with it: what the change touches by kind, and
    the production part."""
    touched = report.touched
    lines = [f"# blast radius: {_radius(touched)}"]
    for label, names in (
        ("clusters", touched.clusters),
        ("environments", touched.envs),
        ("apps", touched.apps),
        ("projects", touched.projects),
    ):
        lines.append(f"  {label + ':':<14}{_few(sorted(names)) or '-'}")
    if production := _production(report):
        lines.append(f"! production: {production}")
    return lines


def _text_body(report: Report) -> list[str]:
    lines = blast(report)
    if report.deletions:
        lines.append(f"! deletions ({len(report.deletions)}):")
        lines += [f"  - {_deletion(d)}" for d in report.deletions]
    if report.renames:
        lines.append(f"! renames ({len(report.renames)}), applied as deletion + creation:")
        lines += [f"    {_rename(r)}" for r in report.renames]
    if report.moved:
        lines.append(_moves_heading(report))
        lines += [f"  ~ {_move(m)}" for m in report.moved]
    if placements := _placements(report):
        lines.append("# placements:")
        lines += [f"  {line}" for line in placements]
    if chart_lines := _charts(report):
        lines.append("# charts:")
        lines += [f"  {line}" for line in chart_lines]
    for group in sections(report.changes):
        lines.append(f"# {group.title}" + (f" ({group.subtitle})" if group.subtitle else ""))
        for change in group.changes:
            lines.append(f"  {_header(change)}")
            lines += [f"    {line}" for line in _lines(change)]
    return lines


def _painted(lines: list[str]) -> str:
    """``lines`` styled by their first character, as ANSI text (rich, 16 colours, no wrapping)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=True,
        color_system="standard",
        no_color=False,  # asked for colour: NO_COLOR in the environment was weighed by the caller
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
    )
    for line in lines:
        console.print(Text(line, style=_STYLES.get(line.lstrip()[:1], "")))
    return buffer.getvalue()


def markdown(report: Report, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The PR comment: within ``max_chars`` unless its header alone is longer.

    Sections are kept in order (production first) while they fit; the rest are named in a note.
    """
    view = _markdown_view(report)
    template = templating.template("diff.md.j2")
    module = template.make_module(view)
    groups = sections(report.changes)
    budget = max_chars - len(str(module))
    rendered: list[str] = []
    for group in groups:  # rendered one by one: a huge report stops early
        section_text = str(module.section(_section_view(group)))  # type: ignore[attr-defined]
        if len(section_text) + 1 > budget:
            break
        rendered.append(section_text)
        budget -= len(section_text) + 1
    kept = len(rendered)
    while True:
        view["sections"] = rendered[:kept]
        view["cut"] = _cut_note(groups[kept:], max_chars)
        text: str = template.render(**view)
        if len(text) <= max_chars or kept == 0:
            return text
        kept -= 1


def _cut_note(cut: Sequence[Section], max_chars: int) -> str:
    if not cut:
        return ""
    return (
        f"{len(cut)} more section(s) with {sum(len(g.changes) for g in cut)} change(s) cut "
        f"to stay under {max_chars} characters ({_few([g.title for g in cut], 10)}); run "
        "`fleetgen diff --format json` for everything"
    )


def _markdown_view(report: Report) -> dict[str, Any]:
    touched = report.touched
    deleting = sum(d.workloads == "deleted" for d in report.deletions)
    return {
        "base": f"{(report.base.sha or '')[:12]}",
        "head": report.head.sha or report.head.label,
        "changed": report.changed,
        "radius": _radius(touched),
        "touched": {
            label: _names(names)
            for label, names in (
                ("clusters", touched.clusters),
                ("environments", touched.envs),
                ("apps", touched.apps),
                ("projects", touched.projects),
            )
        },
        "production": _production(report),
        "rollout": pictures.rollouts(report.rollout, all_at_once=True),
        "deletions": {
            "count": len(report.deletions),
            "deleting": deleting,
            "rows": [_deletion_row(d) for d in report.deletions[:MAX_ROWS]],
            "more": max(0, len(report.deletions) - MAX_ROWS),
        },
        "moves": {
            "count": len(report.moved),
            "deleting": sum(m.workloads == "deleted" for m in report.moved),
            "rows": [_move_row(m) for m in report.moved[:MAX_ROWS]],
            "more": max(0, len(report.moved) - MAX_ROWS),
        },
        "renames": {
            "count": len(report.renames),
            "rows": [_rename_row(r) for r in report.renames[:MAX_ROWS]],
            "more": max(0, len(report.renames) - MAX_ROWS),
        },
        "placements": _placements(report),
        "placements_fence": _fence(_placements(report)),
        "charts": _charts(report),
        "charts_fence": _fence(_charts(report)),
        "sections": [],
        "cut": "",
        "notes": list(report.notes),
    }


def _names(names: Iterable[str]) -> dict[str, Any]:
    ordered = sorted(names)
    return {"shown": ordered[:MAX_NAMES], "more": max(0, len(ordered) - MAX_NAMES)}


def _cell(value: object) -> str:
    return templating.md_cell(value) if value not in (None, "") else "–"


def _deletion_row(deletion: Deletion) -> dict[str, str]:
    change = deletion.change
    key, where = change.obj.key, change.where
    return {
        "kind": _cell(key.kind),
        "name": _cell(key.name or change.file),
        "cluster": _cell(_few(sorted(where.clusters), 5)),
        "app": _cell(_few(sorted(where.apps), 5)),
        "engine": _cell(deletion.engine),
        "workloads": _cell(
            f"**{deletion.workloads}**"
            if deletion.workloads == "deleted"
            else _said(deletion.workloads)
        ),
        "file": _cell(change.file),
    }


def _move_row(move: Move) -> dict[str, str]:
    return {
        "app": _cell(move.app),
        "cluster": _cell(move.cluster),
        "env": _cell(move.env),
        "old": _cell(move.old),
        "new": _cell(move.new),
        "workloads": _cell(f"**{_fate(move)}**" if move.workloads == "deleted" else _fate(move)),
    }


def _rename_row(rename: Rename) -> dict[str, str]:
    source, target = _rename_ends(rename)
    return {
        "kind": _cell(rename.new.obj.key.kind),
        "source": _cell(source),
        "target": _cell(target),
        "because": _cell(rename.because),
        "workloads": _cell(_said(rename.workloads)),
    }


def _section_view(group: Section) -> dict[str, Any]:
    apps = []
    for app, members in itertools.groupby(group.changes, key=lambda c: c.where.app or ""):
        lines = [line for change in members for line in [_header(change), *_lines(change)]]
        apps.append({"name": app or "no single app", "lines": lines, "fence": _fence(lines)})
    return {
        "title": group.title,
        "subtitle": group.subtitle,
        "open": group.production,
        "count": len(group.changes),
        "apps": apps,
    }


def _fence(lines: list[str]) -> str:
    """A code fence longer than any backtick run in ``lines``."""
    longest = max((len(run) for run in re.findall(r"`+", "\n".join(lines))), default=0)
    return "`" * max(3, longest + 1)
