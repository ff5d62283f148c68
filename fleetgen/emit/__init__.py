"""Emitters: one module per target behind one Protocol, and the registry that picks them.

An emitter translates the Plan; it never decides placement. Its ``check`` reports what its
engine cannot express (engine-specific spec errors), before anything is emitted; its
``warnings`` what it accepts but cannot fully honour.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from fleetgen.emit import argocd, fleetmap, flux, overlays, units
from fleetgen.errors import Problem, in_order
from fleetgen.interface import project
from fleetgen.model import Engine
from fleetgen.output import OutputFile
from fleetgen.plan import Plan


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


def emitters_for(plan: Plan) -> list[tuple[Emitter, Plan]]:
    """The emitters the Plan's fleet runs, in a fixed order, each with the Plan it translates."""
    engines: list[Engine] = sorted(set(plan.fleet.engines))
    return [
        *((emitter, plan) for emitter in ALWAYS.values()),
        *((ENGINES[name], plan.on(name)) for name in engines),
    ]


def check(plan: Plan) -> list[Problem]:
    """Every engine-specific problem of the Plan, in report order."""
    return in_order(
        problem for emitter, part in emitters_for(plan) for problem in emitter.check(part)
    )


def warnings(plan: Plan) -> list[Problem]:
    """Every engine-specific warning of the Plan."""
    return [warning for emitter, part in emitters_for(plan) for warning in emitter.warnings(part)]


def emit(plan: Plan, without: Collection[Emitter] = ()) -> list[OutputFile]:
    """Every file the Plan compiles to, but those of the emitters ``without``."""
    return [file for _, files in emit_each(plan, without) for file in files]


def emit_each(
    plan: Plan, without: Collection[Emitter] = (), projected: Plan | None = None
) -> list[tuple[str, list[OutputFile]]]:
    """`emit`, the files of each emitter under its name: made of per-app units
    (`fleetgen.emit.units`) where the fleet's layout allows; ``projected``: the Plan's
    `fleetgen.interface.project`, when the caller has it."""
    names = [name_of(emitter) for emitter, _ in emitters_for(plan) if emitter not in without]
    if units.supported(plan):
        made = units.Units(plan)
        return units.emit_each(
            plan,
            {app: made.of(app) for app in plan.by_app()},
            names,
            project(plan) if projected is None else projected,
        )
    return [
        (name_of(emitter), emitter.emit(part))
        for emitter, part in emitters_for(plan)
        if emitter not in without
    ]


def names(plan: Plan) -> list[str]:
    """The names of the emitters the Plan's fleet runs, in `emitters_for` order."""
    return [name_of(emitter) for emitter, _ in emitters_for(plan)]


def by_name(name: str) -> Emitter:
    """The emitter the registry names ``name``."""
    return {**ALWAYS, **ENGINES}[name]


def name_of(emitter: Emitter) -> str:
    """The registry's name of ``emitter``."""
    return next(name for name, known in {**ALWAYS, **ENGINES}.items() if known is emitter)
