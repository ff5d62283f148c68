"""The command line's presentation helpers: `_run`, the one place where a fleetgen or
file-system error becomes lines on stderr and exit code 2, the exit codes, colour, spinner and
progress rules, and how paths and messages are shown. Light imports only (rich inside
`_working` and `_progress`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import typer

from fleetgen.cli.text import count, err, shown
from fleetgen.errors import FleetgenError, SpecError
from fleetgen.util.progress import SILENT, Progress

if TYPE_CHECKING:
    from rich.live import Live
    from rich.spinner import Spinner

EXIT_SPEC = 2
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


@contextmanager
def _progress(what: str, *, quiet: bool = False, lines: bool = True) -> Iterator[Progress]:
    """Where long work reports its phases (`fleetgen.util.progress`), on stderr: nothing with
    ``quiet``; on a terminal a spinner with the current phase and its counts (built, cached,
    left); off a terminal (CI) one line per phase when ``lines`` (the work is long enough for a
    log to say where it is). No colour in either: NO_COLOR and FORCE_COLOR speak of colour, not
    of progress, as for `_working`."""
    if quiet:
        yield SILENT
        return
    if sys.stderr.isatty():  # before importing rich (~40 ms)
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        console = Console(stderr=True)
        if console.is_terminal:
            spinner = Spinner("dots", text=what)
            with Live(spinner, console=console, transient=True, refresh_per_second=12.5) as live:
                yield _Counts(what, spinner, live)
            return
    yield _Lines(what) if lines else SILENT


class _Lines:
    """One line on stderr as each phase starts, with its counts (`_progress` off a terminal)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def phase(
        self, name: str, *, unit: str = "", verb: str = "done", total: int = 0, cached: int = 0
    ) -> None:
        counts = f": {total} {unit}, {cached} cached, {total - cached} to go" if unit else ""
        print(f"{self.what}: {name}{counts}", file=sys.stderr, flush=True)

    def advance(self) -> None:
        """Off a terminal, a phase says its counts once, as it starts."""


class _Counts:
    """The current phase and its counts in the spinner's text (`_progress` on a terminal)."""

    def __init__(self, what: str, spinner: Spinner, live: Live) -> None:
        self.what, self.spinner, self.live = what, spinner, live
        self.name, self.unit, self.verb = "", "", ""
        self.total = self.cached = self.done = 0

    def phase(
        self, name: str, *, unit: str = "", verb: str = "done", total: int = 0, cached: int = 0
    ) -> None:
        if self.unit:  # the counts the last phase ended with, however fast it went
            self.live.refresh()
        self.name, self.unit, self.verb = name, unit, verb
        self.total, self.cached, self.done = total, cached, 0
        self._show()
        self.live.refresh()

    def advance(self) -> None:
        self.done += 1
        self._show()  # the next refresh shows it: a burst of fast builds draws no more often

    def _show(self) -> None:
        text = f"{self.what}: {self.name}"
        if self.unit:
            left = self.total - self.cached - self.done
            text += f": {self.done} {self.verb}, {self.cached} cached, {left} left"
        self.spinner.update(text=text)


_shown, _count, _err = shown, count, err  # the command line's names for `fleetgen.cli.text`'s
