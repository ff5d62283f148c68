"""How long work (``validate --render``, ``diff --render``) reports its progress: the phases it
goes through, and in a counted phase its units of work: how many there are, how many are read
from the cache, and each one done. Work only calls a `Progress`; what the user sees is the
command line's choice (`fleetgen.cli.output`): counts on a terminal, a line per phase otherwise,
nothing with ``--quiet``.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """What long work reports."""

    def phase(
        self, name: str, *, unit: str = "", verb: str = "done", total: int = 0, cached: int = 0
    ) -> None:
        """A phase starts. Counted (``unit``, e.g. "overlays"): ``total`` units, ``cached`` of
        them read from the cache, each of the others `advance` once when ``verb`` (e.g.
        "built")."""
        ...

    def advance(self) -> None:
        """One more unit of the current phase is done."""
        ...


class _Silent:
    """Progress nobody is shown."""

    def phase(
        self, name: str, *, unit: str = "", verb: str = "done", total: int = 0, cached: int = 0
    ) -> None:
        """Nothing to show."""

    def advance(self) -> None:
        """Nothing to show."""


SILENT: Progress = _Silent()
