"""ClusterVars an ApplicationSet reads when it runs (``Selector(runtime=True)``), rendered by
Go's text/template as Argo CD's ApplicationSet controller renders them.

The parameters of a selected cluster are built as ``ClusterGenerator.getClusterParameters``
builds them (applicationset/generators/cluster.go): ``metadata.annotations`` is the Secret's
``map[string]string``, present only when it has annotations. ``Render.Replace``
(applicationset/utils/utils.go) parses each string with sprig's functions and the
ApplicationSet's ``goTemplateOptions``; ``Render.deeplyReplaceWithFilter`` renders every string
of the template one by one, the leaves of ``helm.valuesObject`` (a RawExtension) included, and a
rendered string is never parsed again. No Go module download here: the program defines sprig's
``fail`` and ``toJson`` exactly as sprig v3 does (functions.go ``genericMap``, defaults.go
``toJson``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen import ClusterVar
from fleetgen.emit.argocd.common import go_values_text, go_var
from fleetgen.pipeline import api
from tests.emit.test_argocd_gotemplate import go_render
from tests.helpers import case_copy

CASES = Path(__file__).parent.parent / "cases"
GO_PROGRAM = """package main

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"text/template"
)

type Case struct {
	Template    string            `json:"template"`
	Name        string            `json:"name"`
	Annotations map[string]string `json:"annotations"`
}

// sprig v3: functions.go genericMap "fail", defaults.go toJson.
var funcs = template.FuncMap{
	"fail":   func(msg string) (string, error) { return "", errors.New(msg) },
	"toJson": func(v interface{}) string { out, _ := json.Marshal(v); return string(out) },
}

func main() {
	var cases []Case
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	results := make([]map[string]string, len(cases))
	for i, c := range cases {
		meta := map[string]interface{}{}
		if len(c.Annotations) > 0 {
			meta["annotations"] = c.Annotations
		}
		params := map[string]interface{}{
			"name": c.Name, "nameNormalized": c.Name, "server": "https://" + c.Name,
			"project": "", "metadata": meta,
		}
		var out strings.Builder
		t, err := template.New("t").Funcs(funcs).Option("missingkey=error").Parse(c.Template)
		if err == nil {
			err = t.Execute(&out, params)
		}
		results[i] = map[string]string{"out": out.String()}
		if err != nil {
			results[i]["err"] = err.Error()
		}
	}
	json.NewEncoder(os.Stdout).Encode(results)
}
"""
LITERAL = "{{ .name }} ${HOME} \"q\" 'a: b' <&>"  # a value Go, YAML and the shell would read


def run(tmp_path: Path, cases: list[tuple[str, dict[str, str] | None]]) -> list[dict[str, str]]:
    """Each (template, annotations of the selected cluster edge-1's Secret) rendered by Go."""
    return go_render(
        tmp_path,
        [{"template": t, "name": "edge-1", "annotations": a} for t, a in cases],
        GO_PROGRAM,
    )


def test_a_var_renders_its_annotation_as_literal_text(tmp_path: Path) -> None:
    template = go_var(ClusterVar("region"))
    results = run(
        tmp_path,
        [
            (template, {"fleetgen.io/var.region": LITERAL, "other": "x"}),
            (template, {"fleetgen.io/var.region": ""}),
        ],
    )
    assert results == [{"out": LITERAL}, {"out": ""}]


def test_a_missing_annotation_fails_the_generation(tmp_path: Path) -> None:
    """``index`` of a missing key gives "" whatever missingkey says; the template fails."""
    template = go_var(ClusterVar("region"))
    results = run(tmp_path, [(template, {"other": "x"}), (template, None)])
    for result in results:
        assert result["err"].endswith(
            "cluster edge-1: its Argo CD cluster Secret has no annotation "
            "fleetgen.io/var.region, a ClusterVar of fleet.py"
        ), result


def test_values_text_quotes_each_var_for_yaml(tmp_path: Path) -> None:
    """A values document that travels as text (it holds a null) reads each var as a JSON
    string, which YAML reads back as that string whatever it holds."""
    values: dict[str, Any] = {
        "region": ClusterVar("region"),
        "tags": ["edge", ClusterVar("site"), {"nested": ClusterVar("region")}],
        "literal": "{{ not a var }}",
        "drop": None,
    }
    annotations = {"fleetgen.io/var.region": "yes", "fleetgen.io/var.site": LITERAL + "\n2nd"}
    (result,) = run(tmp_path, [(go_values_text(values), annotations)])
    assert yaml.safe_load(result["out"]) == {
        "region": "yes",
        "tags": ["edge", LITERAL + "\n2nd", {"nested": "yes"}],
        "literal": "{{ not a var }}",
        "drop": None,
    }


def leaves(value: Any) -> list[str]:
    """Every string of ``value``: what ``deeplyReplaceWithFilter`` renders one by one."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in leaves(item)]
    if isinstance(value, list):
        return [s for item in value for s in leaves(item)]
    return []


@pytest.fixture(scope="module")
def runtime_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """The ApplicationSets of golden case cluster-vars-runtime, by file."""
    repo = case_copy(CASES / "cluster-vars-runtime", tmp_path_factory.mktemp("case") / "r")
    rendered = api.compile_spec(repo / "fleet.py").rendered
    return {
        path: list(yaml.safe_load_all(text))
        for path, text in rendered.items()
        if path.startswith("argocd/applicationsets/")
    }


def test_emitted_templates_read_the_selected_cluster_annotations(
    tmp_path: Path, runtime_case: dict[str, list[Any]]
) -> None:
    """What the golden runtime case's ApplicationSets generate for a Secret carrying the
    annotations output/README.md lists (values as fleet.py gives them), and for one lacking
    fleetgen.io/var.site."""
    annotations = {
        "fleetgen.io/var.region": "eu-north-1",
        "fleetgen.io/var.site": "{{ .name }} ${SITE}",
        "fleetgen.io/var.dir": "sites/edge",
    }
    mgmt, prod = runtime_case["argocd/applicationsets/agent.yaml"]
    as_object = mgmt["spec"]["template"]["spec"]["source"]["helm"]["valuesObject"]
    as_text = prod["spec"]["template"]["spec"]["source"]["helm"]["values"]
    (edge_api, _) = runtime_case["argocd/applicationsets/edge-api.yaml"]
    path = edge_api["spec"]["template"]["spec"]["source"]["path"]
    templates = [*leaves(as_object), as_text, path]
    lacking = {k: v for k, v in annotations.items() if k != "fleetgen.io/var.site"}
    results = run(tmp_path, [(t, annotations) for t in templates] + [(as_text, lacking)])
    assert [r["out"] for r in results[:4]] == [
        "eu-north-1",
        "edge",
        "{{ .name }} ${SITE}",
        "{{ not a var }}",
    ]
    assert yaml.safe_load(results[4]["out"]) == {
        "region": "eu-north-1",
        "tags": ["edge", "{{ .name }} ${SITE}"],
        "literal": "{{ not a var }}",
        "proxy": None,
        "edge": True,
    }
    assert results[5] == {"out": "sites/edge"}
    assert "has no annotation fleetgen.io/var.site" in results[6]["err"]
