"""Emitters: pure functions ``Plan -> list[OutputFile]``, one module per target, and a registry."""

from __future__ import annotations

from collections.abc import Callable

from fleetgen.emit import overlays
from fleetgen.output import OutputFile
from fleetgen.plan import Plan

Emitter = Callable[[Plan], list[OutputFile]]

# Engine-neutral emitters run for every fleet; engine emitters run when Fleet.engines names them.
ALWAYS: dict[str, Emitter] = {"overlays": overlays.emit}
ENGINES: dict[str, Emitter] = {}


def emitters_for(engines: list[str]) -> dict[str, Emitter]:
    """The emitters a fleet with these ``engines`` runs, by name."""
    return ALWAYS | {name: ENGINES[name] for name in engines if name in ENGINES}


def emit(plan: Plan) -> list[OutputFile]:
    """Every file the Plan compiles to."""
    files: list[OutputFile] = []
    for emitter in emitters_for(list(plan.fleet.engines)).values():
        files.extend(emitter(plan))
    return files
