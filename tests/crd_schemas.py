"""Strict validation of emitted objects against the upstream CRDs in ``../shared/schemas/``.

Each served version's ``openAPIV3Schema`` becomes a JSON Schema with ``additionalProperties:
false`` on every object that declares properties and does not preserve unknown fields (the API
server would prune an unknown field silently; here it is an error), ``int-or-string`` and
``nullable`` translated, and a strict ObjectMeta. CEL rules (``x-kubernetes-validations``) are not
evaluated: emitters check those in code.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema
import yaml

SCHEMAS = Path(__file__).resolve().parents[2] / "shared" / "schemas"

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
# Core kinds fleetgen emits, strict, with the fields it may use.
CORE: dict[tuple[str, str], dict[str, Any]] = {
    ("v1", "Secret"): {
        "type": "object", "additionalProperties": False, "required": ["apiVersion", "kind"],
        "properties": {"apiVersion": {}, "kind": {}, "metadata": OBJECT_META,
                       "type": {"type": "string"}, "stringData": _STRING_MAP,
                       "data": _STRING_MAP, "immutable": {"type": "boolean"}},
    },
    ("v1", "Namespace"): {
        "type": "object", "additionalProperties": False, "required": ["apiVersion", "kind"],
        "properties": {"apiVersion": {}, "kind": {}, "metadata": OBJECT_META},
    },
    ("v1", "ConfigMap"): {
        "type": "object", "additionalProperties": False, "required": ["apiVersion", "kind"],
        "properties": {"apiVersion": {}, "kind": {}, "metadata": OBJECT_META,
                       "data": _STRING_MAP, "binaryData": _STRING_MAP},
    },
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


@functools.cache
def schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> strict JSON Schema, for every served CRD version and CORE."""
    found = dict(CORE)
    for path in sorted(SCHEMAS.rglob("*.yaml")):
        for crd in yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if version.get("served"):
                    schema = convert(version["schema"]["openAPIV3Schema"])
                    schema["properties"]["metadata"] = OBJECT_META
                    found[(f"{group}/{version['name']}", kind)] = schema
    return found


@functools.cache
def _validator(api_version: str, kind: str) -> jsonschema.protocols.Validator:
    schema = schemas().get((api_version, kind))
    if schema is None:
        raise KeyError(f"no served schema for {api_version} {kind} under {SCHEMAS}")
    validator_class = jsonschema.validators.validator_for(schema, jsonschema.Draft7Validator)
    return validator_class(schema)


def errors(obj: dict[str, Any]) -> list[str]:
    """Every schema violation of ``obj`` as 'path: message' (empty when valid)."""
    validator = _validator(obj.get("apiVersion", ""), obj.get("kind", ""))
    return sorted(f"{'/'.join(map(str, e.absolute_path)) or '.'}: {e.message}"
                  for e in validator.iter_errors(obj))
