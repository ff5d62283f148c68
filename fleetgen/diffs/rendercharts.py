"""``diff --render`` for chart apps: the chart of each affected placement rendered at both refs by
validate's chart rendering (`fleetgen.validate.charts`: Helm's Go SDK, the content-addressed
cache), its objects compared like an overlay's.

A chart placement is affected when its render inputs differ between the refs: the chart (source,
name, version), the merged values, the post-render (images, patches), the release name and
namespace, or, for a chart kept in the repository, any file of the chart directory (compared by
Git blob id); or when it exists at one ref only. A chart kept in the repository is rendered
from that ref's files, written to a temporary directory; a chart from a repository from
``--charts DIR``. A placement that cannot be rendered at a ref where it exists (a remote chart
without ``--charts``, helm-python-sdk not installed) is counted as not rendered, with the
reason, and never reported as unchanged.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fleetgen.diffs.blast import Change, Context, Pair, Side
from fleetgen.diffs.objects import Obj, objects
from fleetgen.diffs.render import RENDERED, RenderError, compare_objects
from fleetgen.emit.common import post_render
from fleetgen.manifests.k8s import Key
from fleetgen.resolver.plan import Placement
from fleetgen.util import cache
from fleetgen.util.progress import SILENT, Progress
from fleetgen.validate import charts as chart_renders


@dataclass(frozen=True, slots=True)
class ChartChanges:
    """Rendered-object changes of chart placements, and the placements not rendered."""

    changes: list[Change]
    not_rendered: dict[str, int]  # "chart NAME VERSION: reason" -> placements


def chart_changes(
    base: Side,
    head: Side,
    ctx: Context,
    charts_dir: Path | None,
    store: cache.Cache | None,
    progress: Progress = SILENT,
) -> ChartChanges:
    """Rendered-object changes of every affected chart placement, one set per render pair;
    the renders reported to ``progress``."""
    old, new = _charted(base), _charted(head)
    listings = _listings(base, old), _listings(head, new)
    affected = sorted(
        pair
        for pair in old.keys() | new.keys()
        if _inputs(base, old.get(pair), listings[0]) != _inputs(head, new.get(pair), listings[1])
    )
    with tempfile.TemporaryDirectory(prefix="fleetgen-diff-charts-") as tmp:
        store = store or cache.Cache(Path(tmp) / "cache")
        builds = [
            _render(
                side,
                [p for pair in affected if (p := found.get(pair))],
                Path(tmp) / name,
                charts_dir,
                store,
                progress,
            )
            for side, found, name in ((base, old, "base"), (head, new, "head"))
        ]
    groups: dict[tuple[str | None, str | None], set[Pair]] = {}
    not_rendered: dict[str, int] = {}
    for pair in affected:
        units = [chart_renders.unit(found[pair]) if pair in found else None for found in (old, new)]
        skipped = [
            build.skipped[u]
            for build, u in zip(builds, units, strict=True)
            if u is not None and u in build.skipped
        ]
        if skipped:
            not_rendered[skipped[-1]] = not_rendered.get(skipped[-1], 0) + 1
            continue
        move = tuple(
            build.inputs[u] if u is not None else None
            for build, u in zip(builds, units, strict=True)
        )
        groups.setdefault((move[0], move[1]), set()).add(pair)
    changes = []
    for (old_key, new_key), members in sorted(groups.items(), key=lambda g: str(g[0])):
        before = _objects(builds[0], old, members, old_key)
        after = _objects(builds[1], new, members, new_key)
        where = ctx.complete({c for _, c in members}, {a for a, _ in members})
        for key in sorted(before.keys() | after.keys()):
            obj = after.get(key) or before[key]
            change = compare_objects(before.get(key), after.get(key), obj.file, where)
            if change is not None:
                changes.append(change)
    return ChartChanges(changes, dict(sorted(not_rendered.items())))


def changed_charts(base: Side, head: Side) -> dict[str, str]:
    """App -> chart directory, for apps whose chart kept in the repository has other files
    (by Git blob id) at the two refs: generated files do not show such a change."""
    old, new = _charted(base), _charted(head)
    before, after = _listings(base, old), _listings(head, new)
    found = {}
    for pair in sorted(old.keys() & new.keys()):
        chart = old[pair].chart
        if (
            chart is not None
            and chart.path is not None
            and chart == new[pair].chart
            and before[chart.path] != after[chart.path]
        ):
            found[pair[0]] = chart.path
    return found


def _listings(side: Side, placed: Mapping[Pair, Placement]) -> dict[str, dict[str, str]]:
    """The files (path -> Git blob id) of every chart kept in the repository at one side."""
    paths = {p.chart.path for p in placed.values() if p.chart is not None and p.chart.path}
    return {path: side.snapshot.files(path) for path in sorted(paths)}


def _charted(side: Side) -> dict[Pair, Placement]:
    """Chart placements of a side (apps from other sources have no chart to render here)."""
    plan = side.chart_plan
    if plan is None:
        return {}
    return {
        (p.app, p.cluster): p for p in plan.placements if p.chart is not None and p.remote is None
    }


def _inputs(
    side: Side, placement: Placement | None, listings: Mapping[str, Mapping[str, str]]
) -> str | None:
    """What a placement's render depends on at one side, as text (None: not placed)."""
    if placement is None or side.plan is None:
        return None
    chart = placement.chart
    assert chart is not None
    files = listings[chart.path] if chart.path is not None else {}
    return json.dumps(
        [
            str(chart),
            placement.settings.values,
            post_render(placement.settings),
            placement.namespace,
            chart_renders.releases(side.plan.fleet).get(placement.app),
            files,
        ],
        sort_keys=True,
        default=str,
    )


def _render(
    side: Side,
    placements: list[Placement],
    root: Path,
    charts_dir: Path | None,
    store: cache.Cache,
    progress: Progress,
) -> chart_renders.ChartBuilds:
    """Render ``placements`` at one side, its charts kept in the repository written under
    ``root``; a chart Helm cannot render is a RenderError."""
    for path in sorted({p.chart.path for p in placements if p.chart and p.chart.path}):
        for name in side.snapshot.files(path):
            data = side.snapshot.read(name)
            if data is not None:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_bytes(data)
    built = chart_renders.render(
        placements,
        root,
        charts_dir,
        store,
        progress,
        f"helm render at {side.snapshot.label}",
        chart_renders.releases(side.plan.fleet) if side.plan is not None else {},
    )
    if built.failures:
        raise RenderError(
            "\n".join(
                f"helm could not render {unit} at {side.snapshot.label}: {error}"
                for unit, error in sorted(built.failures.items())
            )
        )
    return built


def _objects(
    built: chart_renders.ChartBuilds,
    placed: Mapping[Pair, Placement],
    members: set[Pair],
    entry: str | None,
) -> dict[Key, Obj]:
    """The rendered objects of a group at one side (all its members share one render), each
    named after its template (a chart kept in the repository) or the chart archive."""
    if entry is None:
        return {}
    placement = placed[min(members)]
    assert placement.chart is not None
    name = chart_renders.unit(placement)
    version = built.versions.get(name, placement.chart.version)
    fallback = placement.chart.path or chart_renders.archive_name(placement.chart.name, version)
    rendered = built.objects[name]
    keyed = objects(RENDERED, "", [r.doc for r in rendered])  # objects() skips no dict
    return {
        obj.key: Obj(obj.key, r.origin or fallback, obj.doc)
        for obj, r in zip(keyed, rendered, strict=True)
    }
