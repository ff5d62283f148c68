"""``validate --render`` of a chart version range: of the chart's archives in the ``--charts``
cache, the highest version the range allows is rendered (as both engines pick one from a
repository: Argo CD's ``versions.MaxVersion``, Flux's ``getChartVersion``), and the report says
which; with none allowed, the placements are counted as not rendered, with the versions found.
The archives are packaged by Helm from a chart folder written here, one per version."""

from __future__ import annotations

from pathlib import Path

import helm_python
import pytest

from fleetgen.tools.kustomize import Kustomize
from tests.helpers import run_fleetgen
from tests.test_validate import report
from tests.test_validate_charts import chart_repo, echo_app

# A Service named after the chart version it was packaged as, of a type the service-type rule
# flags: its finding names the version that was rendered.
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Version | replace "." "-" | replace "+" "-" }}
  namespace: {{ .Release.Namespace }}
spec:
  type: LoadBalancer
  ports:
    - port: 80
"""
CACHED = ("0.2.0", "0.3.0", "0.3.5", "0.4.0-rc.1", "1.0.0", "1.0.0+b")


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """A chart cache (as ``helm pull`` leaves it) holding the chart ``ranged`` at each of
    `CACHED`, and an unrelated chart whose name starts the same."""
    folder = tmp_path / "src" / "ranged"
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text("apiVersion: v2\nname: ranged\nversion: 0.0.1\n")
    (folder / "templates" / "service.yaml").write_text(SERVICE)
    directory = tmp_path / "charts"
    for version in CACHED:
        helm_python.package(folder, destination=directory, version=version)
    other = tmp_path / "src" / "ranged-extra"
    (other / "templates").mkdir(parents=True)
    (other / "Chart.yaml").write_text("apiVersion: v2\nname: ranged-extra\nversion: 9.0.0\n")
    helm_python.package(other, destination=directory)
    return directory


def _repo(root: Path, version: str) -> Path:
    chart = f'HelmChart(repo="https://charts.example.com", name="ranged", version="{version}")'
    return chart_repo(root, echo_app(chart))


def _rendered(data: dict[str, object]) -> set[str]:
    findings = data["findings"]
    assert isinstance(findings, list)
    return {f["object"] for f in findings if f["rule"] == "service-type"}


@pytest.mark.parametrize(
    ("version", "picked"),
    [
        ("~0.3", "0.3.5"),
        (">=0.3.0 <1.0.0", "0.3.5"),  # 0.4.0-rc.1: a pre-release, which the range does not name
        (">=0.4.0-0 <1.0.0", "0.4.0-rc.1"),
        ("*", "1.0.0+b"),  # 1.0.0 and 1.0.0+b are one version to semver; a fixed pick
        ("0.2.x || 0.3.0", "0.3.0"),
    ],
)
def test_a_range_renders_the_highest_cached_version_it_allows(
    tmp_path: Path, cache: Path, kustomize: Kustomize, version: str, picked: str
) -> None:
    repo = _repo(tmp_path / "repo", version)
    data = report(repo, "--render", "--charts", str(cache))
    charts = data["summary"]["charts"]
    assert (charts["ranges"], charts["not_rendered"]) == (
        {f"chart ranged {version}": picked},
        {},
    )
    name = picked.replace(".", "-").replace("+", "-")
    assert _rendered(data) == {f"Service shared/echo-{name}"}
    text = run_fleetgen(repo, "validate", "--render", "--charts", str(cache)).stdout
    assert (
        f"rendered chart ranged {version} as {picked}: the highest version in --charts it "
        "allows (Argo CD and Flux each resolve the range on their own)"
    ) in text.splitlines()


def test_a_range_no_cached_version_allows_is_not_rendered(
    tmp_path: Path, cache: Path, kustomize: Kustomize
) -> None:
    repo = _repo(tmp_path / "repo", "^2")
    data = report(repo, "--render", "--charts", str(cache))
    assert data["summary"]["charts"]["not_rendered"] == {
        f"chart ranged ^2: no archive in {cache} satisfies the range (versions of ranged "
        "there: 0.2.0, 0.3.0, 0.3.5, 0.4.0-rc.1, 1.0.0, 1.0.0+b)": 3
    }
    assert _rendered(data) == set()


def test_the_archive_a_range_picks_must_hold_that_version(
    tmp_path: Path, cache: Path, kustomize: Kustomize
) -> None:
    (cache / "ranged-0.3.5.tgz").rename(cache / "ranged-0.9.0.tgz")
    repo = _repo(tmp_path / "repo", "~0")
    data = report(repo, "--render", "--charts", str(cache))
    assert data["summary"]["charts"]["not_rendered"] == {
        f"chart ranged ~0: {cache / 'ranged-0.9.0.tgz'} holds chart ranged 0.3.5": 3
    }
