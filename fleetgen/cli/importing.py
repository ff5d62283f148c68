"""The command line's ``import``: a first fleet.py from an existing Flux or Argo CD repository
(or, with ``--engine``, a repository of Kustomize overlays), what it could not map on stderr,
exit 0 (all mapped), 1 (findings) or 2 (nothing importable, an error). Presentation only, and the
questions on a terminal; the work is `fleetgen.importer`'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fleetgen.cli.options import folder
from fleetgen.cli.output import _count, _err, _run, _shown
from fleetgen.cli.prompts import choose, on_a_terminal
from fleetgen.cli.text import EXIT_CHANGED, EXIT_OK
from fleetgen.errors import UsageError

if TYPE_CHECKING:
    from fleetgen.importer import ImportRequest


def import_command(
    directory: Annotated[
        Path, typer.Argument(metavar="DIR", help="The repository to import (its root).")
    ] = Path("."),
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the fleet.py it would write; write nothing.")
    ] = False,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            metavar="argocd|flux",
            help="A repository of Kustomize overlays without engine objects: the engine that is "
            "to deploy them (each overlay folder becomes a layer of its app).",
        ),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            metavar="NAME=FOLDER",
            help="With --engine: the overlay folders named FOLDER are environment NAME's "
            "(repeatable).",
        ),
    ] = None,
    cluster: Annotated[
        list[str] | None,
        typer.Option(
            "--cluster",
            metavar="[ENV/]NAME=FOLDER",
            help="With --engine: the overlay folders named FOLDER are cluster NAME's, in "
            "environment ENV (default: the environment word in NAME, else NAME) (repeatable).",
        ),
    ] = None,
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
        request = importer.ImportRequest(
            directory, dry_run, engine, tuple(env or ()), tuple(cluster or ())
        )
        while True:
            try:
                return importer.import_repo(request)
            except importer.FoldersOpen as open_:
                if not on_a_terminal():
                    raise
                request = _answered(request, open_.folders)

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


def _answered(
    request: ImportRequest, folders: Sequence[tuple[str, tuple[str, ...]]]
) -> ImportRequest:
    """``request`` with what the user says each open overlay folder is, asked one by one."""
    from fleetgen.importer.draft import env_name

    envs, clusters = list(request.envs), list(request.clusters)
    for name, paths in folders:
        shown = ", ".join(paths[:3]) + (", …" if paths[3:] else "")
        what = choose(f"What is the overlay folder {name!r} ({shown})?", ["environment", "cluster"])
        if what == "environment":
            envs.append(f"{name}={name}")
        else:
            env = str(typer.prompt(f"The environment of cluster {name!r}", default=env_name(name)))
            clusters.append(f"{env.strip()}/{name}={name}")
    return replace(request, envs=tuple(envs), clusters=tuple(clusters))
