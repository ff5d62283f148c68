"""Flux timing per layer and ``per_label`` overrides (issue #15 items 3 and 9), on the golden
cases ``tests/cases/timing`` and ``tests/cases/per-label``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen.errors import SpecError
from fleetgen.pipeline import api
from tests.crd_schemas import errors
from tests.helpers import case_copy

CASES = Path(__file__).parent / "cases"


def case_repo(tmp_path: Path, case: str, *edits: tuple[str, str]) -> Path:
    """A copy of the case, its fleet.py edited by (old, new) replacements."""
    return case_copy(CASES / case, tmp_path / case, *edits)


def line_of(repo: Path, text: str) -> int:
    lines = (repo / "fleet.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def flux_objects(repo: Path, cluster: str) -> dict[str, dict[str, Any]]:
    path = repo / "output" / "flux" / "clusters" / cluster / "kustomizations.yaml"
    return {
        f"{d['kind']}/{d['metadata']['name']}": d for d in yaml.safe_load_all(path.read_text()) if d
    }


# --- 3. Timing ----------------------------------------------------------------------------


def test_flux_timing_is_layered_per_placement(tmp_path: Path) -> None:
    """kustomize-controller reconciles every ``spec.interval``, gives an apply
    ``spec.timeout`` (api/v1 ``Kustomization.GetTimeout``: max(interval - 30s, 30s) when unset,
    which would fail dev's health check of any rollout slower than 30 seconds, so a waiting
    Kustomization always gets one: 10m unless the policy sets it), retries a failure after
    ``retryInterval`` (``GetRetryInterval``: the interval when unset) and with ``wait`` waits for
    health."""
    repo = case_repo(tmp_path, "timing")
    api.build(repo / "fleet.py")
    dev = flux_objects(repo, "dev-1")["Kustomization/web"]["spec"]
    assert (dev["interval"], dev["timeout"], dev["retryInterval"], dev["wait"]) == (
        "1m",
        "10m",
        "3m",
        True,
    )
    prod = flux_objects(repo, "prod-a")["Kustomization/web"]["spec"]
    assert (prod["interval"], prod["timeout"], prod["retryInterval"], prod["wait"]) == (
        "30m",
        "5m",
        "2m",
        False,
    )
    assert errors(flux_objects(repo, "prod-a")["Kustomization/web"]) == []


def test_timing_reaching_argo_cd_is_one_located_warning_per_layer(tmp_path: Path) -> None:
    repo = case_repo(tmp_path, "timing")
    result = api.build(repo / "fleet.py")
    found = sorted((w.line, w.message.split(":")[0]) for w in result.warnings)
    assert found == sorted(
        [
            (line_of(repo, 'sync=SyncPolicy(interval="30m"'), "interval"),
            (line_of(repo, 'retry_interval="2m"'), "retry_interval, wait"),
            (line_of(repo, 'timeout="10m"'), "timeout"),
        ]
    )


def test_a_chart_app_takes_interval_timeout_and_wait(tmp_path: Path) -> None:
    """helm-controller: ``spec.timeout`` bounds each Helm action, ``install``/``upgrade``
    ``disableWait`` skips waiting for resources; a HelmRelease has no retryInterval (it retries
    by its remediation), which is a warning."""
    chart = (
        '        App(name="echo", project="web", namespace="web", engine="flux",\n'
        '            chart=HelmChart(repo="https://charts.example.com", name="echo",\n'
        '                            version="1.0.0"),\n'
        '            sync=SyncPolicy(timeout="15m", wait=False, '
        'retry_interval="1m")),  # <- echo\n'
    )
    repo = case_repo(
        tmp_path,
        "timing",
        ("    apps=[\n", "    apps=[\n" + chart),
        ("    Fleet,\n", "    Fleet,\n    HelmChart,\n"),
    )
    result = api.build(repo / "fleet.py")
    release = flux_objects(repo, "prod-a")["HelmRelease/echo"]
    spec = release["spec"]
    assert (spec["interval"], spec["timeout"]) == ("30m", "15m")
    assert spec["install"]["disableWait"] is True and spec["upgrade"]["disableWait"] is True
    assert errors(release) == []
    assert any(
        w.line == line_of(repo, "# <- echo")
        and w.message.startswith(
            "retry_interval does not apply to the Flux placements of chart app(s) echo"
        )
        for w in result.warnings
    )


# --- 9. per_label -------------------------------------------------------------------------


def test_per_label_layers_only_reach_the_clusters_with_the_label(tmp_path: Path) -> None:
    repo = case_repo(tmp_path, "per-label")
    api.build(repo / "fleet.py")
    plan = api.compile_spec(repo / "fleet.py").plan
    overlays = {o.cluster: [name for name, _ in o.layers] for o in plan.cluster_overlays}
    assert overlays == {
        "east-1": ["per_label[region=east]"],
        "east-2": ["per_label[region=east]", "per_label[tier=gpu]", "per_cluster"],
    }
    placements = {p.cluster: p for p in plan.placements}
    assert placements["west-1"].overlay == "overlays/web/prod"
    assert placements["east-1"].settings.sync.prune is True  # Flux: prune from region=east
    assert flux_objects(repo, "east-1")["Kustomization/web"]["spec"]["prune"] is True


def test_a_per_label_key_that_matches_no_cluster_is_refused(tmp_path: Path) -> None:
    repo = case_repo(tmp_path, "per-label", ('"tier=gpu": Overrides(', '"tier=gpo": Overrides('))
    with pytest.raises(SpecError) as raised:
        api.build(repo / "fleet.py")
    assert [(p.line, p.message) for p in raised.value.problems] == [
        (
            line_of(repo, '"tier=gpo"'),
            "app 'web': per_label key 'tier=gpo' matches no cluster the app runs on",
        )
    ]
    assert not (repo / "output").exists()
