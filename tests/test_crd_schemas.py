"""The strict CRD validator itself: it accepts real objects and rejects typos and wrong types."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.crd_schemas import errors, schemas

ROOT = Path(__file__).resolve().parent.parent

KUSTOMIZATION = {
    "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
    "metadata": {"name": "web", "namespace": "flux-system"},
    "spec": {"interval": "10m", "path": "./output/overlays/web/dev", "prune": True,
             "sourceRef": {"kind": "GitRepository", "name": "flux-system"}},
}


def test_every_served_crd_version_is_loaded() -> None:
    found = set(schemas())
    assert {("argoproj.io/v1alpha1", "ApplicationSet"), ("argoproj.io/v1alpha1", "AppProject"),
            ("argoproj.io/v1alpha1", "Application"), ("external-secrets.io/v1", "ExternalSecret"),
            ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"),
            ("source.toolkit.fluxcd.io/v1", "GitRepository")} <= found
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
