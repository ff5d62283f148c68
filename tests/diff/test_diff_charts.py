"""``fleetgen diff`` for chart apps, on a real temporary Git repository: a chart version change is
one line per environment, values changes are value paths per placement (never a YAML blob), and
removing or moving a Flux chart app says what helm-controller's uninstall does."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema_rs
import pytest

import fleetgen
from fleetgen.diffs import formats
from tests.diff.test_diff import FLEET, PROD_B_FLUX, SCHEMA, commit, edit, fleet_repo

CHART = 'HelmChart(repo="https://charts.example.com", name="cert-manager", version="v1.16.2")'
CERTS = f"""
        App(name="certs", project="shop", namespace="shop", chart={CHART},
            values={{"crds": {{"enabled": True}}}},
            per_env={{"prod": Overrides(values={{"replicaCount": 2}})}},
            per_cluster={{"prod-b": Overrides(values={{"webhook": {{"timeoutSeconds": 10}},
                                                      "startupapicheck": None}})}}),
"""
CHART_FLEET = (
    FLEET.replace("Project, Selector, SyncPolicy)", "Project, Selector, SyncPolicy, HelmChart)")
    .replace("source_repos=[REPO]", 'source_repos=[REPO, "https://charts.example.com"]')
    .replace("    apps=[\n", "    apps=[" + CERTS, 1)
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A Git repository holding the fleet with the chart app ``certs``, committed."""
    return fleet_repo(tmp_path / "fleet-repo", CHART_FLEET)


def test_a_version_bump_is_one_line_per_environment_and_values_are_value_paths(repo: Path) -> None:
    edit(repo / "fleet.py", 'version="v1.16.2"', 'version="v1.17.1"')
    edit(repo / "fleet.py", '"replicaCount": 2', '"replicaCount": 3')
    edit(repo / "fleet.py", '"timeoutSeconds": 10', '"timeoutSeconds": 30')
    report = fleetgen.diff(repo / "fleet.py")
    text = formats.text(report)
    charts = text.split("# charts:\n", 1)[1].split("\n#", 1)[0].splitlines()
    assert charts == [
        "  ~ chart certs v1.16.2 → v1.17.1 in prod (3 clusters: prod-a, prod-b, prod-c)",
        "  ~ values of certs in prod (3 clusters: prod-a, prod-b, prod-c): replicaCount 2 → 3",
        "  ~ values of certs in prod (1 cluster: prod-b): webhook.timeoutSeconds 10 → 30",
        "  ~ chart certs v1.16.2 → v1.17.1 in dev (1 cluster: dev-1)",
    ]
    # prod-b's values hold a null, so they travel as text (a Flux ConfigMap, under a key named
    # after the text's hash): its field lines point at the value paths instead of printing the
    # YAML document twice.
    document = r'data\["values-[0-9a-f]{16}\.yaml"\]: values document \(text\); by value path'
    assert re.search(rf"\n    - {document}.*\n    \+ {document}", text), text
    assert "timeoutSeconds: 30" not in text
    data = report.to_json()
    assert data["charts"]["versions"][0] == {
        "app": "certs",
        "env": "prod",
        "clusters": ["prod-a", "prod-b", "prod-c"],
        "production": True,
        "old": "v1.16.2",
        "new": "v1.17.1",
    }
    assert {
        "app": "certs",
        "env": "prod",
        "clusters": ["prod-b"],
        "production": True,
        "path": "webhook.timeoutSeconds",
        "old": 10,
        "new": 30,
        "old_set": True,
        "new_set": True,
    } in data["charts"]["values"]
    errors = [
        e.message
        for e in jsonschema_rs.validator_for(json.loads(SCHEMA.read_text())).iter_errors(
            json.loads(formats.to_json(report))
        )
    ]
    assert errors == []
    markdown = formats.markdown(report)
    assert "#### Charts (4)" in markdown
    assert "~ chart certs v1.16.2 → v1.17.1 in dev (1 cluster: dev-1)" in markdown


def test_a_value_set_unset_or_removed_by_none_reads_as_such(repo: Path) -> None:
    edit(repo / "fleet.py", '"startupapicheck": None', '"startupapicheck": None, "x.y": "1"')
    edit(repo / "fleet.py", 'values={"crds": {"enabled": True}}', "values={}")
    report = fleetgen.diff(repo / "fleet.py")
    lines = [
        f"~ {line}"
        for line in (
            formats.text(report)
            .split("# charts:\n", 1)[1]
            .split("\n#", 1)[0]
            .replace("  ~ ", "")
            .splitlines()
        )
    ]
    assert lines == [
        "~ values of certs in prod (3 clusters: prod-a, prod-b, prod-c): crds.enabled true → "
        "(unset)",
        '~ values of certs in prod (1 cluster: prod-b): ["x.y"] (unset) → 1',
        "~ values of certs in dev (1 cluster: dev-1): crds.enabled true → (unset)",
    ]


@pytest.mark.parametrize("cascade", [False, True])
def test_removing_a_flux_chart_app_says_what_the_uninstall_does(repo: Path, cascade: bool) -> None:
    """helm-controller uninstalls the release of a deleted HelmRelease (its docs: "removal of a
    HelmRelease resource" → Helm uninstall); Helm's uninstall leaves objects annotated
    ``helm.sh/resource-policy: keep`` (Helm docs, "Tell Helm Not To Uninstall a Resource") and
    never deletes the CRDs of a chart's ``crds/`` (Helm docs, "Custom Resource Definitions":
    they are no part of the release)."""
    if cascade:
        edit(
            repo / "fleet.py",
            'engines=["argocd", "flux"],',
            'engines=["argocd", "flux"], cascade_delete=True,',
        )
        commit(repo, "cascade")
    edit(repo / "fleet.py", "chart=HelmChart(", 'targets=Selector(envs=["prod"]), chart=HelmChart(')
    report = fleetgen.diff(repo / "fleet.py")
    (deletion,) = (d for d in report.deletions if d.change.obj.key.kind == "HelmRelease")
    assert (deletion.engine, deletion.workloads) == ("flux", "deleted" if cascade else "orphaned")
    (note,) = (n for n in report.notes if n.startswith("Flux chart app certs"))
    assert note.startswith(
        "Flux chart app certs leaves dev-1: helm-controller uninstalls release certs, "
    )
    assert ("deleting every object the release installed" in note) == cascade
    assert ("helm.sh/resource-policy: keep" in note) == (not cascade)
    assert "note: Flux chart app certs leaves dev-1" in formats.text(report)


def test_moving_a_flux_chart_app_to_argocd_is_flagged(repo: Path) -> None:
    edit(repo / "fleet.py", PROD_B_FLUX, PROD_B_FLUX.replace("flux", "argocd"))
    report = fleetgen.diff(repo / "fleet.py")
    (move,) = (m for m in report.moved if m.app == "certs")
    assert (move.cluster, move.old, move.new, move.workloads) == (
        "prod-b",
        "flux",
        "argocd",
        "orphaned",
    )
    assert any(
        n.startswith(
            "Flux chart app certs leaves prod-b: helm-controller uninstalls "
            "release certs, Helm leaves the objects annotated "
            "helm.sh/resource-policy: keep"
        )
        for n in report.notes
    )
    assert not report.bumps and not report.values  # same chart and values, other engine
