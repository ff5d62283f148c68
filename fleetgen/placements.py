"""What ``diff`` reads of one compile's Plan: its placements, kept in the cache under ``diff/``.

``build`` and ``build --check`` store them with the files of their compile, and ``diff`` with
each ref it compiles.

A `Placements` holds a row per placement (app, cluster, env, overlay, engine) and the env overlay
each cluster overlay builds on: all `blast.Facts` and the derived Applications need. Its cache
entry (`fleetgen.cache`) is keyed like the ref's stored compile (the compile's input key:
`fleetgen.unitcache`, `fleetgen.buildcache` ``emitted/``), as ``marshal`` (format 4) writes it,
so a diff of a ref whose placements and compile are both stored does not resolve the spec. An
entry that cannot be read back as this code writes it is a miss.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from dataclasses import dataclass

from fleetgen.cache import Cache
from fleetgen.plan import Plan

NAMESPACE = "diff"  # the cache folder of these entries
Row = tuple[str, str, str, str, str]  # one placement: app, cluster, env, overlay, engine


@dataclass(frozen=True, slots=True)
class Placements:
    """A ref's placements as plain tuples (cheap at 100,000s): a row per placement, and the env
    overlay each cluster overlay builds on (cluster overlay path -> env overlay path)."""

    rows: tuple[Row, ...]
    builds_on: Mapping[str, str]

    @classmethod
    def of(cls, plan: Plan) -> Placements:
        """The placements of ``plan``."""
        return cls(
            tuple((p.app, p.cluster, p.env, p.overlay, p.engine) for p in plan.placements),
            {overlay.path: overlay.env_overlay.path for overlay in plan.cluster_overlays},
        )

    @classmethod
    def load(cls, cache: Cache, entry: str) -> Placements | None:
        """The placements stored under ``entry``; None when absent or damaged."""
        stored = cache.get_bytes(NAMESPACE, entry)
        if stored is None:
            return None
        try:
            rows, builds_on = marshal.loads(stored)
        except (ValueError, TypeError, EOFError):
            return None
        if not isinstance(rows, tuple) or not isinstance(builds_on, dict):
            return None
        return cls(rows, builds_on)

    def dump(self) -> bytes:
        """These placements as `save` stores them."""
        return marshal.dumps([self.rows, dict(self.builds_on)], 4)

    def save(self, cache: Cache, entry: str) -> None:
        """Store these placements under ``entry``."""
        save_dumped(cache, entry, self.dump())


def save_dumped(cache: Cache, entry: str, dumped: bytes) -> None:
    """Store placements under ``entry`` as `Placements.dump` wrote them."""
    cache.put_bytes(NAMESPACE, entry, dumped)
