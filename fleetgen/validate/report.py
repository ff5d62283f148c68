"""The result of ``validate``, as the documented JSON contract (``--format json``).

``docs/validate.schema.json`` is generated from these models (``json_schema()``); a test keeps
it in step. Paths are relative to the directory holding fleet.py (the repo root).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Level = Literal["error", "warning"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Location(_Model):
    """A file relative to the directory holding fleet.py, and a 1-based line when known."""

    path: str
    line: int | None = Field(default=None, ge=1)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


class Finding(_Model):
    """One problem. ``clusters``: every cluster it occurs on (one finding for all of them)."""

    rule: str = Field(description="rule id (fleetgen/policy.py RULES)")
    severity: Level
    message: str
    hint: str = Field(description="how to fix it, one line")
    location: Location | None = Field(
        default=None,
        description="fleet.py:LINE for spec-level findings; the base file of a "
        "rendered object; the emitted file of an emitted object",
    )
    app: str | None = None
    clusters: list[str] = []
    object: str | None = Field(default=None, description='"Kind namespace/name"')
    field: str | None = Field(default=None, description="slash-separated path in the object")

    def text(self) -> str:
        """``object: field: message``, the parts that are known."""
        return ": ".join(part for part in (self.object, self.field, self.message) if part)


class Waived(_Model):
    """A waiver that applied: the findings of ``rule`` it silenced for ``app``, and why."""

    app: str
    rule: str
    reason: str
    location: Location | None = None
    silenced: int = Field(ge=0)


class BuildCounts(_Model):
    """kustomize builds of ``--render``: overlays, distinct contents, run now, from the cache."""

    overlays: int
    distinct: int
    built: int
    cached: int


class ChartCounts(_Model):
    """Chart renders of ``--render``: chart placements, distinct render inputs, rendered now,
    from the cache, and the placements not rendered by reason."""

    placements: int
    distinct: int
    built: int
    cached: int
    not_rendered: dict[str, int] = Field(
        description='"chart NAME VERSION: reason" -> placements not rendered (never passed)'
    )
    ranges: dict[str, str] = Field(
        default_factory=dict,
        description='"chart NAME RANGE" -> the version rendered for a chart version range: '
        "the highest in --charts it allows (each engine resolves it on its own)",
    )


class Summary(_Model):
    """Counts: findings by severity, objects checked against a schema, kinds without one."""

    errors: int
    warnings: int
    emitted_checked: int
    rendered_checked: int
    not_checked: dict[str, int] = Field(description='"apiVersion kind" -> objects')
    builds: BuildCounts | None = None
    charts: ChartCounts | None = None


class Report(_Model):
    """What ``fleetgen validate`` found."""

    format: Literal["fleetgen.validate/v1"] = "fleetgen.validate/v1"
    fleetgen_version: str
    kubernetes_version: str | None = Field(
        description="the Kubernetes schemas rendered objects were checked against (--render)"
    )
    rendered: bool
    findings: list[Finding]
    waived: list[Waived]
    notes: list[str] = Field(
        default_factory=list,
        description="information, never a finding: e.g. a Flux cluster folder that flux "
        "bootstrap has not committed its flux-system/ to yet",
    )
    summary: Summary

    @property
    def exit_code(self) -> int:
        """0 clean or warnings only, 1 findings at error severity."""
        return 1 if self.summary.errors else 0


def json_schema() -> str:
    """The JSON Schema of ``Report``, as committed in docs/validate.schema.json."""
    schema: dict[str, Any] = Report.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
