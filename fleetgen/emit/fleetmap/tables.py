"""The fleet map's tables folded from every app's rows: one placement table per environment, the
chart and image versions, the project boundaries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fleetgen.emit.fleetmap.clusters import cluster_names
from fleetgen.emit.fleetmap.rows import AppRows, Versions, env_columns
from fleetgen.model import Environment, Project
from fleetgen.resolver.layering import merge_sync
from fleetgen.resolver.plan import Plan


@dataclass(frozen=True, slots=True)
class EnvTable:
    """One environment's placement table: cluster columns (in wave order) and one row per app."""

    env: Environment
    clusters: tuple[str, ...]
    waves: tuple[tuple[str, ...], ...]
    rows: tuple[tuple[str, str], ...]  # (app, its cell per cluster joined by " | ")
    automated: bool  # the environment's effective sync policy (the fleet's, then its own)
    suspended: tuple[str, ...] = ()  # the apps Flux holds suspended there (`Placement.suspended`)
    suspended_charts: bool = False  # some of them are chart apps (gate and wrapper held too)


def env_tables(plan: Plan, apps: Sequence[tuple[str, AppRows]]) -> list[EnvTable]:
    """A table per environment that has clusters, in spec order; ``apps``: (app, rows) by
    name."""
    tables = []
    found = env_columns(plan)
    for env in plan.fleet.environments:
        waves, clusters = found[env.name]
        if not clusters:
            continue
        rows = tuple((app, row["envs"][env.name]) for app, row in apps if env.name in row["envs"])
        automated = merge_sync(plan.fleet.sync, env.sync, "env", {}).automated
        held = [(app, row) for app, row in apps if env.name in row["suspended"]]
        suspended = tuple(app for app, _ in held)
        charts = any(row["chart"] for _, row in held)
        tables.append(EnvTable(env, clusters, waves, rows, automated, suspended, charts))
    return tables


@dataclass(frozen=True, slots=True)
class ChartRow:
    """A chart app: its chart and the chart version(s) each environment runs."""

    app: str
    chart: str
    versions: Versions


@dataclass(frozen=True, slots=True)
class ImageRow:
    """One image of a kustomize app's base: what each environment runs instead of it."""

    app: str
    image: str  # as the base writes it
    versions: Versions  # references joined, or "·"


@dataclass(frozen=True, slots=True)
class ProjectView:
    """A project boundary and what runs inside it."""

    project: Project
    apps: tuple[str, ...]
    clusters: tuple[str, ...]
    repos: tuple[str, ...] = ()  # what its apps may read: source_repos, else what they read


def project_views(plan: Plan, rows: Mapping[str, AppRows]) -> list[ProjectView]:
    """Each project with the apps it holds and the clusters they run on, by name; ``rows``: as
    `emit_rows` takes them."""
    views = []
    for project in sorted(plan.fleet.projects, key=lambda p: p.name):
        apps = sorted(app.name for app in plan.fleet.apps if app.project == project.name)
        placed = [rows[app] for app in apps if app in rows and rows[app]["placements"]]
        mask = 0
        for row in placed:
            for engine_mask in row["clusters"].values():
                mask |= engine_mask
        views.append(
            ProjectView(
                project,
                tuple(apps),
                tuple(sorted(cluster_names(plan, mask))),
                tuple(project.source_repos or _read_repos(plan, placed)),
            )
        )
    return views


def _read_repos(plan: Plan, placed: Sequence[AppRows]) -> list[str]:
    """The repositories the placements of ``placed`` read, as written: the fleet's (overlays and
    charts kept in it, or no placement yet), chart repositories, other sources."""
    own = any(row["own_repo"] for row in placed)
    others = sorted({repo for row in placed for repo in row["repos"]})
    return [plan.fleet.repo] * (own or not placed) + others
