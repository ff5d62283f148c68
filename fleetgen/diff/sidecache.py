"""What ``diff`` reads of one ref's Plan, kept in the cache (`fleetgen.cache`) under ``diff/``.

An entry is keyed like the ref's emitted files (`fleetgen.buildcache` ``emitted/``: the compile's
input key) and holds the ref's `blast.Placements`, as ``marshal`` (format 4) writes them. A diff
of a ref whose entry and emitted files are both stored needs no Plan: it does not resolve the
spec. An entry that cannot be read back as this code writes it is a miss.
"""

from __future__ import annotations

import marshal

from fleetgen.cache import Cache
from fleetgen.diff.blast import Placements

SIDES = "diff"


def save(cache: Cache, entry: str, placements: Placements) -> None:
    """Store a ref's placements under ``entry``."""
    cache.put_bytes(SIDES, entry, marshal.dumps([placements.rows, dict(placements.builds_on)], 4))


def load(cache: Cache, entry: str) -> Placements | None:
    """The placements stored under ``entry``; None when absent or damaged."""
    stored = cache.get_bytes(SIDES, entry)
    if stored is None:
        return None
    try:
        rows, builds_on = marshal.loads(stored)
    except (ValueError, TypeError, EOFError):
        return None
    if not isinstance(rows, tuple) or not isinstance(builds_on, dict):
        return None
    return Placements(rows, builds_on)
