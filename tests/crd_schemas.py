"""Strict validation of emitted objects against the upstream CRDs in ``../shared/schemas/``.

A thin wrapper over ``fleetgen.validate.schemas`` (which documents the strictness rules).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from fleetgen.validate import schemas as crd
from fleetgen.validate.schemas import OBJECT_META

__all__ = ["OBJECT_META", "SCHEMAS", "errors", "schemas"]

SCHEMAS = Path(__file__).resolve().parents[2] / "shared" / "schemas"


@functools.cache
def schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> strict JSON Schema, for every served CRD version and CORE."""
    return crd.load(sorted(crd.crd_files([SCHEMAS])))


@functools.cache
def _checker() -> crd.Checker:
    return crd.Checker(schemas())


def errors(obj: dict[str, Any]) -> list[str]:
    """Every schema violation of ``obj`` as 'path: message' (empty when valid)."""
    found = _checker().errors(obj)
    if found is None:
        raise KeyError(f"no served schema for {obj.get('apiVersion')} {obj.get('kind')} under "
                       f"{SCHEMAS}")
    return found
