"""Checks over every string of the spec: no secret material, nothing YAML cannot carry.

The walk is generic: every field of every model, every dict key and value and every list item
(``Patch.patch`` to any depth included), so a field added to the model later is scanned without
being listed here. Each string is tested against ``RULES``, one table of secret formats
(`fleetgen.scanrules`); a report names the rule and where the string is, and shows at most a
masked hint, never the value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.model import Spec
from fleetgen.scanrules import (
    RULES,
    WORD_ENTROPY,
    Matcher,
    Rule,
    credential_key,
    entropy,
    is_literal_secret,
)
from fleetgen.yamlscalar import uncarriable

HINT = "reference it from a secret store instead (AppSecret, ExternalSecretRef)"


_MAPPING_RULES = tuple(rule for rule in RULES if rule.mappings)


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule that matched, and the secret text it found (never printed: see ``hint``)."""

    rule: Rule
    secret: str


def find(key: str, value: Any) -> Finding | None:
    """The first rule of ``RULES`` that matches ``value`` held under ``key``."""
    if type(value) is str and type(key) is str:
        return _find_text(key, value)
    return _find(key, value) if value else None  # nothing to find in an empty dict


@functools.lru_cache(maxsize=1 << 16)
def _find_text(key: str, value: str) -> Finding | None:
    """`find` for a string: the rules are pure functions of (key, value), and a fleet repeats
    the same few strings under the same keys many times (names, labels, paths)."""
    return _find(key, value)


def _find(key: str, value: Any) -> Finding | None:
    for rule in RULES if isinstance(value, str) else _MAPPING_RULES:
        secret = rule.match(key, value)
        if secret:
            return Finding(rule, secret)
    return None


def hint(secret: str) -> str:
    """What a message shows of a secret: its length, never a character of it."""
    return f"<{len(secret)} characters>"


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
            if finding:
                yield (
                    owner,
                    (
                        f"{where}: {hint(finding.secret)} looks like "
                        f"{finding.rule.description} (rule {finding.rule.id}); {HINT}"
                    ),
                )


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
        for item_key, item in value.items():
            shown = _shown(item_key)
            _collect(item_key, f"{path} (key {shown})", owner, "", found)
            inner = pair_name if item_key == "value" and pair_name else str(item_key)
            _collect(item, f"{path}[{shown}]", owner, inner, found)
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
    "HINT",
    "RULES",
    "WORD_ENTROPY",
    "Finding",
    "Matcher",
    "Rule",
    "credential_key",
    "entropy",
    "find",
    "hint",
    "is_literal_secret",
    "item_path",
    "nodes",
    "problems",
    "redact",
]
