"""The secret formats' table, `RULES`: secrets.toml's rules, read once when this module is first
imported (the spec classes import it through `fleetgen.rules.policy`), each pattern compiled the
first time a rule tries it; and `find`, the first rule that finds a secret in a value."""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fleetgen.rules.secrets.credentials import compiled
from fleetgen.rules.secrets.formats import (
    aws_secret_key,
    azure_sas,
    credential_assignment,
    credential_value,
    docker_config,
    gcp_service_account,
    kubeconfig,
    password_in_url,
    secret_flag,
    secret_values,
)

# -- the rules ------------------------------------------------------------------------------------

Matcher = Callable[[str, Any], str | None]  # (key, value) -> the secret text found, or None


@dataclass(frozen=True, slots=True)
class Rule:
    """One secret format: ``match(key, value)`` returns the secret text it found, or None.

    ``positive`` and ``negative`` are (key, value) examples the rule must and must not match
    (secrets.toml's examples, a value written in parts joined). A rule reads strings unless
    ``strings`` is False; one with ``mappings`` reads dicts that have one of its ``keys`` (any
    other value it never matches). ``needles``: strings one of which a string must contain for
    the rule to be tried on it (a cheap test before the pattern); empty: always tried.
    """

    id: str
    description: str
    match: Matcher
    positive: tuple[str, Any]
    negative: tuple[str, Any]
    mappings: bool = False
    needles: tuple[str, ...] = ()
    strings: bool = True
    keys: tuple[str, ...] = ()


def _content(pattern: str, group: int = 0) -> Matcher:
    """A rule on the text of a string value, whatever its key."""

    def match(key: str, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        found = compiled(pattern).search(value)
        return found.group(group) if found else None

    return match


def _secret_data(key: str, value: Any) -> str | None:
    """A Kubernetes Secret (``kind: Secret``, a patch of one) whose data or stringData holds a
    value no other rule finds as written (those it reports itself): the first such value."""
    if not isinstance(value, Mapping) or value.get("kind") != "Secret":
        return None
    for _, entry_key, written, text in secret_values(value):
        if find(entry_key, written) is None:
            return text
    return None


PLAIN_SECRET = "plain-secret"
# The rules secrets.toml gives no pattern, by id: formats a regular expression cannot say.
MATCHERS: Mapping[str, Matcher] = {
    PLAIN_SECRET: _secret_data,
    "gcp-service-account-key": gcp_service_account,
    "aws-secret-access-key": aws_secret_key,
    "azure-sas-token": azure_sas,
    "docker-config": docker_config,
    "kubeconfig-credentials": kubeconfig,
    "password-in-url": password_in_url,
    "secret-cli-flag": secret_flag,
    "credential-assignment": credential_assignment,
    "credential-key": credential_value,
}


def _rule(entry: dict[str, Any]) -> Rule:
    """The `Rule` of a ``[[rule]]`` of secrets.toml (its header lists the fields)."""
    pattern = entry.get("pattern")
    return Rule(
        entry["id"],
        entry["description"],
        _content(pattern, entry.get("group", 0)) if pattern else MATCHERS[entry["id"]],
        _example(entry["positive"]),
        _example(entry["negative"]),
        mappings=entry.get("mappings", False),
        needles=tuple(entry.get("needles", ())),
        strings=entry.get("strings", True),
        keys=tuple(entry.get("keys", ())),
    )


def _example(pair: list[Any]) -> tuple[str, Any]:
    """An example's (key, value), a value written in parts joined."""
    key, value = pair
    return key, "".join(value) if isinstance(value, list) else value


def _table() -> tuple[Rule, ...]:
    """The rules of secrets.toml, beside this package's folder, in its order."""
    text = Path(__file__).parent.with_name("secrets.toml").read_text("utf-8")
    return tuple(_rule(entry) for entry in tomllib.loads(text)["rule"])


RULES: tuple[Rule, ...] = _table()
BY_ID: Mapping[str, Rule] = {rule.id: rule for rule in RULES}


# -- finding --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule that matched, and the secret text it found (never printed: see ``hint``)."""

    rule: Rule
    secret: str


_MAPPING_RULES = tuple(rule for rule in RULES if rule.mappings)
MAPPING_KEYS = frozenset(key for rule in _MAPPING_RULES for key in rule.keys)
# For strings: the rules always tried, every needle, and the rules (by index) each one opens.
_UNGATED = frozenset(i for i, rule in enumerate(RULES) if rule.strings and not rule.needles)
_NEEDLES = tuple(sorted({needle for rule in RULES for needle in rule.needles}))
_ANY_NEEDLE = "|".join(re.escape(needle) for needle in _NEEDLES)
_OPENS = {
    needle: frozenset(i for i, rule in enumerate(RULES) if needle in rule.needles)
    for needle in _NEEDLES
}


def find(key: str, value: Any) -> Finding | None:
    """The first rule of ``RULES`` that matches ``value`` held under ``key``."""
    if type(value) is str and type(key) is str:
        return find_text(key, value)
    if isinstance(value, Mapping):
        return find_mapping(key, value) if value else None  # nothing to find in an empty dict
    return None


@functools.lru_cache(maxsize=1 << 16)
def find_text(key: str, value: str) -> Finding | None:
    """`find` for a string: the rules are pure functions of (key, value), and a fleet repeats
    the same few strings under the same keys many times (names, labels, paths). A rule is tried
    only on a string that holds one of its needles, in table order."""
    tried = _UNGATED
    if compiled(_ANY_NEEDLE).search(value):  # most strings (names, labels) hold none
        tried = tried.union(*[_OPENS[needle] for needle in _NEEDLES if needle in value])
    for index in sorted(tried):
        rule = RULES[index]
        secret = rule.match(key, value)
        if secret:
            return Finding(rule, secret)
    return None


def find_mapping(key: str, value: Mapping[str, Any]) -> Finding | None:
    """`find` for a dict that holds something: the rules with ``mappings``, on a dict with one
    of their ``keys``."""
    if value.keys().isdisjoint(MAPPING_KEYS):  # most dicts: labels, config, values
        return None
    for rule in _MAPPING_RULES:
        if value.keys().isdisjoint(rule.keys):
            continue
        secret = rule.match(key, value)
        if secret:
            return Finding(rule, secret)
    return None


def hint(secret: str) -> str:
    """What a message shows of a secret: its length, never a character of it."""
    return f"<{len(secret)} characters>"
