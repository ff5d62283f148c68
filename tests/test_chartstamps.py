"""A chart kept in the repository upgrades only when its version changes
(`fleetgen.settle.chartstamps`):
Flux rebuilds it on a Chart.yaml version change only (``reconcileStrategy: ChartVersion``;
source-controller ``buildFromTarballArtifact`` appends the commit to the version under
``Revision``, so every commit would upgrade it), while Argo CD renders the chart at every
revision. A chart edited without a version bump is therefore a build error against the version
and digest of its files in the committed record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import run_fleetgen, tree

ROOT = Path(__file__).resolve().parent.parent
CHART = "charts/status-page"


def example(tmp_path: Path) -> Path:
    """A copy of the example fleet with its committed output."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "fleet.py", repo / "fleet.py")
    for folder in ("apps", "charts", "output"):
        shutil.copytree(ROOT / folder, repo / folder, ignore=shutil.ignore_patterns("cache"))
    return repo


def stamp(repo: Path) -> dict[str, str]:
    charts: dict[str, dict[str, str]] = json.loads(
        (repo / "output/.fleetgen/record.json").read_text()
    )["charts"]
    return charts[CHART]


def test_a_chart_edited_without_a_version_bump_is_a_build_error(tmp_path: Path) -> None:
    repo = example(tmp_path)
    before = stamp(repo)
    assert before["version"] == "0.1.0"
    template = repo / CHART / "templates/configmap.yaml"
    template.write_text(template.read_text() + "# an edit\n")
    untouched = tree(repo / "output")
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    line = next(
        n
        for n, text in enumerate((repo / "fleet.py").read_text().splitlines(), 1)
        if 'HelmChart(path="charts/status-page")' in text
    )
    assert (
        f"fleet.py:{line}: app 'status-page': the chart at charts/status-page changed since the "
        "last build but its version is still 0.1.0: bump `version` in "
        "charts/status-page/Chart.yaml"
    ) in ran.stderr
    assert tree(repo / "output") == untouched
    assert run_fleetgen(repo, "build", "--check").returncode == 2

    chart_yaml = repo / CHART / "Chart.yaml"
    chart_yaml.write_text(chart_yaml.read_text().replace("version: 0.1.0", "version: 0.1.1"))
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 0, ran.stderr
    after = stamp(repo)
    assert after["version"] == "0.1.1" and after["digest"] != before["digest"]
    assert run_fleetgen(repo, "build", "--check").returncode == 0


def test_every_file_of_the_chart_counts(tmp_path: Path) -> None:
    """A file added under the chart's folder (Helm packages every file not in .helmignore)
    changes what the chart is, so it needs a version too."""
    repo = example(tmp_path)
    (repo / CHART / "templates/NOTES.txt").write_text("installed\n")
    assert "bump `version`" in run_fleetgen(repo, "build").stderr
