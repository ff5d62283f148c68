"""The secret formats' table, fleetgen/rules/secrets.toml: one test case per rule and example
(a rule finds its positive example, no rule finds a negative one), and the file's fields."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from typing import Any

import pytest

from fleetgen.rules import secrets as scanrules

RULES = scanrules.RULES
IDS = [rule.id for rule in RULES]
FIELDS = {"id", "description", "pattern", "group", "needles", "mappings", "keys", "strings"}


TEXT = resources.files("fleetgen.rules").joinpath("secrets.toml").read_text("utf-8")
ENTRIES: list[dict[str, Any]] = tomllib.loads(TEXT)["rule"]  # the [[rule]] tables as written


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_finds_its_positive_example(rule: scanrules.Rule) -> None:
    assert rule.match(*rule.positive), f"{rule.id} misses its positive example"
    # Through the table: its needles let the example through, and no rule before it takes it.
    found = scanrules.find(*rule.positive)
    assert found is not None and found.rule.id == rule.id, (rule.id, found)


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_no_rule_finds_its_negative_example(rule: scanrules.Rule) -> None:
    assert not rule.match(*rule.negative), f"{rule.id} flags its negative example"
    # A negative example is not a secret to any rule, not only its own.
    assert scanrules.find(*rule.negative) is None, rule.id


def test_the_rules_are_the_files_in_its_order() -> None:
    assert [entry["id"] for entry in ENTRIES] == IDS
    assert len(IDS) == len(set(IDS))
    assert all(rule.description and rule.id.islower() for rule in RULES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["id"] for entry in ENTRIES])
def test_each_rule_has_known_fields_and_one_way_to_match(entry: dict[str, Any]) -> None:
    assert {"id", "description", "positive", "negative"} <= set(entry)
    assert set(entry) - {"positive", "negative"} <= FIELDS, entry["id"]
    assert bool(entry.get("mappings")) == bool(entry.get("keys")), entry["id"]
    pattern = entry.get("pattern")
    if pattern is None:
        assert entry["id"] in scanrules.MATCHERS and "group" not in entry, entry["id"]
    else:
        assert entry["id"] not in scanrules.MATCHERS, entry["id"]
        assert entry.get("group", 0) <= re.compile(pattern).groups, entry["id"]


def test_every_matcher_serves_a_rule() -> None:
    assert set(scanrules.MATCHERS) <= set(IDS)


def test_only_rules_with_mappings_match_a_dict() -> None:
    """`find` tries only the rules with mappings=True on a dict: the others never match one."""
    dicts = [rule.positive for rule in RULES if not isinstance(rule.positive[1], str)]
    assert dicts
    for rule in RULES:
        if not rule.mappings:
            assert all(rule.match(*example) is None for example in dicts), rule.id
