"""One app's rows of the fleet map as plain data (`AppRows`): its cell in each environment's
table, its chart and images by environment, the clusters each engine runs it on, the repositories
it reads, its lines of the versions matrix; `fleetgen.emit.fleetmap.readme` folds every app's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from fleetgen.emit import versions
from fleetgen.model import App
from fleetgen.resolver.plan import ImageRef, Placement, Plan

Versions = tuple[tuple[str, str], ...]  # (env, what it runs joined, or "·"), envs in spec order


class AppRows(TypedDict):
    """What the fleet map shows of one app."""

    placements: int  # how many it has
    envs: dict[str, str]  # env it runs in -> its table row: a cell per cluster column, " | "
    chart: tuple[str, Versions] | None  # a placed chart app: (its chart, versions per env)
    images: tuple[tuple[str, Versions], ...]  # (base image, references per env), by image
    # without overlay: (URL, revision, path) of another source; ("", "", path) a plain directory
    remote: tuple[str, str, str] | None
    clusters: dict[str, int]  # engine -> the clusters it runs the app on: bit i set for the
    #                           i-th of fleet.clusters (Python's ints are unbounded)
    own_repo: bool  # whether a placement reads the fleet's repository
    repos: tuple[str, ...]  # the other repositories its placements read, sorted
    runtime_vars: tuple[str, ...]  # the ClusterVars its ApplicationSets read when they run
    versions: tuple[str, ...]  # its rows of the versions matrix (`versions_section`)
    ranged: bool  # its chart version is a range somewhere (`versions.RANGE_NOTE`)
    suspended: tuple[str, ...]  # the envs where Flux holds a placement of it suspended


@dataclass(frozen=True, slots=True)
class Columns:
    """What every app's rows are laid out by, the same for all apps of a Plan: each cluster's
    bit, each environment's waves and cluster columns (`env_columns`)."""

    bits: Mapping[str, int]
    envs: Mapping[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]

    @classmethod
    def of(cls, plan: Plan) -> Columns:
        """The columns of ``plan``."""
        return cls(
            {cluster.name: bit for bit, cluster in enumerate(plan.fleet.clusters)},
            env_columns(plan),
        )


def rows(plan: Plan) -> dict[str, AppRows]:
    """Every placed app's rows of the fleet map, by name."""
    columns = Columns.of(plan)
    specs = {app.name: app for app in plan.fleet.apps}
    layered: defaultdict[str, set[str]] = defaultdict(set)  # app -> clusters with its own layer
    for overlay in plan.cluster_overlays:
        layered[overlay.app].add(overlay.cluster)
    return {
        app: app_rows(plan, specs[app], placements, columns, layered[app])
        for app, placements in plan.by_app().items()
    }


def app_rows(
    plan: Plan,
    spec: App,
    placements: Sequence[Placement],
    columns: Columns,
    layered: Collection[str],
) -> AppRows:
    """The rows of the app ``spec``, placed as ``placements``; ``columns``: `Columns.of` the
    Plan; ``layered``: the clusters where the app has a layer of its own."""
    by_env: defaultdict[str, list[Placement]] = defaultdict(list)
    clusters: defaultdict[str, int] = defaultdict(int)
    for placement in placements:
        by_env[placement.env].append(placement)
        clusters[placement.engine] |= 1 << columns.bits[placement.cluster]
    others = {p.chart.repo for p in placements if p.chart and p.chart.repo} | {
        p.remote.source.url for p in placements if p.remote and p.remote.source
    }
    remote = next(
        (
            (
                p.remote.source.url if p.remote.source else "",
                p.remote.source.target_revision if p.remote.source else "",
                # every directory its placements read (Overrides(path=...)), in Plan order
                ", ".join(dict.fromkeys(q.remote.path for q in placements if q.remote)),
            )
            for p in reversed(placements)
            if p.remote
        ),
        None,
    )
    table = versions.of_app(plan, spec.name, placements)
    return AppRows(
        placements=len(placements),
        envs=_env_rows(columns, by_env, layered),
        chart=_chart_row(plan, spec, by_env),
        images=_image_rows(plan, by_env),
        remote=remote,
        clusters=dict(clusters),
        own_repo=any(p.reads_fleet_repo for p in placements),
        repos=tuple(sorted(others)),
        runtime_vars=tuple(
            sorted({name for p in placements if p.template for name in p.template.var_names()})
        ),
        versions=tuple(versions.markdown_rows(plan, table)),
        ranged=versions.ranged(table),
        suspended=tuple(env for env, placed in by_env.items() if any(p.suspended for p in placed)),
    )


