"""Cluster vars on clusters fleetgen knows: resolve fills each placement's ClusterVars (golden
cases cluster-vars and cluster-vars-runtime hold the output; tests/bad_inputs/cluster-var*
the refusals), and explain names the var and the cluster behind a value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from fleetgen import ClusterVar, validate as validation
from fleetgen.explain import explanation as explain
from fleetgen.pipeline import api
from fleetgen.resolver.plan import Settings
from fleetgen.tools.kustomize import build as kustomize_build
from tests.emit.test_argocd_appsets import applications
from tests.helpers import case_copy

CASES = Path(__file__).parent / "cases"


def values(app: str, case: str = "cluster-vars") -> dict[str, dict[str, tuple[str, object]]]:
    """cluster -> value key -> (layer, value) of ``app`` in the golden ``case``."""
    (view,) = explain.explain(CASES / case / "fleet.py", app).apps
    return {p.cluster: {v.key: (v.layer, v.value) for v in p.values} for p in view.placements}


def test_explain_names_the_var_and_cluster_behind_a_config_value() -> None:
    found = values("web")
    assert found["eu-1"]["config/web-config/REGION"] == (
        "app; ClusterVar('region') of cluster 'eu-1'",
        "eu-west-1",
    )
    assert found["us-1"]["config/web-config/MOTD"] == (
        "per_env; ClusterVar('motd') of cluster 'us-1'",
        "hello {{us}}",
    )
    assert found["ap-1"]["config/web-config/MODE"] == ("app", "shared")
    assert "config/web-config/MOTD" not in found["ap-1"]  # set per_env prod only


def test_explain_names_the_vars_of_helm_values_and_source_paths() -> None:
    ingress = values("ingress")["ap-1"]
    assert ingress["values/controller.region"] == (
        "app; ClusterVar('region') of cluster 'ap-1'",
        "ap-southeast-2",
    )
    assert ingress["values/hosts"] == (
        "app; ClusterVar('host') of cluster 'ap-1'",
        ["ap.staging.example.com", "static.example.com"],
    )
    assert ingress["values/controller.replicas"] == ("app", 2)
    assert values("tenant")["eu-1"]["path"] == (
        "app; ClusterVar('tenant_dir') of cluster 'eu-1'",
        "prod/eu",
    )


def test_a_runtime_app_keeps_its_vars_for_the_template_and_fills_them_for_known_clusters() -> None:
    plan = api.compile_spec(CASES / "cluster-vars-runtime" / "fleet.py").plan
    (edge,) = [p for p in plan.placements if p.app == "agent" and p.cluster == "edge-1"]
    assert edge.settings.values["region"] == "eu-north-1"
    assert edge.template is not None
    assert edge.template.values["region"] == ClusterVar("region")
    known = [p for p in plan.placements if p.app == "api"]
    assert [p.template for p in known] == [None]


def test_resolve_vars_fills_every_depth_and_records_each_leaf() -> None:
    settings = Settings(
        values={"a": {"b": [ClusterVar("x"), {"c": ClusterVar("y")}], "d": 1}},
        config={"cm": {"K": ClusterVar("y"), "L": "literal {{ x }}"}},
        source_path=ClusterVar("x"),
    )
    filled = settings.resolve_vars({"x": "X", "y": "${Y}"})
    assert filled.values == {"a": {"b": ["X", {"c": "${Y}"}], "d": 1}}
    assert filled.config == {"cm": {"K": "${Y}", "L": "literal {{ x }}"}}
    assert filled.source_path == "X"
    assert filled.resolved == {"values/a.b": ("x", "y"), "config/cm/K": ("y",), "path": ("x",)}
    assert settings.shared().config == {"cm": {"L": "literal {{ x }}"}}


def test_validate_holds_runtime_templates_to_the_var_annotations(tmp_path: Path) -> None:
    """The ApplicationSet ↔ registration contract counts a ClusterVar's annotation among what a
    template reads (`go_var`): the registrations fleetgen writes carry it, the external ones are
    declared with it (as the fleet map lists them); without it the generation fails."""
    repo = case_copy(CASES / "cluster-vars-runtime", tmp_path / "repo")
    compiled = api.compile_spec(repo / "fleet.py")
    findings = validation.check(compiled, repo).findings
    assert {f.rule for f in findings} <= {"spec-warning"}  # the warnings build gives too
    path = "argocd/clusters/mgmt.yaml"
    (secret,) = yaml.safe_load_all(compiled.rendered[path])
    del secret["metadata"]["annotations"]["fleetgen.io/var.site"]
    compiled.rendered[path] = yaml.safe_dump(secret).encode()
    found = {
        (f.rule, f.object, f.message)
        for f in validation.check(compiled, repo).findings
        if f.rule != "spec-warning"
    }
    assert found == {
        (
            "appset-labels",
            "ApplicationSet agent-mgmt",
            "its template reads annotation fleetgen.io/var.site, which the registration of "
            "cluster mgmt lacks (the generation fails)",
        )
    }


def test_registrations_fleetgen_writes_carry_every_var_as_an_annotation() -> None:
    """The cluster generator passes a Secret's annotations to the template as
    ``.metadata.annotations`` (argo-cd ``ClusterGenerator.getClusterParameters``), so a runtime
    app reads a fleetgen-registered cluster's vars as it reads an external one's; a changed
    annotation rebuilds no cluster cache (``liveStateCache.handleModEvent`` compares config,
    namespaces and cluster resources). In the ExternalSecret's template a value stays literal."""
    rendered = api.compile_spec(CASES / "cluster-vars-runtime" / "fleet.py").rendered
    (mgmt,) = yaml.safe_load_all(rendered["argocd/clusters/mgmt.yaml"])
    assert mgmt["metadata"]["annotations"] == {
        "fleetgen.io/var.dir": "sites/hq",
        "fleetgen.io/var.region": "eu-central-1",
        "fleetgen.io/var.site": "hq",
    }
    rendered = api.compile_spec(CASES / "cluster-vars" / "fleet.py").rendered
    (us,) = yaml.safe_load_all(rendered["argocd/clusters/us-1.yaml"])
    template = us["spec"]["target"]["template"]["metadata"]["annotations"]
    assert template["fleetgen.io/var.motd"] == '{{ "hello {{us}}" }}'  # External Secrets' v2


