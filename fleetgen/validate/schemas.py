"""Strict JSON Schemas from CustomResourceDefinitions, and a checker of objects against them.

Each served version's ``openAPIV3Schema`` becomes a JSON Schema with ``additionalProperties:
false`` on every object that declares properties and does not preserve unknown fields (the API
server would prune an unknown field silently; here it is an error), ``int-or-string`` and
``nullable`` translated, and a strict ObjectMeta. CEL rules (``x-kubernetes-validations``) are not
evaluated: emitters check those in code. Minimal strict schemas cover the core kinds fleetgen
emits (v1 Secret, Namespace, ConfigMap).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

__all__ = ["CORE", "OBJECT_META", "Checker", "convert", "crd_files", "load"]

Schemas = Mapping[tuple[str, str], dict[str, Any]]  # (apiVersion, kind) -> JSON Schema
YAML_SUFFIXES = (".yaml", ".yml")
_CRD_KIND = "CustomResourceDefinition"

_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
OBJECT_META: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "namespace": {"type": "string", "minLength": 1},
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "finalizers": {"type": "array", "items": {"type": "string"}},
    },
}


def _core(**fields: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["apiVersion", "kind"],
            "properties": {"apiVersion": {}, "kind": {}, "metadata": OBJECT_META, **fields}}


# Core kinds fleetgen emits, strict, with the fields it may use.
CORE: dict[tuple[str, str], dict[str, Any]] = {
    ("v1", "Secret"): _core(type={"type": "string"}, stringData=_STRING_MAP, data=_STRING_MAP,
                            immutable={"type": "boolean"}),
    ("v1", "Namespace"): _core(),
    ("v1", "ConfigMap"): _core(data=_STRING_MAP, binaryData=_STRING_MAP),
}


def convert(node: Any) -> Any:
    """An OpenAPI v3 structural schema node as a strict JSON Schema node."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("description", "format") or key.startswith("x-kubernetes-"):
            continue
        if key == "properties":
            out[key] = {name: convert(child) for name, child in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = convert(value)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [convert(child) for child in value]
        else:
            out[key] = value
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    out.pop("nullable", None)
    if ("properties" in node and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def crd_files(paths: Iterable[Path], exclude: Collection[Path] = ()) -> list[Path]:
    """Every ``*.yaml``/``*.yml`` file of ``paths`` (files or directories) that holds a CRD.

    Directories are walked recursively, skipping the (resolved) directories in ``exclude``.
    """
    skipped = {path.resolve() for path in exclude}
    found: list[Path] = []
    for path in paths:
        candidates = _walk(path, skipped) if path.is_dir() else iter([path])
        found.extend(p for p in candidates if _mentions_crd(p))
    return found


def _walk(root: Path, skipped: Collection[Path]) -> Iterator[Path]:
    for directory, subdirs, files in os.walk(root):
        here = Path(directory)
        subdirs[:] = sorted(d for d in subdirs if (here / d).resolve() not in skipped)
        yield from (here / f for f in sorted(files) if f.endswith(YAML_SUFFIXES))


def _mentions_crd(path: Path) -> bool:
    return _CRD_KIND.encode() in path.read_bytes()


def load(files: Iterable[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """CORE plus a strict schema per served version of every CRD in ``files`` (later wins)."""
    found = dict(CORE)
    for path in files:
        for crd in yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader):
            if isinstance(crd, dict) and crd.get("kind") == _CRD_KIND:
                found.update(_served(crd))
    return found


def _served(crd: dict[str, Any]) -> Iterator[tuple[tuple[str, str], dict[str, Any]]]:
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    for version in crd["spec"]["versions"]:
        if version.get("served"):
            schema = convert(version["schema"]["openAPIV3Schema"])
            schema.setdefault("properties", {})["metadata"] = OBJECT_META
            yield (f"{group}/{version['name']}", kind), schema


class Checker:
    """Validates objects against ``schemas``, compiling each validator once."""

    def __init__(self, schemas: Schemas) -> None:
        self.schemas = schemas
        self._validators: dict[tuple[str, str], jsonschema.protocols.Validator] = {}

    def errors(self, obj: Mapping[str, Any]) -> list[str] | None:
        """Every violation of ``obj`` as 'path: message'; None when its kind has no schema."""
        key = (str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        if key not in self.schemas:
            return None
        if key not in self._validators:
            schema = self.schemas[key]
            cls = jsonschema.validators.validator_for(schema, jsonschema.Draft7Validator)
            self._validators[key] = cls(schema)
        return sorted(f"{'/'.join(map(str, e.absolute_path)) or '.'}: {e.message}"
                      for e in self._validators[key].iter_errors(obj))
