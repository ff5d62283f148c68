"""What the secret rules find in a Kubernetes object (`in_object`: a Secret's data value by
value, Argo CD's repository settings by their fields, a CRD and a SealedSecret's encrypted data
skipped) and in any plain data (`walk`), each finding with its path from the top (`Found`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.rules.secrets.credentials import (
    credential_key,
    holds_names,
    is_literal_secret,
    is_name,
)
from fleetgen.rules.secrets.formats import secret_values
from fleetgen.rules.secrets.table import (
    BY_ID,
    MAPPING_KEYS,
    PLAIN_SECRET,
    Finding,
    find,
    find_mapping,
    find_text,
    hint,
)

Path = tuple[str | int, ...]  # keys and list indexes from the top of an object
Parse = Callable[[str], Any]  # YAML text -> its first document, None when it is not YAML


@dataclass(frozen=True, slots=True)
class Found:
    """A finding inside an object, and where: ``path`` from the object's top."""

    finding: Finding
    path: Path


def in_secret(key: str, text: str) -> Finding:
    """What a value of a Secret's data is: the format a rule finds in it, else `PLAIN_SECRET`
    (which a credential-named key adds nothing to: every value of a Secret is one)."""
    found = find(key, text)
    if found is None or found.rule.id == "credential-key":
        return Finding(BY_ID[PLAIN_SECRET], text)
    return found


def field_path(path: Path) -> str:
    """``path`` slash-separated (``data/password``), a key that is itself a secret masked."""
    shown = []
    for part in path:
        found = find("", part) if isinstance(part, str) else None
        shown.append(hint(found.secret) if found else str(part))
    return "/".join(shown)


_CREDENTIAL_KEY = "credential-key"  # the rule of a literal under a credential-named key
# Per API group, keys whose values are key names of a Secret, not credentials: an
# ExternalSecret's ``spec.data[].secretKey`` names the key of the Secret it makes.
_NAME_KEYS = {"external-secrets.io": frozenset({"secretKey"})}


def in_object(doc: Any, *, parse: Parse) -> list[Found]:
    """What ``RULES`` find in a Kubernetes object (or any YAML document): every string, dict
    key and value, list item and number under a credential-named key, tested under the key it
    sits under (see `walk`). A Secret's ``data`` and ``stringData`` values are reported one by
    one: by the format a value has (``data`` decoded), else as `PLAIN_SECRET`. Argo CD's
    repository settings in ``argocd-cm`` are read with ``parse`` (`repository_settings`). A CRD
    (a schema) and a SealedSecret's ``encryptedData`` hold no values."""
    if not isinstance(doc, Mapping):
        return walk(doc)
    found: list[Found] = []
    api = doc.get("apiVersion")
    group = api.rpartition("/")[0] if isinstance(api, str) else ""
    names = _NAME_KEYS.get(group, frozenset())
    if doc.get("kind") == "CustomResourceDefinition":
        return []  # a schema: descriptions and types, no values
    if doc.get("kind") == "Secret" and group == "":
        for section, key, _, text in secret_values(doc):
            found.append(Found(in_secret(key, text), (section, key)))
        doc = {key: value for key, value in doc.items() if key not in ("data", "stringData")}
    elif doc.get("kind") == "ConfigMap" and group == "" and isinstance(doc.get("data"), Mapping):
        doc, found = _configmap(doc, parse)
    elif doc.get("kind") == "SealedSecret" and group == "bitnami.com":
        spec = doc.get("spec")
        if isinstance(spec, Mapping):  # encryptedData: encrypted, whatever its keys say
            doc = {**doc, "spec": {k: v for k, v in spec.items() if k != "encryptedData"}}
    found += walk(doc, names=names)
    return found


def walk(
    value: Any, path: Path = (), key: str = "", names: frozenset[str] = frozenset()
) -> list[Found]:
    """What ``RULES`` find in plain data (dicts, lists, strings, numbers), as `Found` with paths.

    ``key`` is what a node sits under, as the spec's walk (`fleetgen.inputs.scan.nodes`) has it: the
    dict key, the ``name`` of a ``{name: X, value: Y}`` pair for its value, the flag before a list
    item (``["--token", VALUE]``), the key of the enclosing dict for a list item. A dict key is
    tested on its own; a number is tested only under a credential-named key. ``names``: keys
    whose values are names (`_NAME_KEYS`).
    """
    found: list[Found] = []
    _walk(value, path, key, names, found)
    return found


