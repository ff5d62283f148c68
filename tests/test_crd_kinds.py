"""Custom kinds in ``*.k8s.io`` groups are not built-in (issue #25 construct 13): Gateway API's
GatewayClass is cluster-scoped and a Gateway namespaced, as their CRDs say; a kind whose scope
fleetgen does not know is "not checked", never an error. On the golden case
``tests/cases/namespaces``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from fleetgen.inputs.reading import filesystem_reader
from fleetgen.inputs.workspace import scan
from fleetgen.manifests.k8s import BUILT_IN_GROUPS
from fleetgen.manifests.yamlio import dump, dump_documents
from fleetgen.pipeline import api
from fleetgen.tools.kustomize import Kustomize
from fleetgen.validate.kubernetes import KubernetesSchemas, built_in, versions
from tests.crd_schemas import custom_resource_definition
from tests.helpers import case_copy, run_fleetgen

CASE = Path(__file__).parent / "cases" / "namespaces"

GATEWAY_CLASS = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "GatewayClass",
    "metadata": {"name": "public"},
    "spec": {"controllerName": "example.com/gateway-controller"},
}
GATEWAY = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "Gateway",
    "metadata": {"name": "web"},
    "spec": {"gatewayClassName": "public", "listeners": [{"name": "http", "port": 80}]},
}
# A CRD kind in some other *.k8s.io group whose scope fleetgen cannot know.
WIDGET = {
    "apiVersion": "widgets.example.k8s.io/v1alpha1",
    "kind": "Widget",
    "metadata": {"name": "w"},
    "spec": {"size": 1},
}


def _docs(repo: Path, path: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((repo / "output" / path).read_text()) if d]


def _add_to_base(repo: Path, app: str, *objects: dict[str, Any]) -> None:
    base = repo / "apps" / app
    (base / "extra.yaml").write_text(dump_documents(objects))
    kustomization = base / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "  - extra.yaml\n")


def test_built_in_groups_are_exactly_kubernetes_own() -> None:
    """Every group kubernetes-validate has schemas for, and no other: ``*.k8s.io`` alone does
    not make a group Kubernetes' own."""
    groups: set[str] = set()
    for directory in versions().values():
        definitions = json.loads((directory / "_definitions.json").read_bytes())["$defs"]
        for schema in definitions.values():
            for gvk in schema.get("x-kubernetes-group-version-kind", []):
                groups.add(gvk["group"])
    assert groups == BUILT_IN_GROUPS
    assert built_in("networking.k8s.io/v1") and built_in("v1") and built_in("apps/v1")
    assert not built_in("gateway.networking.k8s.io/v1")
    assert not built_in("snapshot.storage.k8s.io/v1")
    assert KubernetesSchemas().errors(GATEWAY) is None  # no schema: not checked


def test_inventory_knows_gateway_api_scopes_and_crds_the_base_ships(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "clusterwidgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Cluster",
            "names": {"kind": "ClusterWidget", "plural": "clusterwidgets"},
        },
    }
    widget = {"apiVersion": "example.com/v1", "kind": "ClusterWidget", "metadata": {"name": "c"}}
    # The instance before its CRD: the base's CRDs count wherever they are listed.
    (base / "objects.yaml").write_text(dump_documents((widget, GATEWAY_CLASS, GATEWAY, WIDGET)))
    (base / "crd.yaml").write_text(dump(crd))
    (base / "kustomization.yaml").write_text("resources:\n- objects.yaml\n- crd.yaml\n")
    found = scan(filesystem_reader(tmp_path), ["base"]).bases["base"]
    assert found.cluster_kinds == {
        ("gateway.networking.k8s.io", "GatewayClass"),
        ("example.com", "ClusterWidget"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
    }


def test_a_gateway_class_is_in_the_derived_whitelist_a_gateway_is_not(tmp_path: Path) -> None:
    """Argo CD syncs a cluster-scoped object only if the AppProject lists its kind
    (controller/sync.go ``validateSyncPermissions``); a namespaced one needs no entry."""
    repo = case_copy(CASE, tmp_path / "repo")
    _add_to_base(repo, "shop", GATEWAY_CLASS, GATEWAY, WIDGET)
    api.build(repo / "fleet.py")
    [project] = _docs(repo, "argocd/projects/shop.yaml")
    whitelist = project["spec"]["clusterResourceWhitelist"]
    assert {"group": "gateway.networking.k8s.io", "kind": "GatewayClass"} in whitelist
    kinds = {entry["kind"] for entry in whitelist}
    assert "Gateway" not in kinds and "Widget" not in kinds


def test_a_written_cluster_resources_boundary_holds_gateway_classes(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    _add_to_base(repo, "cert-manager", GATEWAY_CLASS)
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2, result.stderr
    assert "('gateway.networking.k8s.io', 'GatewayClass')" in result.stderr


def test_validate_render_reports_unknown_k8s_io_kinds_as_not_checked(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """cert-manager has no namespace (App(namespace=None)): a GatewayClass without one is right
    (cluster-scoped), a Gateway without one is unplaced, and a Widget of unknown scope is
    neither: not checked, never an error."""
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        (
            '("cert-manager.io", "ClusterIssuer")]',
            '("cert-manager.io", "ClusterIssuer"),\n'
            '                                   ("gateway.networking.k8s.io", "GatewayClass")]',
        ),
    )
    gateway = {**GATEWAY, "metadata": {"name": "web", "namespace": "cert-manager"}}
    loose = {**GATEWAY, "metadata": {"name": "loose"}}
    _add_to_base(repo, "cert-manager", GATEWAY_CLASS, gateway, loose, WIDGET)
    result = run_fleetgen(repo, "validate", "--render", "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert {
        (f["rule"], f["object"])
        for f in report["findings"]
        if not f["object"].startswith("Deployment ")  # the bases' probes, limits...
    } == {("unplaced-object", "Gateway loose")}
    not_checked = report["summary"]["not_checked"]
    assert not_checked["widgets.example.k8s.io/v1alpha1 Widget"] == 2  # dev, prod overlays
    assert not_checked["gateway.networking.k8s.io/v1 GatewayClass"] == 2


def test_a_user_crd_schema_checks_a_k8s_io_kind(tmp_path: Path, kustomize: Kustomize) -> None:
    """A CRD of a ``*.k8s.io`` group in the repository is its schema (before, such kinds went to
    Kubernetes' own schemas, found none, and were never checked)."""
    repo = case_copy(CASE, tmp_path / "repo")
    _add_to_base(repo, "shop", {**WIDGET, "spec": {"size": "big"}})
    spec = {"type": "object", "properties": {"size": {"type": "integer"}}}
    schema = {"type": "object", "properties": {"spec": spec}}
    crd = custom_resource_definition("widgets.example.k8s.io", "Widget", "v1alpha1", schema)
    (repo / "crds").mkdir()
    (repo / "crds/widget.yaml").write_text(dump(crd))
    result = run_fleetgen(repo, "validate", "--render", "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    schema = [f for f in report["findings"] if f["rule"] == "schema"]
    assert schema and all(f["object"] == "Widget shop/w" for f in schema), schema
    assert [f["message"] for f in schema] == ['"big" is not of type "integer"']  # root: no error
    assert "widgets.example.k8s.io/v1alpha1 Widget" not in report["summary"]["not_checked"]
