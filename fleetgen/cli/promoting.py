"""The command line's ``promote`` and ``versions``: moving versions between environments as a
spec edit, and the matrix of what each environment runs. Each imports what it runs inside it, as
`fleetgen.cli.app` does."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fleetgen.cli.options import OutOption, SpecOption, folder, format_option, names_of
from fleetgen.cli.output import EXIT_SPEC, _err, _run, _shown
from fleetgen.cli.text import EXIT_CHANGED, EXIT_OK
from fleetgen.errors import UsageError

if TYPE_CHECKING:
    from fleetgen.emit.versions import Row
    from fleetgen.resolver.plan import Plan


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
    allow_downgrade: Annotated[
        bool,
        typer.Option(
            "--allow-downgrade",
            help="Promote a version lower than the one --to runs (where both are exact semver "
            "versions); without it such a promotion is refused.",
        ),
    ] = False,
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
    from fleetgen import scaffold

    def promoted_() -> scaffold.Promoted:
        if branch is not None and dry_run:
            raise UsageError("--branch commits the promotion: not with --dry-run")
        request = scaffold.PromoteRequest(
            tuple(apps or ()), source, target, all_apps, cluster, allow_downgrade
        )
        return scaffold.promote(
            spec,
            request,
            dry_run=dry_run,
            out=folder(out, "--out"),
            branch=branch,
            blast=lambda before, after: _blast(spec, before, after),
        )

    promoted = _run(promoted_, scaffolding=True)

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
        format_option(VersionsFormat, "text, json (docs/versions.schema.json) or markdown."),
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
    plan, rows, findings = _run(lambda: _versions(spec, apps or (), order))
    shown = {
        VersionsFormat.json: versioning.to_json,
        VersionsFormat.markdown: versioning.markdown,
    }.get(output_format, versioning.text)
    typer.echo(shown(plan, rows), nl=False)
    for finding in findings:
        _err(f"order: {finding}")
    raise typer.Exit(EXIT_CHANGED if findings else EXIT_OK)


def _blast(spec: Path, before: str, after: str) -> list[str]:
    """The blast radius of changing ``spec`` from ``before`` to ``after``, as ``diff`` reports
    it; outside a Git repository, why there is none."""
    from fleetgen.diffs import compare, formats
    from fleetgen.diffs.refs import RefError

    try:
        return formats.blast(compare.edited(spec, before, after))
    except RefError as error:
        return [f"# blast radius: not computed ({error})"]


def _versions(
    spec: Path, apps: Sequence[str], check_order: Sequence[str]
) -> tuple[Plan, list[Row], list[str]]:
    """The Plan of ``spec``, the versions rows of ``apps`` (default: every app) and, for
    ``check_order`` (environments, earliest first), where a later one runs a version no earlier
    one runs; an app or environment the spec does not have is refused."""
    from fleetgen.emit import versions as versioning
    from fleetgen.pipeline import api

    plan = api.compile_spec(spec).plan
    unknown = sorted(set(apps) - {app.name for app in plan.fleet.apps})
    if unknown:
        raise UsageError(f"no such app: {', '.join(unknown)}")
    envs = [env.name for env in plan.fleet.environments]
    stray = [env for env in check_order if env not in envs]
    if stray:
        raise UsageError(
            f"--check-order: no such environment: {', '.join(stray)} (known: {', '.join(envs)})"
        )
    rows = versioning.rows(plan, apps or None)
    return plan, rows, versioning.order_findings(rows, check_order)
