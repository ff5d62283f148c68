"""The versions apps run, read from the Plan: per app, each image (by the name its base writes)
and its chart, what every placement runs, by environment and cluster in rollout order (`rows`);
where an environment differs from the one before it (`Row.lagging`); the drift guard
(`order_findings`); the JSON contract of ``fleetgen versions`` (`VersionsJSON`) and its text and
Markdown tables. ``fleetgen promote``, ``fleetgen versions`` and the fleet map read them here.

A version is an image's tag and digest (set as a unit by a layer) or a chart's version; an
image's repository (``new_name``) is no part of it: registries may differ by environment. A
chart version may be a range, shown as written and marked: Argo CD and Flux each resolve it on
their own at sync time (`RANGE_NOTE`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from fleetgen.resolver.plan import Placement, Plan
from fleetgen.util.templating import md_cell

Kind = Literal["image", "chart"]
BASE = "base"  # the text of an image version no layer sets: the one its base writes


RANGE_NOTE = (
    "`(range)`: a chart version range, which Argo CD and Flux each resolve on their own at sync "
    "time to the highest chart version it allows: what runs is not pinned, and the engines may "
    "run different versions while a release reaches them."
)


@dataclass(frozen=True, slots=True)
class Version:
    """An image's tag and digest, or a chart's version (``tag``: exact, or a ``range``);
    neither: the base's own."""

    tag: str | None = None
    digest: str | None = None
    range: bool = False

    @property
    def text(self) -> str:
        """``1.8.2``, ``1.8.2@sha256:4f53cda18c2b…``, ``sha256:4f53cda18c2b…`` (a digest cut to
        12 hex digits, as the fleet map's images), ``>=1.0.0 (range)`` or `BASE`."""
        digest = short_digest(self.digest) if self.digest else ""
        if self.tag and digest:
            return f"{self.tag}@{digest}"
        if self.range:
            return f"{self.tag} (range)"
        return self.tag or digest or BASE


def short_digest(digest: str) -> str:
    """``sha256:123456789abc…``: a digest shortened to 12 hex digits, as the tables show it."""
    algorithm, _, hexdigits = digest.partition(":")
    return f"{algorithm}:{hexdigits[:12]}…"


@dataclass(frozen=True, slots=True)
class Running:
    """What one environment's clusters run of one image or chart: cluster -> version, the
    clusters in rollout order (canary wave first)."""

    env: str
    clusters: Mapping[str, Version]

    @property
    def versions(self) -> tuple[Version, ...]:
        """The distinct versions, in the order of the clusters that run them."""
        return tuple(dict.fromkeys(self.clusters.values()))

    @property
    def text(self) -> str:
        """The one version, or each cluster's where they differ."""
        if len(self.versions) == 1:
            return self.versions[0].text
        return ", ".join(f"{version.text} ({c})" for c, version in self.clusters.items())


@dataclass(frozen=True, slots=True)
class Row:
    """One image (``name`` as the base writes it) or the chart of one app, by environment (those
    it runs in, in spec order)."""

    app: str
    kind: Kind
    name: str
    cells: tuple[Running, ...]

    def cell(self, env: str) -> Running | None:
        """What ``env`` runs, None where the app does not run."""
        return next((cell for cell in self.cells if cell.env == env), None)

    def lagging(self) -> dict[str, str]:
        """env -> the environment before it (of those the app runs in) when their versions
        differ: what `fleetgen promote` would bring over."""
        return {
            cell.env: before.env
            for before, cell in zip(self.cells, self.cells[1:], strict=False)
            if set(before.versions) != set(cell.versions)
        }


def rows(plan: Plan, apps: Iterable[str] | None = None) -> list[Row]:
    """The rows of ``apps`` (default: every app), by app name, its chart first, then its
    images by name."""
    placed = plan.by_app()
    names = sorted(placed if apps is None else set(apps) & set(placed))
    return [row for app in names for row in of_app(plan, app, placed[app])]


