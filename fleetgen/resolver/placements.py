"""A Plan's placements as plain rows: what ``diff`` reads of a compile (`fleetgen.diffs.blast`),
cheap to keep with a stored compile (`fleetgen.pipeline.incremental`) at 100,000s of placements."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fleetgen.resolver.plan import Plan

# one placement: app, cluster, env, overlay, engine, namespace (None: App(namespace=None)),
# whether its sync is manual (not automated; on Flux: suspended, `Placement.suspended`)
Row = tuple[str, str, str, str, str, str | None, bool]


@dataclass(frozen=True, slots=True)
class Placements:
    """A row per placement, and the env overlay each cluster overlay builds on (cluster overlay
    path -> env overlay path)."""

    rows: tuple[Row, ...]
    builds_on: Mapping[str, str]

    @classmethod
    def of(cls, plan: Plan) -> Placements:
        """The placements of ``plan``."""
        return cls(
            tuple(
                (
                    p.app,
                    p.cluster,
                    p.env,
                    p.overlay,
                    p.engine,
                    p.namespace,
                    not p.settings.sync.automated,
                )
                for p in plan.placements
            ),
            {overlay.path: overlay.env_overlay.path for overlay in plan.cluster_overlays},
        )
