"""Objects of generated or rendered YAML, their identity, and field-level differences.

An object's identity is ``Key(scope, group, kind, namespace, name)`` (`fleetgen.manifests.k8s`).
The scope
says where the object lives and comes from its file's place (see ``scope_of``): the Argo CD
instance's folder for ``argocd/`` and an environment's own ``argocd-<env>/``, the cluster
directory for ``flux/clusters/<cluster>/`` (and, in hub mode, ``flux/spokes/<spoke>/``), the file
itself for everything else (overlays are keyed by path). A document without ``metadata.name`` (a
kustomize ``Kustomization``) is named after nothing and is identified by its file alone. A file
that is not YAML is one ``File`` object. Objects are compared as the emitters built them (plain
data), not re-parsed from YAML.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.manifests.k8s import Key, identity
from fleetgen.util.layout import ARGOCD_DIR, is_argocd_directory
from fleetgen.write.output import OutputFile

HUB = ARGOCD_DIR  # the scope of argocd/: objects on the cluster of the fleet's Argo CD
FILE_KIND = "File"
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# List items are identified by the first of these field sets that is present and distinct in
# every item: a name alone, else a name with its namespace (AppProject destinations: one per
# cluster and namespace), else server and namespace, else group and kind (resource lists).
_LIST_KEYS = (
    ("name",),
    ("key",),
    ("secretKey",),
    ("name", "namespace"),
    ("server", "namespace"),
    ("group", "kind"),
    ("group", "kind", "name"),
)
# Lists whose entries are keyed as Argo CD matches them, whatever the other entries hold: an
# AppProject's resource lists by group and kind (and name, where the entry names one), its
# destinations by cluster (name, else server) and namespace. Each entry takes the first of its
# field sets it holds in full.
_RESOURCES = (("group", "kind", "name"), ("group", "kind"))
_FIELD_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    **dict.fromkeys(
        (
            "clusterResourceWhitelist",
            "clusterResourceBlacklist",
            "namespaceResourceWhitelist",
            "namespaceResourceBlacklist",
        ),
        _RESOURCES,
    ),
    "destinations": (("name", "namespace"), ("server", "namespace")),
}


@dataclass(frozen=True, slots=True)
class Obj:
    """One object and the file (output-relative, or an overlay directory) it came from."""

    key: Key
    file: str
    doc: Any


@dataclass(frozen=True, slots=True)
class Field:
    """One leaf that differs: ``old``/``new`` are None where the leaf is absent."""

    path: str
    old: Any
    new: Any


def scope_of(path: str) -> str:
    """Where the objects of an output-relative file live."""
    parts = path.split("/")
    if is_argocd_directory(parts[0]):
        return parts[0]  # on the cluster of that Argo CD instance
    if parts[:2] in (["flux", "clusters"], ["flux", "spokes"], ["flux", "releases"]):
        return parts[2] if len(parts) > 3 else path
    return path


def file_objects(file: OutputFile) -> list[Obj]:
    """The objects of one emitted file (its documents; a text file is one ``File`` object)."""
    scope = scope_of(file.path)
    if file.text is not None:
        return [Obj(Key(scope, "", FILE_KIND, "", file.path), file.path, file.text)]
    return objects(scope, file.path, file.documents)


def objects(scope: str, file: str, docs: Iterable[Any]) -> list[Obj]:
    """Keyed objects of parsed documents; duplicate identities get a ``#n`` suffix."""
    found: list[Obj] = []
    seen: set[Key] = set()
    for doc in docs:
        if doc is None:
            continue
        key = identity(scope, doc)
        number = 1
        unique = key
        while unique in seen:
            number += 1
            unique = Key(key.scope, key.group, key.kind, key.namespace, f"{key.name}#{number}")
        seen.add(unique)
        found.append(Obj(unique, file, doc))
    return found


def index(files: Iterable[OutputFile]) -> dict[Key, Obj]:
    """Every object of the given output files, by identity."""
    return {obj.key: obj for file in files for obj in file_objects(file)}


def field_changes(old: Any, new: Any) -> list[Field]:
    """Leaf-level differences between two documents, in document order."""
    if isinstance(old, str) and isinstance(new, str) and "\n" in old + new:
        return _text_changes(old, new)
    before, after = flatten(old), flatten(new)
    paths = list(before) + [path for path in after if path not in before]
    return [
        Field(path, before.get(path), after.get(path))
        for path in paths
        if before.get(path) != after.get(path) or (path in before) != (path in after)
    ]


