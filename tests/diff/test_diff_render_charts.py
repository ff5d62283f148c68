"""``fleetgen diff --render`` renders chart apps at both refs (Helm's Go SDK in-process, the echo
test chart, real Git repositories): a values change or an edit of a chart kept in the repository
shows as changed rendered fields on the clusters it reaches; a chart from a repository renders
from ``--charts DIR`` or is counted as not rendered, never passed as unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

import fleetgen
from fleetgen.diffs import formats
from fleetgen.diffs.report import Report
from fleetgen.tools.kustomize import Kustomize
from tests.diff.test_diff import FLEET, SCHEMA, commit, edit, fleet_repo, run_cli
from tests.test_validate_charts import ECHO, chart_cache

LOCAL = 'HelmChart(path="charts/echo")'
REMOTE = 'HelmChart(repo="https://charts.example.com", name="echo", version="0.3.0")'
ECHO_APP = """
        App(name="echo", project="shop", namespace="shop", chart=CHART,
            per_env={"prod": Overrides(values={"replicaCount": 2})}),
"""
CHART_FLEET = (
    FLEET.replace("Project, Selector, SyncPolicy)", "Project, Selector, SyncPolicy, HelmChart)")
    .replace("source_repos=[REPO]", 'source_repos=[REPO, "https://charts.example.com"]')
    .replace("    apps=[\n", "    apps=[" + ECHO_APP.replace("CHART", LOCAL), 1)
)
TEMPLATE = "charts/echo/templates/deployment.yaml"
PROD = ["prod-a", "prod-b", "prod-c"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A Git repository holding the fleet with the chart app ``echo`` (the echo chart kept in
    the repository under charts/echo), committed."""
    return fleet_repo(tmp_path / "fleet-repo", CHART_FLEET, {"charts/echo": ECHO})


def rendered(data: dict[str, Any], kind: str = "Deployment") -> list[dict[str, Any]]:
    return [c for c in data["changes"] if c["source"] == "rendered" and c["kind"] == kind]


def valid(report: Report) -> None:
    errors = [
        e.message
        for e in jsonschema_rs.validator_for(json.loads(SCHEMA.read_text())).iter_errors(
            json.loads(formats.to_json(report))
        )
    ]
    assert errors == []


def test_a_values_change_shows_as_a_changed_rendered_deployment_field(
    repo: Path, kustomize: Kustomize
) -> None:
    edit(repo / "fleet.py", '"replicaCount": 2', '"replicaCount": 3')
    assert rendered(fleetgen.diff(repo / "fleet.py").to_json()) == []  # not without --render
    report = fleetgen.diff(repo / "fleet.py", render=True)
    valid(report)
    (deployment,) = rendered(report.to_json())
    # The three prod placements share one render at each ref: one change reaching all three.
    assert (deployment["op"], deployment["name"], deployment["namespace"]) == (
        "changed",
        "echo",
        "shop",
    )
    assert (deployment["clusters"], deployment["app"], deployment["file"]) == (
        PROD,
        "echo",
        TEMPLATE,
    )
    assert deployment["fields"] == [{"path": "spec.replicas", "old": 2, "new": 3}]
    assert report.to_json()["not_rendered"] == {}
    text = formats.text(report)
    assert (
        f"@@ changed Deployment shop/echo (rendered): {TEMPLATE} @@\n"
        "    - spec.replicas: 2\n    + spec.replicas: 3\n" in text
    )
    # Renders go through the content-addressed cache under the head's output/.
    assert list((repo / "output/.fleetgen/cache/helm").rglob("*.bin"))


def test_an_edit_of_a_chart_in_the_repository_is_rendered_on_every_placement(
    repo: Path, kustomize: Kustomize
) -> None:
    edit(repo / "charts/echo/values.yaml", "memory: 128Mi", "memory: 256Mi")
    report = fleetgen.diff(repo / "fleet.py")
    assert not report.changed  # the generated files are the same, and the report says why
    assert (
        "the chart of echo (charts/echo) changed, which generated files do not show: run "
        "`fleetgen diff --render` to see what it deploys"
    ) in report.notes
    head = commit(repo, "chart")
    report = fleetgen.diff(repo / "fleet.py", base="HEAD~1", head=head, render=True)
    assert report.changed
    # dev and prod values differ: one render each, so one change per environment's clusters.
    changes = rendered(report.to_json())
    assert [c["clusters"] for c in changes] == [PROD, ["dev-1"]]
    assert all(
        c["fields"]
        == [
            {
                "path": "spec.template.spec.containers[name=echo].resources.limits.memory",
                "old": "128Mi",
                "new": "256Mi",
            }
        ]
        for c in changes
    )


