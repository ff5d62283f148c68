"""The emitter registry: the Protocol every emitter provides, the emitters each fleet runs
(`ALWAYS`, `ENGINES`) and the functions that run them over a Plan."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from fleetgen.emit import argocd, fleetmap, flux, overlays
from fleetgen.errors import Problem, in_order
from fleetgen.model import Engine
from fleetgen.resolver.plan import Plan
from fleetgen.write.output import OutputFile


class Emitter(Protocol):
    """What every emitter module provides."""

    def check(self, plan: Plan) -> list[Problem]:
        """Problems of the spec that this target cannot express."""
        ...

    def warnings(self, plan: Plan) -> list[Problem]:
        """What the spec asks for that this target cannot honour or that is risky."""
        ...

    def emit(self, plan: Plan) -> list[OutputFile]:
        """The files this target needs for the Plan."""
        ...


# Engine-neutral emitters run for every fleet and see every placement; an engine emitter runs
# when Fleet.engines names it and sees only the placements its engine reconciles.
ALWAYS: dict[str, Emitter] = {"overlays": overlays, "fleetmap": fleetmap}
ENGINES: dict[str, Emitter] = {"argocd": argocd, "flux": flux}


def emitters_for(plan: Plan) -> list[tuple[str, Emitter, Plan]]:
    """The emitters the Plan's fleet runs, in a fixed order: each one's registry name, the
    emitter and the Plan it translates."""
    engines: list[Engine] = sorted(set(plan.fleet.engines))
    return [
        *((name, emitter, plan) for name, emitter in ALWAYS.items()),
        *((name, ENGINES[name], plan.on(name)) for name in engines),
    ]


def check(plan: Plan) -> list[Problem]:
    """Every engine-specific problem of the Plan, in report order."""
    return in_order(
        problem for _, emitter, part in emitters_for(plan) for problem in emitter.check(part)
    )


def warnings(plan: Plan) -> list[Problem]:
    """Every engine-specific warning of the Plan."""
    return [
        warning for _, emitter, part in emitters_for(plan) for warning in emitter.warnings(part)
    ]


def emit(plan: Plan) -> list[OutputFile]:
    """Every file the Plan compiles to."""
    return [file for _, files in emit_each(plan) for file in files]


def emit_each(plan: Plan, without: Collection[str] = ()) -> list[tuple[str, list[OutputFile]]]:
    """The files the Plan compiles to, under each emitter's registry name, but those of the
    emitters named ``without``."""
    return [
        (name, emitter.emit(part))
        for name, emitter, part in emitters_for(plan)
        if name not in without
    ]
