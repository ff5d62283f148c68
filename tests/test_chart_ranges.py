"""Chart version ranges end to end: the spec takes ranges and refuses partial versions at their
line, both engines get the range as their own field takes it (checked against the shipped CRD
schemas of the oldest and the newest release), ``build`` warns of an unwaived range, and
``validate`` reports it by the rule ``chart-range`` per environment (an error in production),
which a Waiver silences; versions and the fleet map show it; import writes what each engine reads.
Rendering ranges from a chart cache: `tests.test_chart_range_renders`; import's golden
repositories: ``tests/imports/*-chart-ranges``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fleetgen import App, HelmChart, Overrides, Policy, Waiver
from fleetgen.emit.flux.charts import oci_ref
from fleetgen.importer.draft import Engine
from fleetgen.importer.sources import chart_version
from tests.crd_schemas import errors
from tests.emit.test_argocd_appsets import applications
from tests.helpers import run_fleetgen
from tests.test_charts_engines import compile_apps, remote
from tests.test_validate import report, spec_line
from tests.test_validate_charts import chart_repo, echo_app

RANGE_CHART = 'HelmChart(repo="https://charts.example.com", name="echo", version=">=0.3.0")'


@pytest.mark.parametrize(
    ("chart", "extra", "message"),
    [
        (
            RANGE_CHART.replace(">=0.3.0", "1.2"),
            "",
            "HelmChart.version: chart version '1.2' is partial: Argo CD reads it as the exact "
            "tag '1.2', Flux as a range; write '1.2.x' or '~1.2'",
        ),
        (
            RANGE_CHART,
            ', per_env={"prod": Overrides(chart_version="v2")}',
            "Overrides.chart_version: chart version 'v2' is partial: Argo CD reads it as the "
            "exact tag 'v2', Flux as a range; write '2.x' or '^2'",
        ),
        (
            RANGE_CHART.replace(">=0.3.0", "latest"),
            "",
            "HelmChart.version: chart version 'latest' is neither an exact version such as "
            "'1.2.3' nor a range such as '>=1.0.0', '1.2.x', '~1.2', '^1.2' or '*' (as Argo CD "
            "and Flux read them: Masterminds semver)",
        ),
        (
            'HelmChart(path="charts/echo")',
            ', per_env={"prod": Overrides(chart_version="~0.3")}',
            "app 'echo': chart_version is for a chart from a repository; the chart at "
            "'charts/echo' is the one in this revision of the repository (its Chart.yaml's "
            "version, never a range)",
        ),
    ],
    ids=["partial", "partial-layer", "no-version", "in-repo-chart"],
)
def test_a_version_both_engines_read_alike_or_an_error_at_its_line(
    tmp_path: Path, chart: str, extra: str, message: str
) -> None:
    repo = chart_repo(tmp_path / "repo", echo_app(chart, extra))
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    assert ran.stderr.splitlines() == [
        f"fleet.py:{spec_line(repo, '# <- echo')}: {message}",
        "1 problem(s); nothing was written",
    ]
    assert not (repo / "output").exists()


def test_ranges_reach_each_engines_field_and_validate_on_the_oldest_and_newest_release() -> None:
    """Argo CD: the Helm source's ``targetRevision`` (the repo server resolves a range in
    ``newHelmClientResolveRevision``); Flux: the HelmRelease's ``chart.spec.version``, which
    helm-controller copies into its HelmChart (``buildHelmChartFromTemplate``) for
    source-controller's ``getChartVersion``, and for an OCI chart the OCIRepository's
    ``ref.semver`` (``getArtifactRef``: ``getTagBySemver``), never ``ref.tag``, which it would
    pull as a tag named ``~1.16``."""
    https = remote("https://charts.jetstack.io", name="certs-http")
    https = https.model_copy(update={"chart": _chart(https, ">=1.16.0 <2.0.0")})
    oci = remote(
        "oci://quay.io/jetstack/charts",
        per_env={"prod": Overrides(chart_version="~1.16")},
    )
    oci = oci.model_copy(update={"chart": _chart(oci, "1.x")})
    _, docs = compile_apps(https, oci)
    for objs in docs.values():
        for obj in objs:
            assert errors(obj) == [], (obj["kind"], obj["metadata"]["name"])
    apps = applications(docs)
    for generated in apps.values():
        for application in generated:
            assert errors(application) == [], application["metadata"]["name"]
    argo = {
        (app, env): {a["spec"]["source"]["targetRevision"] for a in generated}
        for (app, env), generated in apps.items()
    }
    assert argo == {
        ("certs-http", "dev"): {">=1.16.0 <2.0.0"},
        ("certs-http", "prod"): {">=1.16.0 <2.0.0"},
        ("certs", "dev"): {"1.x"},
        ("certs", "prod"): {"~1.16"},
    }
    flux = {
        (path.split("/")[2], obj["kind"], obj["metadata"]["name"]): obj.get("spec")
        for path, objs in docs.items()
        if path.startswith("flux/clusters/")
        for obj in objs
    }
    assert flux["dev-1", "HelmRelease", "certs-http"]["chart"]["spec"]["version"] == (
        ">=1.16.0 <2.0.0"
    )
    assert flux["dev-1", "OCIRepository", "certs"]["ref"] == {"semver": "1.x"}
    assert flux["prod-a", "OCIRepository", "certs"]["ref"] == {"semver": "~1.16"}


def _chart(app: App, version: str) -> HelmChart:
    assert app.chart is not None
    return app.chart.model_copy(update={"version": version})


def test_an_exact_oci_version_is_the_tag_helm_pushed_it_under() -> None:
    """Helm pushes ``1.2.3+build.1`` as the tag ``1.2.3_build.1`` (an OCI tag has no ``+``);
    source-controller pulls ``ref.tag`` as written (``getArtifactRef``)."""
    assert oci_ref("1.2.3+build.1", False) == {"tag": "1.2.3_build.1"}
    assert oci_ref("v1.16.2", False) == {"tag": "v1.16.2"}
    assert oci_ref(">=1.0.0", True) == {"semver": ">=1.0.0"}


def _range_repo(root: Path, extra: str = "", fleet_policy: str = "") -> Path:
    """The echo app from a repository at >=0.3.0 in dev and prod, ``extra`` App arguments."""
    repo = chart_repo(root, echo_app(RANGE_CHART, extra))
    if fleet_policy:
        spec = repo / "fleet.py"
        spec.write_text(spec.read_text().replace("    apps=[", f"    {fleet_policy},\n    apps=["))
    return repo


def _ranges(data: dict[str, Any]) -> list[tuple[str, tuple[str, ...], int]]:
    return sorted(
        (f["severity"], tuple(f["clusters"]), f["location"]["line"])
        for f in data["findings"]
        if f["rule"] == "chart-range"
    )


def test_validate_reports_a_range_per_environment_an_error_in_production(tmp_path: Path) -> None:
    repo = _range_repo(
        tmp_path / "repo", ', per_cluster={"prod-2": Overrides(chart_version="~0.3")}'
    )
    data = report(repo, code=1)
    line = spec_line(repo, "# <- echo")
    assert _ranges(data) == [
        ("error", ("prod-1",), line),
        ("error", ("prod-2",), line),
        ("warning", ("dev-1",), line),
    ]
    messages = {f["message"] for f in data["findings"] if "prod-2" in f["clusters"]}
    assert messages == {
        "chart version '~0.3' is a range: Argo CD and Flux each resolve it on their own at sync "
        "time, so what runs in prod is not pinned"
    }
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0
    assert built.stderr.splitlines() == [
        f"fleet.py:{line}: warning: app 'echo': chart version '>=0.3.0' is a range: Argo CD and "
        "Flux each resolve it on their own at sync time, so what runs is not pinned (validate's "
        "rule chart-range: warning in dev, error in prod); pin an exact version, or waive it: "
        "App(waivers=[Waiver(rule='chart-range', reason=...)])",
        f"fleet.py:{line}: warning: app 'echo': chart version '~0.3' is a range: Argo CD and "
        "Flux each resolve it on their own at sync time, so what runs is not pinned (validate's "
        "rule chart-range: error in prod); pin an exact version, or waive it: "
        "App(waivers=[Waiver(rule='chart-range', reason=...)])",
    ]


def test_a_waiver_silences_a_range_in_validate_and_build(tmp_path: Path) -> None:
    waiver = Waiver(rule="chart-range", reason="tracks the 0.x line on purpose")
    repo = _range_repo(tmp_path / "repo", f", waivers=[{waiver!r}]")
    data = report(repo, code=0)
    assert _ranges(data) == []
    assert [(w["rule"], w["silenced"], w["reason"]) for w in data["waived"]] == [
        ("chart-range", 2, "tracks the 0.x line on purpose")
    ]
    built = run_fleetgen(repo, "build")
    assert (built.returncode, built.stderr) == (0, "")


def test_a_policy_sets_the_range_rules_severity_per_environment(tmp_path: Path) -> None:
    policy = Policy(rules={"chart-range": "off"})
    repo = _range_repo(tmp_path / "repo", fleet_policy=f"policy={policy!r}")
    spec = repo / "fleet.py"
    spec.write_text(
        spec.read_text().replace(
            'Environment(name="prod")',
            'Environment(name="prod", policy=Policy(rules={"chart-range": "warning"}))',
        )
    )
    data = report(repo, code=0)
    line = spec_line(repo, "# <- echo")
    assert _ranges(data) == [("warning", ("prod-1", "prod-2"), line)]
    built = run_fleetgen(repo, "build")
    assert "(validate's rule chart-range: warning in prod)" in built.stderr
    assert built.stderr.count("\n") == 1


def test_a_range_with_build_metadata_on_an_oci_chart_warns(tmp_path: Path) -> None:
    chart = 'HelmChart(repo="oci://registry.example.com/charts", name="echo", version="~0.3.0+b")'
    waiver = Waiver(rule="chart-range", reason="follows 0.3")
    repo = chart_repo(tmp_path / "repo", echo_app(chart, f", waivers=[{waiver!r}]"))
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0
    assert built.stderr.splitlines() == [
        f"fleet.py:{spec_line(repo, '# <- echo')}: warning: app 'echo': chart version range "
        "'~0.3.0+b' names build metadata, which semver ignores when comparing: OCI tags that "
        "differ only in it ('1.2.3_a', '1.2.3_b') are one version to both engines, and Argo CD "
        "and Flux may each pick another; drop the build metadata, and give releases versions "
        "that differ before it"
    ]


def test_versions_and_the_fleet_map_show_a_range_as_written_and_say_what_it_means(
    tmp_path: Path,
) -> None:
    waiver = Waiver(rule="chart-range", reason="follows 0.x")
    repo = _range_repo(
        tmp_path / "repo",
        f', per_env={{"prod": Overrides(chart_version="0.3.0 || ~0.4")}}, waivers=[{waiver!r}]',
    )
    text = run_fleetgen(repo, "versions").stdout.splitlines()
    assert text[1].split() == [
        *("echo", "chart", "echo"),
        *(">=0.3.0", "(range)"),
        *("0.3.0", "||", "~0.4", "(range)", "*"),
    ]
    assert text[-1].endswith(
        "`(range)`: a chart version range, which Argo CD and Flux each resolve on their own at "
        "sync time to the highest chart version it allows: what runs is not pinned, and the "
        "engines may run different versions while a release reaches them."
    )
    document = json.loads(run_fleetgen(repo, "versions", "--format", "json").stdout)
    (row,) = document["rows"]
    assert [(v["version"], v["range"]) for c in row["environments"] for v in c["versions"]] == [
        (">=0.3.0", True),
        ("0.3.0 || ~0.4", True),
    ]
    assert run_fleetgen(repo, "build").returncode == 0
    fleet_map = (repo / "output/README.md").read_text()
    assert (
        "| echo | echo from https://charts.example.com | >=0.3.0 (range) | 0.3.0 \\|\\| ~0.4 "
        "(range) |"
    ) in fleet_map
    assert "A version marked `(range)` is a range: Argo CD and Flux each resolve it" in fleet_map
    assert fleet_map.count("`(range)`: a chart version range") == 1  # the versions legend


def test_the_fleet_map_says_nothing_of_ranges_without_one(tmp_path: Path) -> None:
    repo = _range_repo(tmp_path / "repo").joinpath("fleet.py")
    repo.write_text(repo.read_text().replace(">=0.3.0", "0.3.0"))
    assert run_fleetgen(repo.parent, "build").returncode == 0
    assert "range" not in (repo.parent / "output/README.md").read_text()
    assert "range" not in run_fleetgen(repo.parent, "versions").stdout


@pytest.mark.parametrize(
    ("version", "engine", "written", "ranged"),
    [
        ("v1.16.2", "argocd", "v1.16.2", False),
        (">=1.0.0 <2.0.0", "argocd", ">=1.0.0 <2.0.0", True),
        ("*", "flux", "*", True),
        ("7.4", "flux", "7.4.x", True),  # getChartVersion: no exact match, then NewConstraint
        ("v6", "flux", "6.x", True),
        ("7.4", "argocd", None, False),  # versions.IsVersion: Argo CD asks for the tag "7.4"
        ("01.2.3", "flux", None, False),
        ("latest", "flux", None, False),
    ],
)
def test_import_writes_a_chart_version_as_its_engine_reads_it(
    version: str, engine: Engine, written: str | None, ranged: bool
) -> None:
    found = chart_version(version, engine)
    said = ranged or written is None
    assert (found.written, found.range, bool(found.what)) == (written, ranged, said)