def test_a_placement_added_at_head_renders_as_added_objects(
    repo: Path, kustomize: Kustomize
) -> None:
    edit(repo / "fleet.py", 'name="dev-1", env="dev"', 'name="dev-1", env="prod"')
    data = fleetgen.diff(repo / "fleet.py", render=True).to_json()
    ops = {(c["op"], tuple(c["clusters"])) for c in rendered(data)}
    # dev-1 leaves dev (replicaCount 1) for prod (2): its render changes, the others' do not.
    assert ops == {("changed", ("dev-1",))}


def test_a_chart_from_a_repository_renders_from_charts_or_is_counted_not_rendered(
    tmp_path: Path, repo: Path, kustomize: Kustomize
) -> None:
    edit(repo / "fleet.py", LOCAL, REMOTE)
    commit(repo, "remote chart")
    edit(repo / "fleet.py", '"replicaCount": 2', '"replicaCount": 3')
    report = fleetgen.diff(repo / "fleet.py", render=True)
    valid(report)
    label = (
        "chart echo 0.3.0: a chart from a repository; give a local chart cache with --charts DIR"
    )
    data = report.to_json()
    assert rendered(data) == [] and data["not_rendered"] == {label: 3}
    assert f"{label}; its rendered objects are not compared (3 placements)" in data["notes"]
    cache = chart_cache(tmp_path / "charts")
    data = fleetgen.diff(repo / "fleet.py", render=True, charts_dir=cache).to_json()
    (deployment,) = rendered(data)
    assert (deployment["clusters"], deployment["file"]) == (PROD, "echo-0.3.0.tgz")
    assert deployment["fields"] == [{"path": "spec.replicas", "old": 2, "new": 3}]
    assert data["not_rendered"] == {}


def test_charts_needs_render_and_a_directory(tmp_path: Path, repo: Path) -> None:
    for args, message in (
        (("--charts", str(tmp_path)), "only with --render"),
        (("--render", "--charts", str(tmp_path / "nowhere")), "not a directory"),
    ):
        result = run_cli(repo, *args)
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_a_chart_helm_cannot_render_at_a_ref_exits_2_naming_it(
    repo: Path, kustomize: Kustomize
) -> None:
    edit(
        repo / "charts/echo/templates/deployment.yaml",
        "{{ .Values.replicaCount }}",
        "{{ .Values.missing.replicaCount }}",
    )
    result = run_cli(repo, "--render")
    assert result.returncode == 2, result.stderr
    assert "helm could not render chart echo on dev-1 at worktree: " in result.stderr
    assert "Traceback" not in result.stderr


def test_a_release_name_change_renders_objects_under_the_new_name(
    repo: Path, kustomize: Kustomize
) -> None:
    edit(
        repo / "fleet.py",
        'HelmChart(path="charts/echo")',
        'HelmChart(path="charts/echo", release_name="web")',
    )
    report = fleetgen.diff(repo / "fleet.py", render=True)
    changes = {(c["op"], c["name"]) for c in rendered(report.to_json())}
    assert changes == {("removed", "echo"), ("added", "web")}


def test_a_post_render_change_of_a_flux_chart_app_is_rendered(
    repo: Path, kustomize: Kustomize
) -> None:
    """A chart app's images (a kustomize post-render on Flux) are part of its render inputs:
    a new image on prod-b (a Flux cluster) shows as the changed container image there only."""
    edit(
        repo / "fleet.py",
        'per_env={"prod": Overrides(values={"replicaCount": 2})}',
        'per_env={"prod": Overrides(values={"replicaCount": 2})},\n'
        '            per_cluster={"prod-b": Overrides(images=[Image(\n'
        '                name="registry.example.com/echo", tag="9.9")])}',
    )
    report = fleetgen.diff(repo / "fleet.py", render=True)
    valid(report)
    (deployment,) = rendered(report.to_json())
    assert (deployment["clusters"], deployment["name"]) == (["prod-b"], "echo")
    assert deployment["fields"] == [
        {
            "path": "spec.template.spec.containers[name=echo].image",
            "old": "registry.example.com/echo:1.0",
            "new": "registry.example.com/echo:9.9",
        }
    ]
