"""The flux emitter (in progress: see the issue)."""

from __future__ import annotations

from fleetgen.errors import Problem
from fleetgen.output import OutputFile
from fleetgen.plan import Plan


def check(plan: Plan) -> list[Problem]:
    """Problems of the spec that flux cannot express."""
    return []


def emit(plan: Plan) -> list[OutputFile]:
    """The flux files for the Plan."""
    return []
