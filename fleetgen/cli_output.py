"""The command line's presentation helpers: `_run`, the one place where a fleetgen or
file-system error becomes lines on stderr and exit code 2, the exit codes, colour and spinner
rules, and how paths and messages are shown. Light imports only (rich inside `_working`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import typer

from fleetgen.errors import FleetgenError, SpecError

EXIT_OK, EXIT_CHANGED, EXIT_SPEC = 0, 1, 2
_T = TypeVar("_T")


def _run(command: Callable[[], _T], *, scaffolding: bool = False) -> _T:
    """Run ``command``; a fleetgen or file-system error is printed (exit 2), never a traceback.
    ``scaffolding`` commands say that nothing was written."""
    try:
        return command()
    except (FleetgenError, OSError) as error:
        lines = _error_lines(error)
        if scaffolding and not isinstance(error, SpecError):
            lines = (
                [f"{lines[0]}; nothing was written"]
                if len(lines) == 1
                else [*lines, "nothing was written"]
            )
        for line in lines:
            _err(line)
        raise typer.Exit(EXIT_SPEC) from None


def _error_lines(error: FleetgenError | OSError) -> list[str]:
    if isinstance(error, SpecError):
        return [*(problem.render() for problem in error.problems), error.summary]
    if isinstance(error, OSError):
        where = " -> ".join(str(name) for name in (error.filename, error.filename2) if name)
        what = error.strerror or str(error)
        return [f"{where}: {what}" if where else what]
    return str(error).splitlines() or [type(error).__name__]


def _colour(flag: bool | None) -> bool:
    """Whether stdout gets colours: ``--color``/``--no-color`` decide; else a non-empty
    ``NO_COLOR`` turns colour off (no-color.org), a non-empty ``FORCE_COLOR`` turns it on off a
    terminal (NO_COLOR wins over it); with neither, colour only when stdout is a terminal."""
    if flag is not None:
        return flag
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


@contextmanager
def _working(what: str) -> Iterator[None]:
    """A spinner on stderr while long work runs, only when stderr is a terminal (quiet in CI,
    whatever FORCE_COLOR says: that asks for colour, not for progress)."""
    if not sys.stderr.isatty():  # before importing rich (~40 ms), which a no-op build skips
        yield
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not (sys.stderr.isatty() and console.is_terminal):
        yield
        return
    with console.status(what):
        yield


def _shown(path: Path) -> str:
    resolved = path.resolve()
    return str(resolved.relative_to(Path.cwd()) if resolved.is_relative_to(Path.cwd()) else path)


def _count(number: int, noun: str) -> str:
    """``1 placement``, ``2 placements``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _err(message: str) -> None:
    print(message, file=sys.stderr)
