"""Strict validation of emitted objects against the schemas fleetgen ships.

A thin wrapper over ``fleetgen.validate.schemas`` (which documents the strictness rules and the
sets: the newest and the oldest supported release of each controller).
"""

from __future__ import annotations

import functools
from typing import Any

from fleetgen.validate import schemas as crd

__all__ = ["errors", "schemas"]


@functools.cache
def schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> strict JSON Schema of the newest release, for every shipped kind."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for schema_set in reversed(crd.shipped()):
        found.update(schema_set.schemas)
    return found


@functools.cache
def _checker() -> crd.Checker:
    return crd.Checker(crd.shipped())


def errors(obj: dict[str, Any]) -> list[str]:
    """Every schema violation of ``obj`` on every shipped release (empty when valid)."""
    found = _checker().errors(obj)
    if found is None:
        raise KeyError(f"no shipped schema for {obj.get('apiVersion')} {obj.get('kind')}")
    return found
