"""Strict JSON Schemas from CustomResourceDefinitions, and a checker of objects against them.

fleetgen ships the schemas of the Argo CD, Flux and External Secrets CRDs it emits, for the newest
release and the oldest supported one (``fleetgen/schemas/<set>/*.json``, derived by
``scripts/update-schemas`` from the pinned upstream files); an object must be valid on every
set that knows its kind. CRDs a user gives (``--crds``, or found in the repo) replace the shipped
schemas of their kinds.

Each served version's ``openAPIV3Schema`` becomes a JSON Schema with ``additionalProperties:
false`` on every object that declares properties and does not preserve unknown fields (the API
server would prune an unknown field silently; here it is an error), ``int-or-string`` and
``nullable`` translated, and ``apiVersion``, ``kind`` and a strict ObjectMeta at the root even
where the CRD's root lists only ``spec``. CEL rules (``x-kubernetes-validations``) stay in the
schema, which JSON Schema ignores, and ``fleetgen.validate.cel`` evaluates them. Minimal strict
schemas cover the core kinds fleetgen emits (v1 Secret, Namespace, ConfigMap, ServiceAccount)
and, as ``KUSTOMIZATION``, exactly the kustomization fields the overlays use (kustomize
publishes no schema; ``--render`` also builds every overlay, which is the full check).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema_rs

from fleetgen.manifests.yamlio import load_all
from fleetgen.validate import cel

__all__ = [
    "CORE",
    "OBJECT_META",
    "Checker",
    "SchemaSet",
    "convert",
    "crd_files",
    "load",
    "shipped",
    "strict_schemas",
]

Schemas = Mapping[tuple[str, str], dict[str, Any]]  # (apiVersion, kind) -> JSON Schema
YAML_SUFFIXES = (".yaml", ".yml")
_CRD_KIND = "CustomResourceDefinition"
_FLOOR = re.compile(r"([a-z]+)-([0-9]+)\.([0-9]+)")  # a shipped set of an oldest release

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


# What the API server accepts at every object's root whatever the CRD's root schema lists: its
# pruning treats the root as an embedded resource (apiVersion, kind, metadata as ObjectMeta).
_RESOURCE_ROOT = {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": OBJECT_META,
}


def _core(**fields: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind"],
        "properties": {"apiVersion": {}, "kind": {}, "metadata": OBJECT_META, **fields},
    }


def _strict(required: Sequence[str] = (), **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(required),
        "properties": properties,
    }


def _list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item}


_STRING = {"type": "string", "minLength": 1}
_PATCH_TARGET = _strict(
    ["kind"],
    **{
        key: _STRING
        for key in (
            "group",
            "version",
            "kind",
            "name",
            "namespace",
            "labelSelector",
            "annotationSelector",
        )
    },
)
# The kustomization fields fleetgen's overlays emit (fleetgen/emit/overlays.py), strict.
KUSTOMIZATION_KEY = ("kustomize.config.k8s.io/v1beta1", "Kustomization")
KUSTOMIZATION = _strict(
    ["apiVersion", "kind", "resources"],
    apiVersion={},
    kind={},
    namespace=_STRING,
    namePrefix=_STRING,
    resources=_list(_STRING),
    components=_list(_STRING),
    labels=_list(
        _strict(
            ["pairs"],
            pairs=_STRING_MAP,
            includeSelectors={"type": "boolean"},
            includeTemplates={"type": "boolean"},
        )
    ),
    commonAnnotations=_STRING_MAP,
    images=_list(_strict(["name"], name=_STRING, newName=_STRING, newTag=_STRING, digest=_STRING)),
    replicas=_list(
        _strict(["name", "count"], name=_STRING, count={"type": "integer", "minimum": 0})
    ),
    configMapGenerator=_list(
        _strict(
            ["name", "behavior", "literals"],
            name=_STRING,
            behavior={"enum": ["create", "merge"]},
            literals=_list({"type": "string"}),
        )
    ),
    patches=_list(_strict(["target", "patch"], target=_PATCH_TARGET, patch=_STRING)),
)


# Core kinds fleetgen emits, strict, with the fields it may use.
CORE: dict[tuple[str, str], dict[str, Any]] = {
    ("v1", "Secret"): _core(
        type={"type": "string"},
        stringData=_STRING_MAP,
        data=_STRING_MAP,
        immutable={"type": "boolean"},
    ),
    ("v1", "Namespace"): _core(),
    ("v1", "ConfigMap"): _core(data=_STRING_MAP, binaryData=_STRING_MAP),
    ("v1", "ServiceAccount"): _core(),
    KUSTOMIZATION_KEY: KUSTOMIZATION,
}


def convert(node: Any) -> Any:
    """An OpenAPI v3 structural schema node as a strict JSON Schema node."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("description", "format") or (
            key.startswith("x-kubernetes-") and key != cel.RULES_KEY
        ):
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
    if (
        "properties" in node
        and "additionalProperties" not in node
        and not node.get("x-kubernetes-preserve-unknown-fields")
    ):
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


