"""Checks over every string of the spec: no secret material, nothing YAML cannot carry.

The walk is generic: every field of every model, every dict key and value and every list item
(``Patch.patch`` to any depth included), so a field added to the model later is scanned without
being listed here. Each string is tested against ``RULES``, one table of secret formats
(`fleetgen.rules.secrets`, which also tests the app bases' files and rendered objects); a report
names the rule, where the string is and its length, never a character of the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from fleetgen.manifests.yamlscalar import uncarriable
from fleetgen.model import Patch, Spec
from fleetgen.rules.secrets import (
    BY_ID,
    PLAIN_SECRET,
    RULES,
    Finding,
    Found,
    Matcher,
    Rule,
    credential_key,
    field_path,
    find,
    hint,
    holds_names,
    in_object,
    inner_key,
    is_literal_secret,
    reference_key,
)

HINT = "reference it from a secret store instead (AppSecret, ExternalSecretRef)"


def message(finding: Finding) -> str:
    """``<N characters> looks like DESCRIPTION (rule ID)``: what a report says of a finding."""
    return describe(len(finding.secret), finding.rule.description, finding.rule.id)


def describe(length: int, description: str, rule: str) -> str:
    """What a report says of a secret of ``length`` characters that rule ``rule`` found."""
    return f"<{length} characters> looks like {description} (rule {rule})"


def waiver_hint(rule: str) -> str:
    """How to keep a finding in an app's base files: a waiver of the app."""
    return f"or waive it for the app: Waiver(rule={rule!r}, reason=...)"


def redact(text: str, key: str = "", value: Any = None) -> str:
    """``text`` with every secret a rule finds in it (or in ``value`` under ``key``) masked."""
    secrets = []
    if value is not None:
        found = find(key, value)
        if found:
            secrets += [found.secret, value if isinstance(value, str) else ""]
    for rule in RULES:
        for part in (text, *re.split(r"[\s'\"]+", text)):
            found_secret = rule.match("", part) if part else None
            if found_secret:
                secrets.append(found_secret)
    for secret in sorted(filter(None, set(secrets)), key=len, reverse=True):
        text = text.replace(repr(secret), hint(secret)).replace(secret, hint(secret))
    return text


# -- the walk -------------------------------------------------------------------------------------


def problems(spec: Spec, path: str = "fleet") -> Iterator[tuple[Spec, str]]:
    """(the object holding it, message) for every string fleetgen must refuse in ``spec``, which
    is at ``path`` of the fleet (`item_path`)."""
    for owner, where, key, node in nodes(spec, path):
        if isinstance(node, str):
            found = uncarriable(node)
            if found:
                yield owner, f"{where}: {found}"
        if isinstance(node, str | Mapping):
            finding = find(key, node)
            if finding is None and isinstance(owner, Patch) and node is owner.patch:
                finding = _secret_patch(owner)
            if finding:
                yield owner, f"{where}: {message(finding)}; {HINT}"


def _secret_patch(patch: Patch) -> Finding | None:
    """A patch of Secrets (``target`` kind Secret) that writes their data or stringData."""
    if patch.target.get("kind") != "Secret" or not isinstance(patch.patch, Mapping):
        return None
    return find("patch", {"kind": "Secret", **patch.patch})


def nodes(
    value: Any, path: str, owner: Spec | None = None, key: str = ""
) -> list[tuple[Spec, str, str, Any]]:
    """(owning model, path, key, node) for every model, dict, string and dict key in ``value``,
    but for the empty values of models' fields (None, '', {}, []: nothing to find there).

    ``key`` is what the node sits under: the field name, the dict key, the ``name`` of a
    ``{name: X, value: Y}`` pair (Kubernetes env vars) for its value, the flag before a list item
    (``["--token", VALUE]``), or the key of the enclosing dict for a list item.
    """
    found: list[tuple[Spec, str, str, Any]] = []
    _collect(value, path, owner, key, found)
    return found


def _collect(
    value: Any, path: str, owner: Spec | None, key: str, found: list[tuple[Spec, str, str, Any]]
) -> None:
    """`nodes` into ``found``: one list, not a generator per node (a large fleet has tens of
    thousands)."""
    if isinstance(value, str):
        assert owner is not None
        found.append((owner, path, key, value))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if owner is not None and credential_key(key):  # a password of digits in Helm values
            found.append((owner, path, key, str(value)))
    elif isinstance(value, Spec):
        found.append((value, path, key, value))
        for name in type(value).model_fields:
            item = getattr(value, name)
            if item:  # most fields of most models are empty
                _collect(item, f"{path}.{name}", value, name, found)
    elif isinstance(value, Mapping):
        assert owner is not None
        found.append((owner, path, key, value))
        pair_name = value.get("name") if isinstance(value.get("name"), str) else None
        holder = holds_names(key)  # its items that are names hold no credential
        for item_key, item in value.items():
            shown = _shown(item_key)
            _collect(item_key, f"{path} (key {shown})", owner, "", found)
            inner = inner_key(key, item_key, item, pair_name) if holder or pair_name else item_key
            _collect(item, f"{path}[{shown}]", owner, str(inner), found)
    elif isinstance(value, list | tuple):
        previous = key
        for index, item in enumerate(value):
            _collect(item, item_path(path, item, index), owner, previous, found)
            flag = isinstance(item, str) and item.startswith("-") and "=" not in item
            previous = item if flag else key


def _shown(key: Any) -> str:
    """``repr(key)``, masked when the key itself is a secret."""
    if isinstance(key, str):
        found = find("", key)
        return hint(found.secret) if found else repr(key)
    return repr(key)


def item_path(path: str, item: Any, index: int) -> str:
    """The path of ``item``, at ``index`` of the list at ``path``, as `nodes` names it."""
    return f"{path}[{_label(item, index)}]"


def _label(item: Any, index: int) -> str:
    name = getattr(item, "name", None)
    return _shown(name) if isinstance(name, str) else str(index)


__all__ = [
    "BY_ID",
    "HINT",
    "PLAIN_SECRET",
    "RULES",
    "Finding",
    "Found",
    "Matcher",
    "Rule",
    "credential_key",
    "describe",
    "field_path",
    "find",
    "hint",
    "in_object",
    "is_literal_secret",
    "item_path",
    "message",
    "nodes",
    "problems",
    "redact",
    "reference_key",
    "waiver_hint",
]