def env_columns(plan: Plan) -> dict[str, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]]:
    """env -> (its rollout waves, its clusters: in wave order, then the others by name)."""
    by_env: defaultdict[str, list[str]] = defaultdict(list)
    for cluster in plan.fleet.clusters:
        by_env[cluster.env].append(cluster.name)
    found = {}
    for env in plan.fleet.environments:
        # An empty wave (a catch-all step with no cluster left) comes after every other one.
        waves = tuple(wave for wave in plan.waves.get(env.name, ()) if wave)
        in_waves = [name for wave in waves for name in wave]
        found[env.name] = (waves, (*in_waves, *sorted(set(by_env[env.name]).difference(in_waves))))
    return found


def _env_rows(
    columns: Columns, by_env: Mapping[str, Sequence[Placement]], layered: Collection[str]
) -> dict[str, str]:
    """env -> the app's row of its table (``+`` on a cluster with the app's own layer)."""
    found = {}
    for env, (_, clusters) in columns.envs.items():
        if env in by_env:
            cells = {p.cluster: _cell(p, p.cluster in layered) for p in by_env[env]}
            found[env] = " | ".join([cells.get(c, "·") for c in clusters])
    return found


def _cell(placement: Placement, layered: bool) -> str:
    text = placement.engine + (" (suspended)" if placement.suspended else "")
    if placement.wave is not None:
        text += f" wave {placement.wave}"
    return f"{text} +" if layered else text


def _chart_row(
    plan: Plan, app: App, by_env: Mapping[str, Sequence[Placement]]
) -> tuple[str, Versions] | None:
    """A chart app's chart and the versions each environment runs (None: no chart placed)."""
    chart = app.chart
    if chart is None or not any(p.chart is not None for ps in by_env.values() for p in ps):
        return None
    running = tuple(
        (
            env.name,
            ", ".join(sorted({_chart_version(p) for p in by_env.get(env.name, ()) if p.chart}))
            or "·",
        )
        for env in plan.fleet.environments
    )
    source = (
        f"{chart.path} (in this repository)" if chart.path else f"{chart.name} from {chart.repo}"
    )
    return source, running


def _chart_version(placement: Placement) -> str:
    """The chart version a placement runs, a range marked as such (`versions.Version.text`)."""
    assert placement.chart is not None
    return versions.Version(placement.chart.version, range=placement.chart.range).text


def _image_rows(
    plan: Plan, by_env: Mapping[str, Sequence[Placement]]
) -> tuple[tuple[str, Versions], ...]:
    """(overridden image, what each environment runs) by image; a cell lists every distinct
    reference the environment's placements run (per_cluster layers included; a chart app's
    post-rendered images too)."""
    found: dict[str, dict[str, set[str]]] = {}
    for env, placements in by_env.items():
        # The placements on one overlay share its Settings: read each object's images once.
        distinct = {id(p.settings): p.settings for p in placements}
        for settings in distinct.values():
            for name, ref in settings.images.items():
                found.setdefault(name, {}).setdefault(env, set()).add(image_reference(ref))
    return tuple(
        (
            image,
            tuple(
                (env.name, ", ".join(sorted(refs.get(env.name, ()))) or "·")
                for env in plan.fleet.environments
            ),
        )
        for image, refs in sorted(found.items())
    )


def image_reference(ref: ImageRef) -> str:
    """``repository:tag@sha256:123456789abc…`` (a digest shortened to 12 hex digits)."""
    text = ref.current_name
    if ref.tag:
        text += f":{ref.tag}"
    if ref.digest:
        text += f"@{versions.short_digest(ref.digest)}"
    return text
