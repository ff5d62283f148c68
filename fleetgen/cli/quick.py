"""The console script's entry point. A bare ``fleetgen build`` or ``fleetgen build --check``
whose output folder provably holds the build of its inputs — what a pre-commit hook and an
unchanged CI run ask — is answered here, before the command line (typer, and the pydantic
adapters it builds to parse arguments) is imported: `fleetgen.pipeline.api.recorded`. Everything
else,
and any build that must compile, goes to the command line (`fleetgen.cli.app`), which also reports
any error: this path only ever answers "up to date".

The collector is off while the command runs and what the process holds is frozen as it ends
(`fleetgen.cli.collector`): here only, never in the library."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from fleetgen.cli import collector, locate
from fleetgen.errors import FleetgenError

QUICK = (["build"], ["build", "--check"])


def main() -> None:
    """Console-script entry point (``fleetgen``, ``python -m fleetgen``)."""
    with collector.command():
        code = answered(sys.argv[1:])
        if code is not None:
            raise SystemExit(code)
        from fleetgen.cli.app import main as command_line

        command_line()


def answered(args: Sequence[str]) -> int | None:
    """The exit code of ``args`` when they are a bare build or check that is up to date (its
    output printed as the command line prints it), else None."""
    if list(args) not in QUICK:
        return None
    found = locate.find_spec(Path.cwd())
    if found is None:
        return None
    from fleetgen.cli import text as cli_text
    from fleetgen.pipeline import api

    try:
        results = api.recorded(Path(os.path.relpath(found)))
    except (FleetgenError, OSError):
        return None  # the command line reports it
    if results is None:
        return None
    build, check = results
    return cli_text.print_check(check) if "--check" in args else cli_text.print_build(build)
