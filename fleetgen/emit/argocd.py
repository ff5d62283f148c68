"""The argocd emitter (in progress: see the issue)."""

from __future__ import annotations

from fleetgen.errors import Problem
from fleetgen.output import OutputFile
from fleetgen.plan import Plan


def check(plan: Plan) -> list[Problem]:
    """Problems of the spec that argocd cannot express."""
    return []


def emit(plan: Plan) -> list[OutputFile]:
    """The argocd files for the Plan."""
    return []
