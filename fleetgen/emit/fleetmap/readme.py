"""``README.md`` itself: the emitter's ``check``, ``warnings`` and ``emit``, and `emit_rows`,
which renders ``templates/fleetmap.md.j2`` from every app's rows (`fleetgen.emit.fleetmap.rows`)
and the fleet's shared data, with the versions matrix at its end."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from fleetgen.emit import notices, pictures, versions
from fleetgen.emit.common import selects_by_vars
from fleetgen.emit.fleetmap.clusters import (
    cluster_engines,
    clusters_by_engine,
    credential_kinds,
    external_rows,
    label_cells,
)
from fleetgen.emit.fleetmap.engines import bootstrap_steps, floors
from fleetgen.emit.fleetmap.rows import AppRows, rows
from fleetgen.emit.fleetmap.tables import ChartRow, ImageRow, env_tables, project_views
from fleetgen.errors import Problem, at
from fleetgen.model.fields import VAR_PREFIX, placeholder_note, server_placeholder_note
from fleetgen.resolver import ranges
from fleetgen.resolver.plan import SUSPENDED, Plan
from fleetgen.util.templating import render
from fleetgen.write.output import OutputFile

PATH = "README.md"


def check(plan: Plan) -> list[Problem]:
    """The fleet map expresses every Plan: nothing to report."""
    return []


def warnings(plan: Plan) -> list[Problem]:
    """The fleet's repo (the map's Source, which both engines read) or a cluster's server still a
    placeholder; apps whose ``depends_on`` no placement honours (all on Argo CD, which syncs
    Applications independently; where Flux places them too it does, and the map and ``explain``
    say what Argo CD does with it); the chart ranges apps follow unwaived (`ranges.warnings`)."""
    note = placeholder_note(plan.fleet.repo)
    found = [at(plan.fleet, note, plan.fleet)] if note else []
    found += [
        at(cluster, server, plan.fleet)
        for cluster in plan.fleet.clusters
        if (server := server_placeholder_note(cluster.name, cluster.server))
    ]
    found += ranges.warnings(plan)
    on_flux = {p.app for p in plan.placements if p.engine == "flux"}
    return found + [
        at(
            app,
            f"app {app.name!r}: depends_on has no effect: every placement of it is on Argo CD, "
            "which syncs Applications independently (sync waves do not order generated apps)",
            plan.fleet,
        )
        for app in plan.fleet.apps
        if app.depends_on and app.name in plan.by_app() and app.name not in on_flux
    ]


def emit(plan: Plan) -> list[OutputFile]:
    """``README.md`` at the root of the output directory: `emit_rows` with every placed app's
    `rows`."""
    return emit_rows(plan, rows(plan))


def emit_rows(plan: Plan, rows: Mapping[str, AppRows]) -> list[OutputFile]:
    """``README.md`` from the Plan's shared data and ``rows``: app -> its `app_rows`, for every
    placed app (an unplaced app's rows add nothing). Reads no placement or overlay."""
    apps = sorted(rows.items())
    on = clusters_by_engine(plan, rows)
    engines = cluster_engines(plan, on)
    views = pictures.env_views(plan.fleet)
    ranged = any(row["ranged"] for _, row in apps)
    text = render(
        "fleetmap.md.j2",
        fleet=plan.fleet,
        tables=env_tables(plan, apps),
        suspended=SUSPENDED,
        projects=project_views(plan, rows),
        floors=floors(plan),
        apps=sum(1 for _, row in apps if row["placements"]),
        engines=engines,
        pictures=(pictures.environments(views, engines), pictures.rollouts(views)),
        placements=sum(row["placements"] for _, row in apps),
        charts=[ChartRow(app, *row["chart"]) for app, row in apps if row["chart"]],
        ranged=ranged,
        common_metadata=_common_metadata(plan),
        images=[
            ImageRow(app, image, versions) for app, row in apps for image, versions in row["images"]
        ],
        credentials=credential_kinds(plan, on),
        labels=label_cells(plan),
        remotes=[(app, *row["remote"]) for app, row in apps if row["remote"] and row["remote"][0]],
        directories=[
            (app, row["remote"][2]) for app, row in apps if row["remote"] and not row["remote"][0]
        ],
        remote_bases=[
            (app, plan.remote_bases[app], sorted(row["clusters"]))
            for app, row in apps
            if app in plan.remote_bases and row["placements"]
        ],
        external=external_rows(plan, on, rows),
        runtime_vars=[
            (app, _annotation_keys(row["runtime_vars"])) for app, row in apps if row["runtime_vars"]
        ],
        var_selector=all(selects_by_vars(i.options) for i in plan.fleet.argocd_instances),
        bootstrap=bootstrap_steps(plan, on),
        tenants=any(project.service_account for project in plan.fleet.projects),
        notifications=notices.heard(plan),
        caveats=notices.caveats(plan),
    )
    matrix = [line for _, row in apps for line in row["versions"]]
    return [OutputFile(PATH, text=text + versions_section(plan, matrix, ranged))]


def _common_metadata(plan: Plan) -> bool:
    """Whether the fleet or an environment sets common labels or annotations."""
    fleet = plan.fleet
    return bool(fleet.common_labels or fleet.common_annotations) or any(
        env.common_labels or env.common_annotations for env in fleet.environments
    )


def _annotation_keys(names: Iterable[str]) -> str:
    return ", ".join(VAR_PREFIX + name for name in names)


def versions_section(plan: Plan, lines: Sequence[str], ranged: bool = False) -> str:
    """The versions matrix of ``lines`` (every app's `AppRows` ``versions``, as ``fleetgen
    versions --format markdown`` prints them) under its heading, its legend explaining chart
    version ranges where ``ranged``; empty without lines."""
    table = versions.markdown_table(plan, lines, ranged)
    return render("versions.md.j2", table=table) if table else ""
