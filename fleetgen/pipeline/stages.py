"""The compile, stage by stage: what happens to a loaded spec before its files are written.

    load ─▶ resolve ─▶ stamp charts ─▶ check ─▶ emit ─▶ settle ─▶ write
            (here, in `compile_stages`; load before it and write after it are `api.build`'s)

- **resolve** (`fleetgen.resolver`): every cross-reference checked, the Plan computed.
- **stamp charts** (`fleetgen.settle.chartstamps`): each in-repo chart's version and file digest;
  a chart whose files changed without a version bump is a problem (Flux upgrades on a version
  change only).
- **check**: the emitters' checks of the Plan (what an engine cannot express) and those stamps,
  every problem at once.
- **emit** (`fleetgen.emit`): the files of each emitter, as data.
- **settle** (`fleetgen.settle`): what the builds before need of this one — a HelmRelease moving
  to a Kustomization of its own one step at a time (moves), what a removal keeps until the
  controllers are done (draining), an Argo CD instance change refused until it can orphan
  (handover) — and the record to commit.

The resolver and the emitters are imported when a compile runs: a no-op build loads neither.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from fleetgen.errors import SpecError, in_order

if TYPE_CHECKING:
    from fleetgen.inputs.landing import Landing
    from fleetgen.inputs.load import Loaded
    from fleetgen.pipeline.incremental import Emitted
    from fleetgen.resolver.plan import Plan


def compile_stages(
    loaded: Loaded, without: Collection[str] = (), landing: Landing | None = None
) -> tuple[Plan, Emitted]:
    """The Plan of ``loaded`` and its files by emitter (all but those named ``without``, whose
    checks still run), for files landing as ``landing`` says (default: in the fleet's
    output_dir), settled against the committed record. Raises SpecError with every problem of
    resolve, the checks or settle."""
    from fleetgen import emit as emitters
    from fleetgen.resolver import resolve
    from fleetgen.settle.chartstamps import chart_stamps
    from fleetgen.settle.draining import settle

    plan = resolve(loaded.fleet, loaded.workspace, landing)
    stamps, stale = chart_stamps(loaded)
    problems = in_order([*emitters.check(plan), *stale])
    if problems:
        raise SpecError(problems)
    emitted = emitters.emit_each(plan, without)
    settled = settle(loaded, emitted, plan.placements, plan.fleet.cascades_anywhere, stamps)
    return plan, [(name, files) for name, files in settled if name not in without]