def test_a_layer_namespace_from_a_var_is_each_clusters_own(tmp_path: Path) -> None:
    """``Overrides(namespace=ClusterVar(...))``: each cluster overlay rewrites the namespace with
    its cluster's value (kustomize's NamespaceTransformer; the env overlay writes none, so
    nothing shared names one), the ApplicationSet's generators carry it as each Application's
    destination (the Go templates evaluated as the ApplicationSet controller does, `applications`),
    and a chart release goes there on Flux."""
    repo = case_copy(CASES / "cluster-vars", tmp_path / "repo")
    result = api.compile_spec(repo / "fleet.py")
    plan = result.plan
    assert {(p.app, p.cluster): p.namespace for p in plan.placements if p.app != "tenant"} == {
        ("web", "ap-1"): "web",
        ("web", "eu-1"): "web-eu",
        ("web", "us-1"): "web-us",
        ("ingress", "ap-1"): "ingress-ap",
        ("ingress", "eu-1"): "ingress",
        ("ingress", "us-1"): "ingress",
    }
    docs = {
        path: [doc for doc in yaml.safe_load_all(data) if doc]
        for path, data in result.rendered.items()
        if path.startswith("argocd/")
    }
    generated = applications(docs)[("web", "prod")]
    assert {a["metadata"]["name"]: a["spec"]["destination"]["namespace"] for a in generated} == {
        "web-eu-1": "web-eu",
        "web-us-1": "web-us",
    }
    api.build(repo / "fleet.py")
    built = yaml.safe_load_all(kustomize_build(repo / "output/overlays/web/clusters/eu-1"))
    assert {doc["metadata"]["namespace"] for doc in built} == {"web-eu"}


def _generators(rendered: dict[str, bytes], app: str) -> dict[str, list[Any]]:
    """ApplicationSet name -> its generators, of ``app``'s file."""
    docs = yaml.safe_load_all(rendered[f"argocd/applicationsets/{app}.yaml"])
    return {doc["metadata"]["name"]: doc["spec"]["generators"] for doc in docs}


def test_a_runtime_set_passes_over_a_secret_without_a_var_annotation_from_argo_cd_3_4(
    tmp_path: Path,
) -> None:
    """A selected Secret without a var's annotation makes `go_var` call ``fail``: argo-cd
    ``GenerateApplications`` returns the error and ``ApplicationSetReconciler.Reconcile`` returns
    before ``createOrUpdateInCluster`` and ``deleteInCluster``, for every cluster of the set. From
    Argo CD 3.4 each generator carries a post selector (``ApplicationSetGenerator.selector``) on
    the annotations its clusters' placements read: ``Transform`` matches it against the
    parameters flattened, where ``getClusterParameters``' annotations are
    ``metadata.annotations.<key>`` (``normalizeMapForFlatten``, v3.4.0; v3.3's flatten keeps the
    goTemplate map whole, so there the selector would select nothing and 3.3 keeps ``fail``).
    The headers and the fleet map say which of the two the output does."""
    default = api.compile_spec(CASES / "cluster-vars-runtime" / "fleet.py").rendered
    assert all("selector" not in g for gs in _generators(default, "agent").values() for g in gs)
    assert b"fails the generation" in default["argocd/applicationsets/agent.yaml"]
    assert b"such a Secret is not selected instead" in default["README.md"]
    repo = case_copy(
        CASES / "cluster-vars-runtime",
        tmp_path / "repo",
        ("    Fleet,\n", "    ArgoOptions,\n    Fleet,\n"),
        ('    name="edge",\n', '    name="edge",\n    argocd=ArgoOptions(min_version="3.4"),\n'),
    )
    compiled = api.compile_spec(repo / "fleet.py")
    exists = [
        {"key": f"metadata.annotations.fleetgen.io/var.{name}", "operator": "Exists"}
        for name in ("region", "site")
    ]
    for generators in _generators(compiled.rendered, "agent").values():
        assert [g["selector"] for g in generators] == [{"matchExpressions": exists}]
    for (edge,) in _generators(compiled.rendered, "edge-api").values():
        assert edge["selector"]["matchExpressions"] == [
            {"key": "metadata.annotations.fleetgen.io/var.dir", "operator": "Exists"}
        ]
    assert all(
        "selector" not in g for gs in _generators(compiled.rendered, "api").values() for g in gs
    )
    assert (
        b"a generator selector passes over one"
        in compiled.rendered["argocd/applicationsets/agent.yaml"]
    )
    readme = compiled.rendered["README.md"].decode()
    assert "Their generators select only Secrets that carry every annotation" in readme
    assert "(in use)" in readme.split("## Controller versions")[1].split("## Bootstrap")[0]
    findings = validation.check(compiled, repo).findings
    assert {f.rule for f in findings} <= {"spec-warning"}  # the CRD schemas take the selector