def of_app(plan: Plan, app: str, placements: Sequence[Placement]) -> list[Row]:
    """The rows of ``app``, placed as ``placements``: its chart, then its images by name."""
    order = {cluster.name: index for index, cluster in enumerate(plan.fleet.clusters)}
    ordered = sorted(placements, key=lambda p: (p.wave is None, p.wave or 0, order[p.cluster]))
    runs = [(placement, _runs(placement)) for placement in ordered]
    envs = [env.name for env in plan.fleet.environments]
    found = []
    for kind, name in sorted({key for _, running in runs for key in running}):
        by_env: dict[str, dict[str, Version]] = {}
        for placement, running in runs:
            # an image no layer of this placement versions runs its base's
            version = running.get((kind, name), Version() if kind == "image" else None)
            if version is not None:
                by_env.setdefault(placement.env, {})[placement.cluster] = version
        cells = tuple(Running(env, by_env[env]) for env in envs if env in by_env)
        found.append(Row(app, kind, name, cells))
    return found


def _runs(placement: Placement) -> dict[tuple[Kind, str], Version]:
    """What ``placement`` runs: its chart's version, each image a layer versions."""
    found: dict[tuple[Kind, str], Version] = {}
    if placement.chart is not None:
        chart = placement.chart
        found["chart", chart.name] = Version(chart.version, range=chart.range)
    for name, ref in placement.settings.images.items():
        if ref.tag is not None or ref.digest is not None:
            found["image", name] = Version(ref.tag, ref.digest)
    return found


def order_findings(table: Sequence[Row], envs: Sequence[str]) -> list[str]:
    """``--check-order``: where an environment of ``envs`` runs a version that no environment
    before it in ``envs`` runs (of those the app runs in), one message each."""
    found = []
    for row in table:
        earlier: set[Version] = set()
        seen: list[str] = []
        for env in envs:
            cell = row.cell(env)
            if cell is None:
                continue
            if seen:
                for version in cell.versions:
                    if version not in earlier:
                        found.append(_skipped(row, cell, version, seen))
            earlier |= set(cell.versions)
            seen.append(env)
    return found


def _skipped(row: Row, cell: Running, version: Version, seen: Sequence[str]) -> str:
    clusters = ", ".join(c for c, v in cell.clusters.items() if v == version)
    before = f"{seen[0]} does not run" if len(seen) == 1 else f"none of {', '.join(seen)} runs"
    return (
        f"app {row.app!r} {row.kind} {row.name!r}: {cell.env} runs {version.text} on "
        f"{clusters}, which {before}"
    )