@dataclass(frozen=True, slots=True)
class SchemaSet:
    """Strict schemas by (apiVersion, kind), from one release (``name`` says which)."""

    name: str
    schemas: Schemas = field(default_factory=dict)


def load(files: Iterable[Path]) -> SchemaSet:
    """A strict schema per served version of every CRD in ``files`` (later wins)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in files:
        for crd in load_all(path.read_bytes()):
            if isinstance(crd, dict) and crd.get("kind") == _CRD_KIND:
                found.update(strict_schemas(crd))
    return SchemaSet("your CRDs", found)


def strict_schemas(crd: Mapping[str, Any]) -> Iterator[tuple[tuple[str, str], dict[str, Any]]]:
    """((apiVersion, kind), strict JSON Schema) of every served version of ``crd``."""
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    for version in crd["spec"]["versions"]:
        if version.get("served"):
            schema = convert(version["schema"]["openAPIV3Schema"])
            schema.setdefault("properties", {}).update(_RESOURCE_ROOT)
            yield (f"{group}/{version['name']}", kind), schema


def shipped(minimums: Mapping[str, tuple[int, int]] | None = None) -> list[SchemaSet]:
    """The Kubernetes core kinds fleetgen emits, then every shipped set (newest and floors).

    ``minimums`` (e.g. ``{"flux": (2, 9)}``) leaves out the floor sets (``flux-2.7``) of
    releases older than the oldest one the output must work on.
    """
    sets = [SchemaSet("Kubernetes", CORE)]
    root = resources.files("fleetgen") / "schemas"
    for folder in sorted(root.iterdir(), key=lambda entry: entry.name):
        floor = _FLOOR.fullmatch(folder.name)
        if floor and (minimums or {}).get(floor[1], (0, 0)) > (int(floor[2]), int(floor[3])):
            continue
        schemas: dict[tuple[str, str], dict[str, Any]] = {}
        release = folder.name
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
            if entry.name.endswith(".json"):
                document = json.loads(entry.read_bytes())
                release = document["release"]
                for key, schema in document["schemas"].items():
                    api_version, kind = key.split(" ")
                    schemas[(api_version, kind)] = schema
        sets.append(SchemaSet(release, schemas))
    return sets


class Checker:
    """Validates objects on every set that knows their kind, compiling each schema once.

    ``overrides`` (e.g. the user's CRDs) replace every other set's schemas of their kinds.
    """

    def __init__(self, sets: Sequence[SchemaSet], overrides: SchemaSet | None = None) -> None:
        self.sets = [
            SchemaSet(
                s.name,
                {
                    key: schema
                    for key, schema in s.schemas.items()
                    if overrides is None or key not in overrides.schemas
                },
            )
            for s in sets
        ]
        if overrides is not None:
            self.sets.append(overrides)
        self._validators: dict[tuple[str, str, str], Any] = {}
        self.cel = cel.Rules()

    def errors(self, obj: Mapping[str, Any]) -> list[str] | None:
        """Every violation of ``obj`` as 'path: message'; None when no set knows its kind.

        A violation found on only some of the sets that know the kind names those sets.
        """
        key = (str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        applicable = [s for s in self.sets if key in s.schemas]
        if not applicable:
            return None
        found = {s.name: set(self._errors(s, key, obj)) for s in applicable}
        every = set.intersection(*found.values())
        partial = {
            error: [name for name, errors in found.items() if error in errors]
            for error in set.union(*found.values()) - every
        }
        return sorted(
            [*every, *(f"{error} (on {', '.join(names)})" for error, names in partial.items())]
        )

    def _errors(
        self, schema_set: SchemaSet, key: tuple[str, str], obj: Mapping[str, Any]
    ) -> Iterator[str]:
        schema = schema_set.schemas[key]
        validator = self._validators.get((schema_set.name, *key))
        if validator is None:
            validator = jsonschema_rs.validator_for(schema)
            self._validators[(schema_set.name, *key)] = validator
        for error in validator.iter_errors(obj):
            yield f"{'/'.join(map(str, error.instance_path)) or '.'}: {error.message}"
        yield from self.cel.errors(f"{schema_set.name}: {' '.join(key)}", schema, obj)