def whole(obj: Obj, added: bool) -> tuple[Field, ...]:
    """Every leaf of an added (old None) or removed (new None) object."""
    leaves = flatten(obj.doc).items()
    return tuple(
        Field(path, None, value) if added else Field(path, value, None) for path, value in leaves
    )


def flatten(value: Any, prefix: str = "", field: str = "") -> dict[str, Any]:
    """Leaves by path: ``a.b``, ``a["x.y"]``, ``list[name=web].image``, ``list[0]``.

    Lists of mappings are keyed by their items' ``name`` (or ``key``/``secretKey``) when every
    item has a distinct one, an AppProject's by what Argo CD matches (``_FIELD_KEYS``; ``field``
    names the list), else by index; lists of ``KEY=value`` strings (literals, sync options) by
    their distinct keys; other lists of scalars are leaves, compared whole.
    """
    if isinstance(value, dict) and value:
        found: dict[str, Any] = {}
        for key, item in value.items():
            found.update(flatten(item, _join(prefix, str(key)), str(key)))
        return found
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        labels = _field_labels(value, _FIELD_KEYS.get(field, ())) or _item_labels(value)
        found = {}
        for label, item in zip(labels, value, strict=True):
            found.update(flatten(item, f"{prefix}[{label}]"))
        return found
    assignments = _assignments(value)
    if assignments is not None:
        return {f"{prefix}[{key}]": item for key, item in assignments.items()}
    return {prefix: value}


def _assignments(value: Any) -> dict[str, str] | None:
    """A list of distinct ``KEY=value`` strings as a mapping, else None."""
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(item, str) and "=" in item for item in value)
    ):
        return None
    pairs = [item.partition("=") for item in value]
    keys = [key for key, _, _ in pairs]
    if "" in keys or len(set(keys)) != len(keys):
        return None
    return {key: item for key, _, item in pairs}


def _join(prefix: str, key: str) -> str:
    if _PLAIN_KEY.fullmatch(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}[{json.dumps(key)}]"


def _field_labels(
    items: list[dict[str, Any]], choices: tuple[tuple[str, ...], ...]
) -> list[str] | None:
    """Each item labelled by the first field set of ``choices`` it holds in full (strings);
    None when one holds none or two read the same."""
    labels = []
    for item in items:
        fields = next((f for f in choices if all(isinstance(item.get(k), str) for k in f)), None)
        if fields is None:
            return None
        labels.append(_label(fields, tuple(item[k] for k in fields)))
    return labels if len(set(labels)) == len(labels) else None


def _label(fields: tuple[str, ...], key: tuple[Any, ...]) -> str:
    return ",".join(f"{field}={part}" for field, part in zip(fields, key, strict=True))


def _item_labels(items: list[dict[str, Any]]) -> list[str]:
    for fields in _LIST_KEYS:
        keys = [tuple(item.get(field) for field in fields) for item in items]
        if all(isinstance(part, str) for key in keys for part in key) and len(set(keys)) == len(
            keys
        ):
            return [_label(fields, key) for key in keys]
    return [str(number) for number in range(len(items))]


def _text_changes(old: str, new: str) -> list[Field]:
    """Changed line ranges of a text (a non-YAML file, or a multi-line string leaf)."""
    a, b = old.splitlines(), new.splitlines()
    changes = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            where = f"lines {j1 + 1}-{j2}" if j2 - j1 > 1 else f"line {j1 + 1}"
            changes.append(Field(where, "\n".join(a[i1:i2]) or None, "\n".join(b[j1:j2]) or None))
    return changes


def rename_key(key: Key, renamed: Mapping[str, str]) -> Key:
    """``key`` with every renamed spec name (a whole dash-separated token run) replaced."""
    if not renamed:
        return key
    pattern = re.compile(
        r"(?<![A-Za-z0-9])("
        + "|".join(re.escape(old) for old in sorted(renamed, key=len, reverse=True))
        + r")(?![A-Za-z0-9])"
    )

    def swap(text: str) -> str:
        return pattern.sub(lambda match: renamed[match.group(1)], text)

    return Key(swap(key.scope), key.group, key.kind, key.namespace, swap(key.name))
