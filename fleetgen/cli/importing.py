"""The command line's ``import``: a first fleet.py from an existing Flux or Argo CD repository,
what it could not map on stderr, exit 0 (all mapped), 1 (findings) or 2 (nothing importable, an
error). Presentation only; the work is `fleetgen.importer`'s."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fleetgen.cli.options import folder
from fleetgen.cli.output import _count, _err, _run, _shown
from fleetgen.cli.text import EXIT_CHANGED, EXIT_OK
from fleetgen.errors import UsageError


def import_command(
    directory: Annotated[Path, typer.Argument(help="The repository to import (its root).")] = Path(
        "."
    ),
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the fleet.py it would write; write nothing.")
    ] = False,
) -> None:
    """Adopt an existing Flux or Argo CD repository: write fleet.py at its root from the
    objects it holds, changing no other file. Everything it could not map is listed as
    FILE:LINE: what — what to do (also at the top of fleet.py); it builds the new fleet in a
    scratch folder and reports what it would deploy differently. Exit 0: all mapped; 1: mapped,
    with findings; 2: nothing importable, or an error."""
    from fleetgen import importer

    def imported() -> importer.Imported:
        folder(directory, "DIR")
        if not directory.is_dir():
            raise UsageError(f"{directory}: no such directory (DIR)")
        return importer.import_repo(directory, dry_run=dry_run)

    done = _run(imported, scaffolding=True)
    for finding in done.findings:
        _err(finding.render())
    if dry_run:
        typer.echo(done.text, nl=False)
    else:
        typer.echo(
            f"wrote {_shown(done.spec)}: {done.engine}, {_count(done.clusters, 'cluster')}, "
            f"{_count(done.apps, 'app')}, {_count(len(done.findings), 'finding')}"
        )
        typer.echo("next: review it, then fleetgen build and fleetgen validate")
    raise typer.Exit(EXIT_CHANGED if done.findings else EXIT_OK)