def _walk(value: Any, path: Path, key: str, names: frozenset[str], found: list[Found]) -> None:
    """`walk` into ``found``. YAML gives exact builtin types: tested by ``type`` first (an
    ``isinstance`` against ``Mapping`` is an ABC check, and a base has tens of thousands of
    nodes), then as any mapping or sequence."""
    kind = type(value)
    if kind is str:
        finding = find_text(key, value)
        if finding:
            found.append(Found(finding, path))
    elif kind is dict or isinstance(value, Mapping):
        if value and not value.keys().isdisjoint(MAPPING_KEYS):
            finding = find_mapping(key, value)
            if finding:
                found.append(Found(finding, path))
        holder = holds_names(key) if key else False
        pair_name = value.get("name")
        if type(pair_name) is not str:
            pair_name = None
        for item_key, item in value.items():
            if type(item_key) is str:
                shown: str | int = item_key
                finding = find_text("", item_key)
                if finding:
                    found.append(Found(finding, (*path, item_key)))
            else:
                shown = item_key if isinstance(item_key, int) else str(item_key)
            if holder and type(item) is str and is_name(item):
                inner = ""
            elif item_key == "value" and pair_name:
                inner = pair_name
            else:
                inner = str(item_key)
            _walk(item, (*path, shown), "" if inner in names else inner, names, found)
    elif kind is list or kind is tuple or isinstance(value, list | tuple):
        previous = key
        for index, item in enumerate(value):
            _walk(item, (*path, index), previous, names, found)
            flag = type(item) is str and item.startswith("-") and "=" not in item
            previous = item if flag else key
    elif (kind is int or kind is float) and credential_key(key):
        finding = find_text(key, str(value))
        if finding:
            found.append(Found(finding, path))


# Argo CD's repository settings: the keys of argocd-cm (argo-cd util/settings) whose values are
# YAML lists of repositories and credential templates.
ARGOCD_CM = "argocd-cm"
REPOSITORY_SETTINGS = frozenset({"repositories", "repository.credentials", "helm.repositories"})
# The fields of an Argo CD repository Secret that hold its credentials (literal here: material).
_REPOSITORY_MATERIAL = frozenset(
    {
        "password",
        "sshPrivateKey",
        "tlsClientCertKey",
        "githubAppPrivateKey",
        "gcpServiceAccountKey",
        "bearerToken",
        "azureServicePrincipalClientSecret",
    }
)
_SELECTOR_KEYS = frozenset({"name", "key", "optional"})  # a SecretKeySelector's


def repository_settings(configmap: str, key: str, text: Any, parse: Parse) -> list[Found] | None:
    """What ``RULES`` find in Argo CD's repository settings, the value ``text`` of ``key`` in
    ConfigMap ``configmap`` when it is one (``repositories``, ``repository.credentials`` or
    ``helm.repositories`` of ``argocd-cm``: a YAML list ``parse`` reads), with paths from the
    value (``0/password``); None when it is none (then ``text`` is tested as any value). Each
    entry's ``*Secret`` fields and ``gcpServiceAccountKey`` holding ``{name, key}`` name a key of
    a Secret (util/settings ``Repository``, ``RepositoryCredentials``): they pass. A literal in
    a field a repository Secret keeps a credential in (``password``, ``sshPrivateKey``,
    ``tlsClientCertKey`` ...) is one; any other field is tested as `walk` tests it."""
    if configmap != ARGOCD_CM or key not in REPOSITORY_SETTINGS or not isinstance(text, str):
        return None
    entries = parse(text)
    if not isinstance(entries, list):
        return None
    found: list[Found] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            found += walk(entry, (index,), key)
            continue
        for field, value in entry.items():
            found += _repository_field(str(field), value, (index, str(field)))
    return found


def _configmap(doc: Mapping[str, Any], parse: Parse) -> tuple[dict[str, Any], list[Found]]:
    """A ConfigMap without the values that are Argo CD's repository settings, and what is
    found in those."""
    meta = doc.get("metadata")
    name = str(meta.get("name", "")) if isinstance(meta, Mapping) else ""
    data, found = dict(doc["data"]), []
    for key, text in doc["data"].items():
        settings = repository_settings(name, str(key), text, parse)
        if settings is not None:
            found += [Found(item.finding, ("data", key, *item.path)) for item in settings]
            del data[key]
    return {**doc, "data": data}, found


def _repository_field(field: str, value: Any, path: Path) -> list[Found]:
    """What is found in one field of a repository settings entry."""
    selector = isinstance(value, Mapping) and set(value) <= _SELECTOR_KEYS
    if selector and (field.endswith("Secret") or field == "gcpServiceAccountKey"):
        return []
    if field in _REPOSITORY_MATERIAL and isinstance(value, str) and is_literal_secret(value):
        return [Found(find_text(field, value) or Finding(BY_ID[_CREDENTIAL_KEY], value), path)]
    return walk(value, path, field)
