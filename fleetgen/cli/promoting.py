"""The command line's ``promote`` and ``versions``: moving versions between environments as a
spec edit, and the matrix of what each environment runs. Each imports what it runs inside it, as
`fleetgen.cli.app` does."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from fleetgen.cli import commands
from fleetgen.cli.options import OutOption, SpecOption, names_of
from fleetgen.cli.output import EXIT_SPEC, _err, _run, _shown
from fleetgen.cli.text import EXIT_CHANGED, EXIT_OK


def promote(
    source: Annotated[
        str,
        typer.Option(
            "--from",
            metavar="ENV",
            help="The environment whose versions are promoted.",
            autocompletion=names_of("environment"),
        ),
    ],
    target: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="ENV",
            help="The environment that gets them (its per_env layer in fleet.py).",
            autocompletion=names_of("environment"),
        ),
    ],
    apps: Annotated[
        list[str] | None,
        typer.Argument(metavar="APP", help="The apps to promote.", autocompletion=names_of("app")),
    ] = None,
    all_apps: Annotated[
        bool, typer.Option("--all", help="Every app that runs in both environments.")
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            metavar="NAME",
            help="Read the versions from this cluster of --from where its clusters disagree.",
            autocompletion=names_of("cluster"),
        ),
    ] = None,
    branch: Annotated[
        str | None,
        typer.Option(
            "--branch",
            metavar="NAME",
            help="Commit fleet.py and output/ on this new branch (switched to), the summary "
            "the commit message; without it nothing is committed.",
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the fleet.py diff and the summary; write nothing.",
        ),
    ] = False,
) -> None:
    """Promote apps from one environment to another: the image tags and digests and the chart
    versions --from runs are written into the apps' per_env[--to] in fleet.py (only what
    differs), validated, and output/ is rebuilt; then the summary: each version from → to, the
    clusters it reaches in rollout order, the blast radius. Values and config are not promoted:
    they are environment-specific by design."""
    promoted = _run(
        lambda: commands.promote(
            spec,
            apps or (),
            source=source,
            target=target,
            all_apps=all_apps,
            cluster=cluster,
            dry_run=dry_run,
            branch=branch,
            out=out,
        ),
        scaffolding=True,
    )
    from fleetgen import scaffold

    added = promoted.added
    if added is not None and not added.written:
        typer.echo(added.spec_diff, nl=False)
    typer.echo(scaffold.summary(promoted), nl=False)
    if added is None:
        return
    verb = "changed" if added.written else "would change"
    typer.echo(f"{_shown(added.compiled.out_dir)}: {len(added.output_changes)} file(s) {verb}")
    if promoted.uncommitted is not None:
        _err(f"{promoted.uncommitted}; fleet.py and output/ are written, not committed")
        raise typer.Exit(EXIT_SPEC)
    if promoted.commit is not None:
        typer.echo(
            f"committed {promoted.commit[:12]} on branch {branch}: push it and open a pull request"
        )


class VersionsFormat(StrEnum):
    """Output formats of ``versions``."""

    text = "text"
    json = "json"
    markdown = "markdown"


def versions(
    apps: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="APP",
            help="The apps to show (default: all).",
            autocompletion=names_of("app"),
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    output_format: Annotated[
        VersionsFormat,
        typer.Option("--format", help="text, json (docs/versions.schema.json) or markdown."),
    ] = VersionsFormat.text,
    check_order: Annotated[
        str | None,
        typer.Option(
            "--check-order",
            metavar="ENV,ENV,...",
            help="Exit 1 where an environment runs an image or chart version that none "
            "before it in this list runs (a fix that skipped one), naming app and image.",
        ),
    ] = None,
) -> None:
    """The image and chart versions each app runs, by environment (and cluster where they
    differ), marking where an environment differs from the one before it."""
    from fleetgen.emit import versions as versioning

    order = [env.strip() for env in (check_order or "").split(",") if env.strip()]
    plan, rows, findings = _run(lambda: commands.versions(spec, apps or (), order))
    shown = {
        VersionsFormat.json: versioning.to_json,
        VersionsFormat.markdown: versioning.markdown,
    }.get(output_format, versioning.text)
    typer.echo(shown(plan, rows), nl=False)
    for finding in findings:
        _err(f"order: {finding}")
    raise typer.Exit(EXIT_CHANGED if findings else EXIT_OK)
