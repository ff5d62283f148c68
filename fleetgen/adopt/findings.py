"""What import could not map, or maps only with the user's help: ``file:LINE: what — what to
do``, printed by the command and written as comments at the top of fleet.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Finding:
    """One thing not mapped (or mapped with a placeholder), at a repo-relative file and line."""

    file: str
    line: int
    what: str
    todo: str

    def render(self) -> str:
        """``file:LINE: what — what to do`` (no line when unknown)."""
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.what} — {self.todo}"


def in_order(findings: Iterable[Finding]) -> list[Finding]:
    """Each finding once, by file, line and text."""
    return sorted(set(findings))
