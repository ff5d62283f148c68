"""Strict JSON Schemas of the Kubernetes built-in kinds, from the kubernetes-validate package.

kubernetes-validate ships, per Kubernetes minor, one ``-local-strict`` directory: a schema per
kind whose ``$ref``s point into a shared ``_definitions.json`` (``additionalProperties: false``
throughout, so an unknown field is an error). Its own ``validate()`` re-reads both files on every
call; here ``_definitions.json`` is read once into a jsonschema-rs registry and each kind's schema
is compiled once, on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import jsonschema_rs

from fleetgen.manifests.k8s import BUILT_IN_GROUPS

__all__ = ["KubernetesSchemas", "UnknownVersion", "built_in", "versions"]

_DEFINITIONS_ID = "https://kubernetes.io/api/_definitions.json"
_STRICT_DIR = re.compile(r"v([0-9]+)\.([0-9]+)\.[0-9]+-local-strict")


class UnknownVersion(ValueError):
    """A Kubernetes version kubernetes-validate has no schemas for."""


def _schema_root() -> Traversable:
    return resources.files("kubernetes_validate") / "kubernetes-json-schema"


def versions() -> dict[str, Traversable]:
    """Every Kubernetes minor with strict schemas ("1.37"), oldest first, and its directory."""
    found = {}
    for entry in _schema_root().iterdir():
        match = _STRICT_DIR.fullmatch(entry.name)
        if match:
            found[(int(match[1]), int(match[2]))] = entry
    return {f"{major}.{minor}": found[(major, minor)] for major, minor in sorted(found)}


def built_in(api_version: str) -> bool:
    """True for the API groups Kubernetes itself serves (``v1``, ``apps/v1``,
    ``networking.k8s.io/v1``; `k8s.BUILT_IN_GROUPS`). A CRD group ending in ``.k8s.io``
    (``gateway.networking.k8s.io``) is not one: its kinds are checked against their CRD, if
    there is one, and are "not checked" otherwise."""
    return api_version.rpartition("/")[0] in BUILT_IN_GROUPS


class KubernetesSchemas:
    """The strict schemas of one Kubernetes minor (default: the newest shipped)."""

    def __init__(self, version: str | None = None) -> None:
        known = versions()
        self.version = version or list(known)[-1]
        if self.version not in known:
            raise UnknownVersion(
                f"no Kubernetes {self.version} schemas: kubernetes-validate "
                f"ships {', '.join(known)}"
            )
        self._directory = known[self.version]
        definitions = json.loads((self._directory / "_definitions.json").read_bytes())
        self._registry = jsonschema_rs.Registry([(_DEFINITIONS_ID, definitions)])
        self._validators: dict[tuple[str, str], Any] = {}

    def errors(self, obj: Mapping[str, Any]) -> list[str] | None:
        """Every violation as 'path: message'; None when there is no schema for the kind."""
        api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
        if not built_in(api_version):
            return None
        validator = self._validator(api_version, kind)
        if validator is None:
            return None
        return sorted(
            f"{'/'.join(map(str, error.instance_path)) or '.'}: {error.message}"
            for error in validator.iter_errors(obj)
        )

    def _validator(self, api_version: str, kind: str) -> Any:
        key = (api_version, kind)
        if key not in self._validators:
            # kubernetes-validate's file naming: rbac.authorization.k8s.io/v1 -> rbac-v1
            group, _, version = api_version.rpartition("/")
            suffix = f"{group.split('.')[0]}-{version}" if group else version
            name = f"{kind.lower()}-{suffix}.json"
            entry = self._directory / name
            self._validators[key] = (
                jsonschema_rs.validator_for(
                    json.loads(entry.read_bytes()),
                    registry=self._registry,
                    base_uri=f"https://kubernetes.io/api/{name}",
                )
                if entry.is_file()
                else None
            )
        return self._validators[key]
