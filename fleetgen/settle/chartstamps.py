"""In-repo charts upgrade only when their version changes: Flux rebuilds a chart kept in the
repository when its Chart.yaml version changes (``reconcileStrategy: ChartVersion``), Argo CD
renders it at every revision. A chart whose files changed while its version stayed would deploy
on Argo CD and not on Flux, so it is a build error, found against the version and file digest
the committed record (`fleetgen.inputs.record`) keeps of each in-repo chart."""

from __future__ import annotations

from fleetgen.errors import Problem, at
from fleetgen.inputs.load import Loaded
from fleetgen.inputs.record import ChartStamp
from fleetgen.model.fields import repo_path
from fleetgen.write.journal import RECORD


def chart_stamps(loaded: Loaded) -> tuple[dict[str, ChartStamp], list[Problem]]:
    """The stamp of each in-repo chart the spec uses, and a problem for each chart whose files
    changed since the recorded build while its version did not."""
    stamps: dict[str, ChartStamp] = {}
    problems: list[Problem] = []
    for app in loaded.fleet.apps:
        if app.chart is None or app.chart.path is None:
            continue
        path = repo_path(app.chart.path)
        chart = loaded.workspace.charts.get(path)
        if chart is None or chart.version is None or path in stamps:
            continue
        stamps[path] = ChartStamp(chart.version, chart.digest)
        before = loaded.record.charts.get(path)
        if before is not None and before.version == chart.version and before.digest != chart.digest:
            message = (
                f"app {app.name!r}: the chart at {path} changed since the last build but its "
                f"version is still {chart.version}: bump `version` in {path}/Chart.yaml (Flux "
                "upgrades a release when the chart version changes; Argo CD renders every "
                f"commit; the built versions are in {loaded.fleet.output_dir}/{RECORD})"
            )
            problems.append(at(app.chart, message, app))
    return stamps, problems
