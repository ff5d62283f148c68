"""Problems reported to the user as ``fleet.py:LINE: message``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the spec, at a file and line when known."""

    message: str
    file: str = ""
    line: int = 0

    def render(self, default_file: str = "fleet.py", severity: str = "") -> str:
        """``file:line: [severity: ]message``, the file relative to the current directory."""
        name = _display(self.file) if self.file else default_file
        where = f"{name}:{self.line}" if self.line else name
        return f"{where}: {severity}: {self.message}" if severity else f"{where}: {self.message}"


class HasOrigin(Protocol):
    """A spec object that remembers the (file, line) of its constructor call."""

    @property
    def origin(self) -> tuple[str, int]: ...


def at(where: HasOrigin, message: str, fallback: HasOrigin) -> Problem:
    """A Problem at the constructor call of ``where`` (of ``fallback`` for a default)."""
    file, line = where.origin
    if not file:
        file, line = fallback.origin
    return Problem(message, file, line)


def _display(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


class SpecError(Exception):
    """The spec cannot be compiled; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(p.render() for p in problems))
        self.problems = problems
