"""The chart version ranges a Plan's placements follow (`fleetgen.rules.chartversions`), as the
rule ``chart-range`` reports them: per app and environment, with the spec object that writes the
range (the HelmChart, or the Overrides whose ``chart_version`` is in effect), its severity there
(`fleetgen.resolver.severity`: by default an error in production, a warning elsewhere) and the
App's Waiver of it. The output stays deterministic (the range is what is committed), but Argo CD
and Flux each resolve it at sync time: what runs is not pinned.

``build`` warns of each range no Waiver covers (`warnings`), ``validate`` reports each as a
finding (`fleetgen.validate.findings`). A range with build metadata on an OCI chart warns too:
Masterminds semver ignores build metadata when comparing (``Version.Compare``), so tags that
differ only in it (``1.2.3_a``, ``1.2.3_b``: an OCI tag carries ``+`` as ``_``, which both
engines turn back, Argo CD's ``nativeHelmChart.GetTags`` and source-controller's
``convertOCIToSemVerTag``) are one version to both, and each picks its own: Argo CD the first
the registry lists (``versions.MaxVersion`` keeps the first highest), Flux whichever its sort
puts first (``getTagBySemver``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fleetgen.errors import Problem, at
from fleetgen.model import App, Fleet, Waiver
from fleetgen.model.base import Spec
from fleetgen.resolver.layering import layer_object
from fleetgen.resolver.plan import Placement, Plan
from fleetgen.resolver.severity import severity
from fleetgen.rules.chartversions import has_build_metadata
from fleetgen.rules.policy import Severity

RULE = "chart-range"
WAIVE = f"App(waivers=[Waiver(rule={RULE!r}, reason=...)])"


@dataclass(frozen=True, slots=True)
class RangeUse:
    """A chart range one app follows in one environment, on ``clusters``."""

    app: App
    env: str
    version: str
    written: Spec  # the HelmChart or Overrides whose version it is
    clusters: tuple[str, ...]
    oci: bool
    level: Severity  # what chart-range is in this environment

    @property
    def waiver(self) -> Waiver | None:
        """The app's Waiver of ``chart-range``, if any."""
        return next((w for w in self.app.waivers if w.rule == RULE), None)


def uses(plan: Plan) -> list[RangeUse]:
    """Every range the Plan's placements follow, by app, environment, range and the spec object
    that writes it, in Plan order."""
    fleet = plan.fleet
    envs = {env.name: env for env in fleet.environments}
    apps = {app.name: app for app in fleet.apps}
    grouped: dict[tuple[str, str, int], tuple[Spec, list[Placement]]] = {}
    for placement in plan.placements:
        if placement.chart is None or not placement.chart.range:
            continue
        spec = _written(fleet, apps[placement.app], placement)
        key = (placement.app, placement.env, id(spec))
        grouped.setdefault(key, (spec, []))[1].append(placement)
    found = []
    for (app, env, _), (spec, placements) in grouped.items():
        chart = placements[0].chart
        assert chart is not None
        found.append(
            RangeUse(
                apps[app],
                env,
                chart.version,
                spec,
                tuple(p.cluster for p in placements),
                chart.oci,
                severity(fleet, envs[env], RULE),
            )
        )
    return found


def _written(fleet: Fleet, app: App, placement: Placement) -> Spec:
    """The HelmChart, or the Overrides whose ``chart_version`` the placement runs."""
    layer = placement.settings.provenance.get("chart/version")
    found = layer_object(fleet, placement, layer) if layer else None
    assert app.chart is not None
    return found if found is not None else app.chart


def warnings(plan: Plan) -> list[Problem]:
    """One warning per range an app follows and does not waive, with the environments where
    ``chart-range`` reports it; one per OCI range with build metadata."""
    problems = []
    for group in _groups(plan):
        problems += _unpinned(group) + _metadata(group[0])
    return problems


def unpinned(plan: Plan) -> list[Problem]:
    """The warnings of `warnings` that ``validate`` reports as ``chart-range`` findings."""
    return [problem for group in _groups(plan) for problem in _unpinned(group)]


def _groups(plan: Plan) -> list[list[RangeUse]]:
    """The ranges the Plan follows, by app and the spec object that writes them."""
    found: dict[tuple[str, int], list[RangeUse]] = {}
    for use in uses(plan):
        found.setdefault((use.app.name, id(use.written)), []).append(use)
    return list(found.values())


def _unpinned(group: Sequence[RangeUse]) -> list[Problem]:
    reported = [use for use in group if use.waiver is None and use.level != "off"]
    if not reported:
        return []
    first = reported[0]
    levels = ", ".join(f"{use.level} in {use.env}" for use in reported)
    return [
        at(
            first.written,
            f"app {first.app.name!r}: chart version {first.version!r} is a range: Argo CD and "
            "Flux each resolve it on their own at sync time, so what runs is not pinned "
            f"(validate's rule {RULE}: {levels}); pin an exact version, or waive it: {WAIVE}",
            first.app,
        )
    ]


def _metadata(use: RangeUse) -> list[Problem]:
    if not (use.oci and has_build_metadata(use.version)):
        return []
    return [
        at(
            use.written,
            f"app {use.app.name!r}: chart version range {use.version!r} names build metadata, "
            "which semver ignores when comparing: OCI tags that differ only in it ('1.2.3_a', "
            "'1.2.3_b') are one version to both engines, and Argo CD and Flux may each pick "
            "another; drop the build metadata, and give releases versions that differ before it",
            use.app,
        )
    ]
