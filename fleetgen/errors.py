"""What fleetgen reports to the user: problems as ``fleet.py:LINE: message``, and the errors
every command may raise, which the command line turns into messages and exit codes in one place.

``FleetgenError`` is the root: anything that derives from it is reported as its text on stderr,
without a traceback, with exit code 2. ``UsageError``: a bad argument or path (one line naming
it). ``SpecError``: the spec cannot be compiled (every problem, then a summary).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
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


def in_order(problems: Iterable[Problem]) -> list[Problem]:
    """``problems`` by file, line and message: the order they are reported in."""
    return sorted(problems, key=lambda p: (p.file, p.line, p.message))


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


class FleetgenError(Exception):
    """An error fleetgen reports as its message (exit 2), never as a traceback."""


class UsageError(FleetgenError, ValueError):
    """A command-line value or path fleetgen cannot use; the message names it, on one line."""


class SpecError(FleetgenError):
    """The spec cannot be compiled; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(p.render() for p in problems))
        self.problems = problems

    @property
    def summary(self) -> str:
        """The line shown after the problems."""
        return f"{len(self.problems)} problem(s); nothing was written"
