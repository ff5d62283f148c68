"""HelmChart(values_files=...) and Overrides(values_files=...): Helm values files kept in the fleet
repository (the golden case ``tests/cases/values-files``; ``tests/bad_inputs/values-file-*`` the
refused ones).

A placement's values are what ``helm -f`` would make of the files chained in this order: the
chart's values.yaml, HelmChart.values_files, each layer's values_files (per_env, per_label,
per_cluster), then every values= layer. Helm's CLI chains -f files with ``mergeMaps``
(pkg/cli/values/options.go: maps merge key by key, anything else replaces) and coalesces the
result with the chart's defaults at render (pkg/chart/util/coalesce.go: a null deletes the key,
the default included); fleetgen makes one document with `fleetgen.resolver.values.merge_values`,
which both engines pass inline (Argo CD ``valuesObject``/``values``, Flux ``spec.values`` or,
holding a null, a generated ConfigMap it reads through ``valuesFrom``), never as Flux
``valuesFiles``.
The renders below go through Helm's Go SDK.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen.errors import SpecError
from fleetgen.inputs.load import load
from fleetgen.pipeline import api
from fleetgen.pipeline.incremental import inputs
from tests.emit.test_argocd_appsets import applications
from tests.helpers import case_copy, run_fleetgen
from tests.test_charts_engines import argo_values, flux_releases

pytest.importorskip("helm_python")
from fleetgen.tools.helm import render_chart

CASE = Path(__file__).parent / "cases" / "values-files"
IMAGE = {"repository": "registry.example.com/echo", "tag": "2.0", "pullPolicy": "Always"}
# The chart's defaults, common.yaml, then values=: pullPolicy (app) over them all.
STAGING = {
    "replicaCount": 1,
    "image": IMAGE,
    "resources": {"limits": {"memory": "128Mi", "cpu": "1"}},
    "tolerations": [{"key": "shared", "operator": "Exists"}],
}
# ... prod.yaml replaces the tolerations (a list) and sets replicaCount; prod's values= null
# deletes the chart's memory limit.
PROD = {
    **STAGING,
    "replicaCount": 3,
    "resources": {"limits": {"cpu": "1"}},
    "tolerations": [{"key": "prod", "operator": "Exists"}],
}
EXPECTED = {
    "staging-1": STAGING,
    # east.yaml (region=east) after prod.yaml: another repository, the tag kept
    "prod-a": {**PROD, "image": {**IMAGE, "repository": "east.registry.example.com/echo"}},
    # prod-b's per_cluster values= over every file
    "prod-b": {**PROD, "replicaCount": 5},
}


def _documents(compiled: api.Compiled) -> dict[str, list[Any]]:
    return {
        path: [d for d in yaml.safe_load_all(data) if d]
        for path, data in compiled.rendered.items()
        if path.endswith(".yaml")
    }


def _rendered(chart: Path, values: dict[str, Any]) -> Any:
    (configmap,) = (
        d for d in render_chart(chart, values, "echo", "web") if d["kind"] == "ConfigMap"
    )
    return yaml.safe_load(configmap["data"]["values.json"])


def test_both_engines_give_helm_the_files_chained_then_the_values(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    compiled = api.compile_spec(repo / "fleet.py")
    docs = _documents(compiled)
    servers = {c.server.rstrip("/"): c.name for c in compiled.plan.fleet.clusters}
    given = {
        servers[a["spec"]["destination"]["server"]]: argo_values(a)
        for (app, _), apps in applications(docs).items()
        if app == "echo"
        for a in apps
    }
    releases = flux_releases(docs)
    assert set(given) == {"staging-1", "prod-b"} and set(releases) == {"prod-a"}
    given |= {cluster: values for cluster, (_, values) in releases.items()}
    chart = repo / "charts/echo"
    assert {cluster: _rendered(chart, values) for cluster, values in given.items()} == EXPECTED
    (release, _) = releases["prod-a"]
    assert "valuesFiles" not in release["spec"]["chart"]["spec"]  # inline, never valuesFiles


def test_explain_names_the_file_and_the_layer_of_each_value(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    ran = run_fleetgen(repo, "explain", "echo", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    (app,) = yaml.safe_load(ran.stdout)["apps"]
    prod_a = next(p for p in app["placements"] if p["cluster"] == "prod-a")
    layers = {v["key"]: (v["layer"], v["value"]) for v in prod_a["values"]}
    assert [layers[f"values_file/{i}"] for i in range(3)] == [
        ("chart", "values/common.yaml"),
        ("per_env", "values/prod.yaml"),
        ("per_label[region=east]", "values/east.yaml"),
    ]
    assert layers["values/image.tag"] == ("chart file values/common.yaml", "2.0")
    assert layers["values/replicaCount"] == ("per_env file values/prod.yaml", 3)
    assert layers["values/image.repository"][0] == "per_label[region=east] file values/east.yaml"
    assert layers["values/image.pullPolicy"] == ("app", "Always")


def test_an_edited_values_file_is_an_input_of_the_build(tmp_path: Path) -> None:
    """A values file is inventoried by its values: editing it changes the compile's inputs, so
    ``build --check`` finds the output stale and the next build rewrites the release."""
    repo = case_copy(CASE, tmp_path / "repo")
    assert run_fleetgen(repo, "build").returncode == 0
    before = inputs(load(repo / "fleet.py"))
    prod = repo / "values/prod.yaml"
    prod.write_text(prod.read_text().replace("replicaCount: 3", "replicaCount: 4"))
    after = inputs(load(repo / "fleet.py"))
    assert before is not None and after is not None
    changed = {name for name, digest in after.digests.items() if before.digests[name] != digest}
    assert changed == {"values:values/prod.yaml"}
    assert run_fleetgen(repo, "build", "--check").returncode == 1
    assert run_fleetgen(repo, "build").returncode == 0
    flux = (repo / "output/flux/clusters/prod-a/kustomizations.yaml").read_text()
    assert "replicaCount: 4" in flux


def test_a_secret_in_a_values_file_is_refused_like_one_in_values(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    token = "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyzAB"
    (repo / "values/east.yaml").write_text(f"image:\n  repository: east\nauth:\n  token: {token}\n")
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    (problem,) = raised.value.problems
    assert (Path(problem.file).name, problem.line) == ("east.yaml", 4)
    assert problem.message.startswith("app 'echo': auth/token: <42 characters> looks like a GitHub")
    assert "Waiver" not in problem.message and token not in problem.message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- a\n- b\n", "values file 'values/east.yaml': is a YAML list, not a mapping"),
        ("a: [\n", "values file 'values/east.yaml': is not valid YAML: "),
        ("a: 1\n---\nb: 2\n", "holds 2 YAML documents; Helm reads one"),
        ("when: 2024-01-01\n", "values.when: a date is not a Helm value"),
    ],
)
def test_a_values_file_must_be_one_mapping_of_helm_values(
    tmp_path: Path, text: str, problem: str
) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    (repo / "values/east.yaml").write_text(text)
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    (found,) = raised.value.problems
    assert problem in found.message
    assert found.line == 47  # the per_label Overrides that names it


def test_an_empty_values_file_is_no_values(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    (repo / "values/east.yaml").write_text("# nothing yet\n")
    plan = api.compile_spec(repo / "fleet.py").plan
    prod_a = next(p for p in plan.placements if (p.app, p.cluster) == ("echo", "prod-a"))
    assert prod_a.settings.values["image"] == {"tag": "2.0", "pullPolicy": "Always"}


def test_diff_shows_a_values_file_edit_as_a_values_change(tmp_path: Path) -> None:
    """`diff` reads each ref's values files from that ref (`load_source` over its tree)."""
    import fleetgen
    from tests.diff.test_diff import commit, git

    repo = case_copy(CASE, tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "fleet")
    prod = repo / "values/prod.yaml"
    prod.write_text(prod.read_text().replace("replicaCount: 3", "replicaCount: 4"))
    report = fleetgen.diff(repo / "fleet.py")
    assert report.changed
    found = report.to_json()
    assert found["touched"]["clusters"] == ["prod-a"]  # prod-b sets its own replicaCount
    (change,) = found["charts"]["values"]
    assert (change["app"], change["path"], change["old"], change["new"]) == (
        "echo",
        "replicaCount",
        3,
        4,
    )


def test_two_label_layers_may_not_set_a_value_differently_through_files(tmp_path: Path) -> None:
    """Files of two per_label layers that one cluster matches come before every values=, in an
    order no reader sees: a value they set differently is refused, as for values= (the same
    value in both passes)."""
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        ('labels={"region": "east"}', 'labels={"region": "east", "tier": "gpu"}'),
        (
            'per_label={"region=east": Overrides(values_files=["values/east.yaml"])}',
            'per_label={"region=east": Overrides(values_files=["values/east.yaml"]), '
            '"tier=gpu": Overrides(values_files=["values/gpu.yaml"])}',
        ),
    )
    gpu = repo / "values/gpu.yaml"
    gpu.write_text("image:\n  repository: east.registry.example.com/echo\n")
    api.compile_spec(repo / "fleet.py")
    gpu.write_text("image:\n  repository: gpu.registry.example.com/echo\n")
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [p.message for p in raised.value.problems] == [
        "app 'echo': per_label[region=east] and per_label[tier=gpu] both match cluster "
        "'prod-a' and set values/image.repository (values_files) differently "
        "('east.registry.example.com/echo' and 'gpu.registry.example.com/echo'); set it in "
        "one of them, or per_cluster"
    ]