class _Contract(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class VersionJSON(_Contract):
    """One version and the clusters of the environment that run it, in rollout order."""

    version: str | None = Field(description="the image tag or the chart version; null: none")
    digest: str | None = Field(description="the image digest (sha256:...); null: none")
    clusters: list[str]
    range: bool = Field(
        default=False,
        description="the chart version is a range, which Argo CD and Flux each resolve on "
        "their own at sync time: what runs is not pinned",
    )


class CellJSON(_Contract):
    """What one environment runs."""

    environment: str
    versions: list[VersionJSON] = Field(description="more than one: its clusters disagree")
    differs_from: str | None = Field(
        description="the environment before it (of those the app runs in) when their "
        "versions differ: what `fleetgen promote APP --from ENV --to environment` brings over"
    )


class RowJSON(_Contract):
    """One image of an app (as its base names it) or its chart."""

    app: str
    kind: Kind
    name: str
    environments: list[CellJSON] = Field(description="those the app runs in, in spec order")


class VersionsJSON(_Contract):
    """``fleetgen versions --format json``: version 1; fields are only ever added."""

    model_config = ConfigDict(title="fleetgen versions")

    version: Literal[1] = 1
    environments: list[str] = Field(description="the fleet's environments, in spec order")
    rows: list[RowJSON] = Field(description="by app, its chart first, then its images by name")


def to_json(plan: Plan, table: Sequence[Row]) -> str:
    """The JSON document (`VersionsJSON`), indented, newline-terminated."""
    document = VersionsJSON(
        environments=[env.name for env in plan.fleet.environments],
        rows=[_row_json(row) for row in table],
    )
    return json.dumps(document.model_dump(), indent=2) + "\n"


def _row_json(row: Row) -> RowJSON:
    lagging = row.lagging()
    return RowJSON(
        app=row.app,
        kind=row.kind,
        name=row.name,
        environments=[
            CellJSON(
                environment=cell.env,
                versions=[
                    VersionJSON(
                        version=version.tag,
                        digest=version.digest,
                        clusters=[c for c, v in cell.clusters.items() if v == version],
                        range=version.range,
                    )
                    for version in cell.versions
                ],
                differs_from=lagging.get(cell.env),
            )
            for cell in row.cells
        ],
    )


def json_schema() -> str:
    """The JSON Schema of the contract, as committed in ``docs/versions.schema.json``."""
    return json.dumps(VersionsJSON.model_json_schema(), indent=2) + "\n"


LEGEND = (
    "`*`: differs from the environment before it (of those the app runs in): "
    "`fleetgen promote APP --from BEFORE --to ENV` brings it over; `·`: the app does not run "
    "there; `base`: no layer sets the image's version (its base's own)."
)


def ranged(table: Sequence[Row]) -> bool:
    """Whether a row of ``table`` runs a chart version range somewhere."""
    return any(v.range for row in table for cell in row.cells for v in cell.versions)


def legend(ranges: bool) -> str:
    """`LEGEND`, and `RANGE_NOTE` where the table shows ``ranges``."""
    return f"{LEGEND} {RANGE_NOTE}" if ranges else LEGEND


def cells(plan: Plan, row: Row) -> list[str]:
    """``row``'s text per environment of the fleet (``*`` marks `Row.lagging`, ``·`` where the
    app does not run)."""
    lagging = row.lagging()
    found = []
    for env in plan.fleet.environments:
        cell = row.cell(env.name)
        found.append("·" if cell is None else cell.text + (" *" if env.name in lagging else ""))
    return found


def text(plan: Plan, table: Sequence[Row]) -> str:
    """The matrix as aligned columns, then the legend."""
    if not table:
        return "no app runs a versioned image or chart\n"
    header = ["app", "image or chart", *(env.name for env in plan.fleet.environments)]
    lines = [header, *([row.app, f"{row.kind} {row.name}", *cells(plan, row)] for row in table)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    body = [
        "  ".join(part.ljust(width) for part, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    ]
    return "\n".join([*body, "", legend(ranged(table))]) + "\n"


def markdown(plan: Plan, table: Sequence[Row]) -> str:
    """The matrix as a Markdown table, then the legend (empty when no app is versioned)."""
    return markdown_table(plan, markdown_rows(plan, table), ranged(table))


def markdown_rows(plan: Plan, table: Sequence[Row]) -> list[str]:
    """The Markdown table rows of ``table``."""
    return [
        f"| {row.app} | {row.kind} {md_cell(row.name)} | "
        f"{' | '.join(md_cell(cell) for cell in cells(plan, row))} |"
        for row in table
    ]


def markdown_table(plan: Plan, lines: Sequence[str], ranges: bool = False) -> str:
    """`markdown_rows` ``lines`` under the table's header, then the legend (empty without
    lines), which explains ranges where ``ranges`` says a row shows one."""
    if not lines:
        return ""
    envs = [env.name for env in plan.fleet.environments]
    header = [
        f"| app | image or chart | {' | '.join(envs)} |",
        f"| --- | --- |{' --- |' * len(envs)}",
    ]
    return "\n".join([*header, *lines, "", legend(ranges)]) + "\n"
