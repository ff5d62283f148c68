"""Strict validation of emitted objects against the schemas fleetgen ships.

A thin wrapper over ``fleetgen.validate.schemas`` (which documents the strictness rules and the
sets: the newest and the oldest supported release of each controller).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

from fleetgen.validate import schemas as crd
from fleetgen.validate.kubernetes import KubernetesSchemas

__all__ = ["custom_resource_definition", "emitted_documents", "errors", "schemas", "strict_errors"]


@functools.cache
def schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> strict JSON Schema of the newest release, for every shipped kind."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for schema_set in reversed(crd.shipped()):
        found.update(schema_set.schemas)
    return found


@functools.cache
def _checker() -> crd.Checker:
    return crd.Checker(crd.shipped())


def errors(obj: dict[str, Any]) -> list[str]:
    """Every schema violation of ``obj`` on every shipped release (empty when valid)."""
    found = _checker().errors(obj)
    if found is None:
        raise KeyError(f"no shipped schema for {obj.get('apiVersion')} {obj.get('kind')}")
    return found


@functools.cache
def _kubernetes() -> KubernetesSchemas:
    return KubernetesSchemas()


def strict_errors(doc: dict[str, Any]) -> list[str]:
    """Schema violations of an emitted object: CRDs on every shipped release, built-in kinds
    on the newest Kubernetes."""
    found = _kubernetes().errors(doc)
    return errors(doc) if found is None else found


def emitted_documents(output: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every YAML document fleetgen wrote outside the overlays (kustomize configuration and the
    user's objects: validate --render's part), with its file."""
    found = []
    for path in sorted(output.rglob("*.yaml")):
        relative = path.relative_to(output).as_posix()
        if relative.startswith(("overlays/", ".fleetgen/")) or path.name == "kustomization.yaml":
            continue
        found += [(relative, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return found


def custom_resource_definition(
    group: str, kind: str, version: str, schema: dict[str, Any]
) -> dict[str, Any]:
    """A namespaced CRD of ``kind`` (plural: its lowercase + s) in ``group`` serving ``version``
    with ``schema`` as its openAPIV3Schema."""
    plural = f"{kind.lower()}s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural},
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }
