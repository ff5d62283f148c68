"""The strict CRD validator itself: it accepts real objects and rejects typos and wrong types."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from fleetgen.validate import schemas as crd
from tests.crd_schemas import custom_resource_definition, errors, schemas

ROOT = Path(__file__).resolve().parent.parent

KUSTOMIZATION = {
    "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
    "kind": "Kustomization",
    "metadata": {"name": "web", "namespace": "flux-system"},
    "spec": {
        "interval": "10m",
        "path": "./output/overlays/web/dev",
        "prune": True,
        "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
    },
}


def test_every_served_crd_version_is_loaded() -> None:
    found = set(schemas())
    assert {
        ("argoproj.io/v1alpha1", "ApplicationSet"),
        ("argoproj.io/v1alpha1", "AppProject"),
        ("argoproj.io/v1alpha1", "Application"),
        ("external-secrets.io/v1", "ExternalSecret"),
        ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"),
        ("source.toolkit.fluxcd.io/v1", "GitRepository"),
    } <= found
    assert ("external-secrets.io/v1beta1", "ExternalSecret") not in found  # not served


def test_valid_object_passes_and_typos_and_wrong_types_fail() -> None:
    assert errors(KUSTOMIZATION) == []
    typo = {**KUSTOMIZATION, "spec": {**KUSTOMIZATION["spec"], "intervall": "1m"}}
    assert any("intervall" in e for e in errors(typo))
    wrong = {**KUSTOMIZATION, "spec": {**KUSTOMIZATION["spec"], "prune": "yes"}}
    assert any(e.startswith("spec/prune") for e in errors(wrong))
    bad_meta = {**KUSTOMIZATION, "metadata": {"name": "web", "lables": {}}}
    assert any("lables" in e for e in errors(bad_meta))


def test_generated_external_secrets_of_the_example_validate() -> None:
    for path in sorted((ROOT / "output/overlays").rglob("secrets.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            assert errors(doc) == [], path


def test_each_shipped_schema_file_says_where_it_came_from() -> None:
    files = sorted((ROOT / "fleetgen" / "schemas").glob("*/*.json"))
    assert {path.parent.name for path in files} == {
        "argocd",
        "argocd-3.3",
        "flux",
        "flux-2.7",
        "external-secrets",
    }
    for path in files:
        document = json.loads(path.read_text())
        source = document["source"]
        assert source["repository"] in {
            "argoproj/argo-cd",
            "external-secrets/external-secrets",
            "fluxcd/kustomize-controller",
            "fluxcd/source-controller",
            "fluxcd/helm-controller",
            "fluxcd/notification-controller",
        }, path
        assert source["path"].endswith(".yaml") and source["version"], path
        assert len(source["blob"]) == 40 and len(source["commit"]) == 40, path
        assert document["schemas"], path
        assert not list(prose(document["schemas"])), path  # structure only


def prose(node: Any) -> Iterator[str]:
    """Every description text in a schema (a field named "description" is a schema, not text)."""
    if isinstance(node, dict):
        if isinstance(node.get("description"), str):
            yield node["description"]
        for value in node.values():
            yield from prose(value)
    elif isinstance(node, list):
        for value in node:
            yield from prose(value)


def test_floor_sets_apply_until_the_minimum_version_leaves_them_out() -> None:
    names = [schema_set.name for schema_set in crd.shipped()]
    assert {"Argo CD 3.3", "Argo CD 3.6", "Flux 2.7", "Flux 2.9"} <= set(names)
    raised = [s.name for s in crd.shipped({"argocd": (3, 5), "flux": (2, 8)})]
    assert "Argo CD 3.3" not in raised and "Flux 2.7" not in raised
    assert "Argo CD 3.6" in raised and "Flux 2.9" in raised


def test_a_violation_on_one_release_only_names_it() -> None:
    only_new = {**KUSTOMIZATION, "spec": {**KUSTOMIZATION["spec"], "ignore": []}}
    assert errors(only_new) == [
        "spec: Additional properties are not allowed ('ignore' was unexpected) (on Flux 2.7)"
    ]
    typo = {**KUSTOMIZATION, "spec": {**KUSTOMIZATION["spec"], "intervall": "1m"}}
    assert not any("(on " in e for e in errors(typo))  # wrong everywhere: no release named


CRONTAB_CRD = custom_resource_definition(  # the Kubernetes documentation's CronTab: the root
    "stable.example.com",  # schema lists only spec
    "CronTab",
    "v1",
    {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"cronSpec": {"type": "string"}}}},
    },
)


def test_a_crd_root_listing_only_spec_still_takes_api_version_kind_and_object_meta() -> None:
    """The API server treats every custom object's root as an embedded resource: apiextensions'
    ``pruning.PruneWithOptions`` (``IsResourceRoot``) keeps ``apiVersion``, ``kind`` and
    ``metadata`` whatever the root schema lists, and checks ``metadata`` as ObjectMeta."""
    checker = crd.Checker([], crd.SchemaSet("your CRDs", dict(crd.strict_schemas(CRONTAB_CRD))))
    crontab = {
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {"name": "nightly", "namespace": "jobs"},
        "spec": {"cronSpec": "* * * * */5"},
    }
    assert checker.errors(crontab) == []
    assert checker.errors({**crontab, "extra": 1}) == [
        ".: Additional properties are not allowed ('extra' was unexpected)"
    ]
    bad_meta = {**crontab, "metadata": {"name": "nightly", "lables": {}}}
    assert any("lables" in e for e in checker.errors(bad_meta) or [])


def test_every_shipped_crd_root_takes_api_version_kind_and_object_meta() -> None:
    for schema_set in crd.shipped()[1:]:  # after the core kinds: the derived CRD schemas
        for key, schema in schema_set.schemas.items():
            root = schema["properties"]
            assert (root["apiVersion"], root["kind"]) == ({"type": "string"},) * 2, key
            assert root["metadata"] == crd.OBJECT_META, key
