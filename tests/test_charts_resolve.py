"""Chart apps in the spec and the Plan: sources, Helm-style values layering, chart versions."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from fleetgen import App, HelmChart, Image, Overrides
from fleetgen.errors import SpecError
from fleetgen.inputs.workspace import ChartDir, Workspace
from fleetgen.resolver import resolve
from fleetgen.resolver.values import merge_values
from tests.test_resolve import BASE, make_fleet

CHART_DIR = ChartDir(path="charts/hello", name="hello", version="0.3.0")
WORKSPACE = Workspace({BASE.path: BASE}, {CHART_DIR.path: CHART_DIR})
REPO_CHART = HelmChart(repo="https://charts.example.com", name="hello", version="1.2.3")


def chart_app(**fields: Any) -> App:
    return App(
        **({"name": "hello", "project": "web", "namespace": "web", "chart": REPO_CHART} | fields)
    )


def problems(app: App) -> list[str]:
    with pytest.raises(SpecError) as caught:
        resolve(make_fleet([app]), WORKSPACE)
    return [p.message for p in caught.value.problems]


def test_values_merge_like_chained_helm_values_files() -> None:
    # Helm's pkg/cli/values mergeMaps: maps merge key by key, anything else is replaced; a null
    # stays in the merged user values, and chartutil.CoalesceValues then deletes that key from
    # the chart's defaults.
    provenance: dict[str, str] = {}
    merged = merge_values({}, {"a": {"b": 1, "c": [1, 2]}, "d": "x"}, "app", provenance)
    merged = merge_values(merged, {"a": {"c": [3]}, "d": {"e": None}}, "per_env", provenance)
    merged = merge_values(merged, {"a": {"b": None}}, "per_cluster", provenance)
    assert merged == {"a": {"b": None, "c": [3]}, "d": {"e": None}}
    assert provenance == {
        "values/a.b": "per_cluster",
        "values/a.c": "per_env",
        "values/d.e": "per_env",
    }


def test_a_scalar_replacing_a_map_forgets_the_map_leaves() -> None:
    provenance: dict[str, str] = {}
    merged = merge_values({}, {"a": {"b": 1, "x.y": 2}}, "app", provenance)
    assert provenance == {"values/a.b": "app", 'values/a["x.y"]': "app"}
    merged = merge_values(merged, {"a": "flat"}, "per_env", provenance)
    assert merged == {"a": "flat"} and provenance == {"values/a": "per_env"}


def test_placements_carry_chart_version_and_layered_values() -> None:
    app = chart_app(
        values={"replicas": 1, "image": {"tag": "a"}},
        per_env={"prod": Overrides(values={"replicas": 3}, chart_version="1.3.0")},
        per_cluster={"prod-b": Overrides(values={"image": {"tag": None}})},
    )
    plan = resolve(make_fleet([app]), WORKSPACE)
    by_cluster = {p.cluster: p for p in plan.placements}
    assert plan.env_overlays == () and plan.cluster_overlays == ()
    assert by_cluster["dev-1"].chart is not None and by_cluster["dev-1"].chart.version == "1.2.3"
    prod_b = by_cluster["prod-b"]
    assert prod_b.chart is not None and prod_b.chart.version == "1.3.0"
    assert prod_b.settings.values == {"replicas": 3, "image": {"tag": None}}
    assert prod_b.settings.provenance["chart/version"] == "per_env"
    assert prod_b.settings.provenance["values/image.tag"] == "per_cluster"


def test_a_chart_in_the_repository_takes_name_and_version_from_chart_yaml() -> None:
    plan = resolve(make_fleet([chart_app(chart=HelmChart(path="charts/hello"))]), WORKSPACE)
    chart = plan.placements[0].chart
    assert chart is not None and (chart.name, chart.version, chart.path, chart.repo) == (
        "hello",
        "0.3.0",
        "charts/hello",
        None,
    )


def test_fleet_and_env_common_labels_are_not_applied_to_chart_apps() -> None:
    fleet = make_fleet([chart_app()], common_labels={"team": "web"})
    assert all(not p.settings.labels for p in resolve(fleet, WORKSPACE).placements)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"path": "apps/web/base"}, "exactly one of path= "),
        ({"chart": None}, "this one has none of them"),
    ],
)
def test_an_app_has_exactly_one_source(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=message):
        chart_app(**fields)


@pytest.mark.parametrize(
    "repo",
    ["http://charts.example.com", "charts.example.com", "https://user:pw@charts.example.com"],
)
def test_chart_repositories_are_https_or_oci_without_credentials(repo: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        HelmChart(repo=repo, name="x", version="1.0.0")


def test_values_must_be_helm_values() -> None:
    with pytest.raises(pydantic.ValidationError, match=r"values\.a\[1\]: a set is not"):
        chart_app(values={"a": [1, {2}]})
    with pytest.raises(pydantic.ValidationError, match="cannot be written"):
        chart_app(values={"a": float("nan")})


def test_kustomize_settings_on_a_chart_app_point_at_values() -> None:
    """Images and patches post-render a chart app (`tests.test_charts_engines`); replicas,
    config and common metadata are the chart's values."""
    found = problems(
        chart_app(
            images=[Image(name="x", tag="1")],
            per_env={"prod": Overrides(replicas={"web": 2}, config={"cm": {"k": "v"}})},
        )
    )
    assert sorted(found) == [
        "app 'hello': config is for kustomize bases; a chart app sets this through "
        "values={...} (the chart's values)",
        "app 'hello': replicas is for kustomize bases; a chart app sets this through "
        "values={...} (the chart's values)",
    ]


def test_values_on_a_kustomize_app_are_refused() -> None:
    from tests.test_resolve import web

    found = problems(web(values={"a": 1}))
    assert found == [
        "app 'web': values apply to chart apps (App(chart=HelmChart(...))); a "
        "kustomize base takes images, replicas, config and patches"
    ]


def test_a_missing_local_chart_is_reported() -> None:
    assert problems(chart_app(chart=HelmChart(path="charts/nope"))) == [
        "app 'hello': chart path 'charts/nope' has no Chart.yaml (create the chart there or "
        "fix the path)"
    ]


def test_a_token_inside_values_is_refused() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    found = problems(chart_app(values={"git": {"auth": [token]}}))
    assert len(found) == 1 and token not in found[0] and "GitHub" in found[0]


def test_common_metadata_that_skips_chart_apps_is_said_once_in_the_fleet_map() -> None:
    """Not a warning on every build: the fleet's common labels cannot reach a chart app (no
    overlay), which nothing in fleet.py but the chart's values changes."""
    from fleetgen.emit import fleetmap, overlays

    for labels, said in (({"team": "web"}, True), ({}, False)):
        plan = resolve(make_fleet([chart_app()], common_labels=labels), WORKSPACE)
        assert overlays.warnings(plan) == []
        (readme,) = fleetmap.emit(plan)
        assert readme.text is not None
        assert ("`common_labels`/`common_annotations` do not reach them" in readme.text) is said
