"""The command line: typer commands that parse their arguments, call the API function of the
command (the pipeline's `fleetgen.pipeline.api`, or the feature's) and present its result.

Each calls its API function through `_run`, the one place where errors become messages and exit
codes (DESIGN.md §4): a `fleetgen.errors.FleetgenError` or an ``OSError`` is printed without a
traceback and exits 2. `_run` and the other presentation helpers are in `fleetgen.cli.output`,
``--spec``/``--out`` and the checks of paths in `fleetgen.cli.options`, ``init`` and ``add`` in
`fleetgen.cli.scaffolding`, ``promote`` and ``versions`` in `fleetgen.cli.promoting`.

Start-up is kept short (``--version``, ``--help`` and each TAB of shell completion pay it): this
module imports typer and fleetgen's light modules only; each command imports the pipeline or the
feature it runs inside its function (benchmarks/startup.py).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fleetgen.cli.importing import import_command
from fleetgen.cli.options import (
    OutOption,
    PlainHelp,
    SpecOption,
    folder,
    format_option,
    names_of,
    writable_file,
)
from fleetgen.cli.output import _colour, _progress, _run, _working
from fleetgen.cli.promoting import promote, versions
from fleetgen.cli.scaffolding import add_group, init
from fleetgen.cli.text import EXIT_CHANGED, EXIT_OK, print_build, print_check
from fleetgen.errors import UsageError
from fleetgen.version import VERSION

if TYPE_CHECKING:
    from fleetgen.diffs.report import Report
    from fleetgen.util.progress import Progress

# `diff --max-chars`'s default: fleetgen.diffs.formats.DEFAULT_MAX_CHARS (a test holds them equal),
# not imported here, as the diff package loads rich and Jinja2.
DIFF_MAX_CHARS = 60_000

# Plain (click-style) help: typer's rich help shows every flag as taking a value (`--check <bool>`).
app = typer.Typer(
    cls=PlainHelp,
    add_completion=True,
    no_args_is_help=True,
    rich_markup_mode=None,
    help=f"fleetgen {VERSION}: compile a typed fleet spec (fleet.py) into Argo CD, "
    "Flux and kustomize files under output/.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"fleetgen {VERSION}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the fleetgen version and exit.",
        ),
    ] = False,
) -> None:
    """fleetgen: one typed source of truth for a Kubernetes fleet."""


@app.command()
def build(
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; exit 1 if output/ differs from a fresh build."
        ),
    ] = False,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache", help="Compile everything, trusting nothing in output/.fleetgen/cache/."
        ),
    ] = False,
    drained: Annotated[
        list[str] | None,
        typer.Option(
            "--drained",
            metavar="NAME",
            help="A draining removal the controllers are done with (output/README.md lists "
            "them): stop keeping what it needed. Repeat for several.",
        ),
    ] = None,
    all_drained: Annotated[
        bool,
        typer.Option("--all-drained", help="Like --drained, for everything that drains."),
    ] = False,
) -> None:
    """Compile the spec and write output/ (or, with --check, verify it is up to date).

    A removal in cascade mode keeps what its deletion still needs (a cluster's registration, a
    project's destinations, a hub spoke's kubeconfig), annotated fleetgen.io/draining, until
    --drained NAME says the controllers are done (docs/draining.md).
    """
    use_cache = not no_cache
    if check and (drained or all_drained):
        raise typer.BadParameter("--drained and --all-drained write output: not with --check")
    raise typer.Exit(
        _run(
            lambda: (
                _check(spec, out, use_cache)
                if check
                else _build(spec, out, use_cache, drained or [], all_drained)
            )
        )
    )


def _build(
    spec: Path, out: Path | None, use_cache: bool, drained: list[str], all_drained: bool
) -> int:
    from fleetgen.pipeline import api

    folder(out, "--out")
    with _working(f"building {spec}"):
        result = api.build(spec, out, use_cache=use_cache, drained=drained, all_drained=all_drained)
    return print_build(result)


def _check(spec: Path, out: Path | None, use_cache: bool) -> int:
    from fleetgen.pipeline import api

    folder(out, "--out")
    with _working(f"checking {spec}"):
        result = api.check(spec, out, use_cache=use_cache)
    return print_check(result)


# Progress of long work on stderr: counts on a terminal, a line per phase of --render otherwise.
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        help="Show no progress on stderr (on a terminal: the current phase and its counts; "
        "otherwise, with --render: a line per phase).",
    ),
]


class ValidateFormat(StrEnum):
    """Output formats of ``validate``."""

    text = "text"
    json = "json"
    sarif = "sarif"


@app.command()
def validate(
    spec: SpecOption = Path("fleet.py"),
    crds: Annotated[
        list[Path] | None,
        typer.Option(
            "--crds",
            metavar="PATH",
            help="A CRD file or directory to check emitted objects against (repeatable; "
            "CRD files in the repo are found as well).",
        ),
    ] = None,
    render: Annotated[
        bool,
        typer.Option(
            "--render",
            help="Also kustomize-build every overlay and render every chart app "
            "(cached under output/.fleetgen/cache/) and check the rendered objects: "
            "Kubernetes and CRD schemas, policy rules, ownership.",
        ),
    ] = False,
    charts: Annotated[
        Path | None,
        typer.Option(
            "--charts",
            metavar="DIR",
            help="With --render: a local chart cache holding NAME-VERSION.tgz (as "
            "`helm pull --version VERSION -d DIR` writes it) for charts from "
            "repositories; without it they are counted as not rendered.",
        ),
    ] = None,
    k8s_version: Annotated[
        str | None,
        typer.Option(
            "--k8s-version",
            metavar="VERSION",
            help="Kubernetes minor whose schemas rendered objects are checked "
            "against, e.g. 1.33 (default: the newest shipped).",
        ),
    ] = None,
    output_format: Annotated[
        ValidateFormat,
        format_option(
            ValidateFormat, "text, json (docs/validate.schema.json) or sarif (SARIF 2.1.0)."
        ),
    ] = ValidateFormat.text,
    quiet: QuietOption = False,
) -> None:
    """Check the spec, the emitted objects against schemas and their contracts, and (--render)
    what the overlays render. Exit 0 clean or warnings only, 1 errors, 2 spec or usage error.
    Writes nothing but its cache."""
    from fleetgen import validate as validation
    from fleetgen.validate import formats as validate_formats

    with _progress("fleetgen validate", quiet=quiet, lines=render) as progress:
        report = _run(
            lambda: validation.validate(
                spec,
                crds=crds or (),
                render=render,
                k8s_version=k8s_version,
                charts=charts,
                progress=progress,
            )
        )
    shown = {
        ValidateFormat.json: validate_formats.to_json,
        ValidateFormat.sarif: validate_formats.sarif,
    }.get(output_format, validate_formats.text)
    typer.echo(shown(report), nl=False)
    raise typer.Exit(report.exit_code)


class DiffFormat(StrEnum):
    """Output formats of ``diff``."""

    text = "text"
    markdown = "markdown"
    json = "json"


@app.command()
def diff(
    spec: SpecOption = Path("fleet.py"),
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="REF",
            help="Compare from this ref (default: merge-base of HEAD with the default "
            "branch, else HEAD).",
        ),
    ] = None,
    head: Annotated[
        str | None,
        typer.Option(
            "--head", metavar="REF", help="Compare to this ref (default: the working tree)."
        ),
    ] = None,
    render: Annotated[
        bool,
        typer.Option(
            "--render",
            help="Also kustomize-build affected placements and render affected chart "
            "apps at both refs and compare the rendered workloads.",
        ),
    ] = False,
    charts: Annotated[
        Path | None,
        typer.Option(
            "--charts",
            metavar="DIR",
            help="With --render: a local chart cache holding NAME-VERSION.tgz for charts "
            "from repositories (as validate --charts); without it they are counted "
            "as not rendered.",
        ),
    ] = None,
    output_format: Annotated[
        DiffFormat,
        format_option(DiffFormat, "text (coloured on a terminal), markdown (PR comment) or json."),
    ] = DiffFormat.text,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars",
            metavar="N",
            min=2000,
            help="Cap of the markdown report; sections past it are cut.",
        ),
    ] = DIFF_MAX_CHARS,
    json_file: Annotated[
        Path | None,
        typer.Option(
            "--json-file", metavar="FILE", help="Also write the JSON report to this file."
        ),
    ] = None,
    color: Annotated[
        bool | None,
        typer.Option(
            "--color/--no-color",
            show_default=False,
            help="Colour the text report or not. Default: no colour when NO_COLOR is set "
            "(non-empty), colour when FORCE_COLOR is set, else colour only on a terminal.",
        ),
    ] = None,
    quiet: QuietOption = False,
) -> None:
    """Report what the spec change does: blast radius, deletions, renames, field changes."""

    from fleetgen.diffs import compare, formats

    def compared(progress: Progress) -> Report:
        if json_file is not None:
            writable_file(json_file, "--json-file")
        if charts is not None and not render:
            raise UsageError("--charts: charts are rendered only with --render")
        if charts is not None and not charts.is_dir():
            raise UsageError(f"--charts {charts}: not a directory")
        report = compare.diff(spec, base, head, render=render, charts_dir=charts, progress=progress)
        if json_file is not None:
            json_file.write_text(formats.to_json(report), encoding="utf-8")
        return report

    with _progress("fleetgen diff", quiet=quiet, lines=render) as progress:
        report = _run(lambda: compared(progress))
    if output_format is DiffFormat.json:
        typer.echo(formats.to_json(report), nl=False)
    elif output_format is DiffFormat.markdown:
        typer.echo(formats.markdown(report, max_chars), nl=False)
    else:
        painted = _colour(color)
        typer.echo(formats.text(report, color=painted), nl=False, color=painted)
    raise typer.Exit(EXIT_CHANGED if report.changed else EXIT_OK)


# The scaffolding commands (`fleetgen.cli.scaffolding`), registered here to keep the command order.
app.command()(init)
app.add_typer(add_group, name="add")
app.command()(promote)
app.command()(versions)
app.command("import")(import_command)


class ExplainFormat(StrEnum):
    """Output formats of ``explain``."""

    text = "text"
    json = "json"


@app.command("explain")
def explain_command(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="APP|CLUSTER",
            help="An app or a cluster (default: the whole fleet).",
            autocompletion=names_of("app", "cluster"),
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    output_format: Annotated[
        ExplainFormat, format_option(ExplainFormat, "text or json.")
    ] = ExplainFormat.text,
) -> None:
    """Where things run and why: for an app, which layer set each value on each cluster; for a
    cluster, its apps and rollout waves."""
    from fleetgen.explain import explanation as explain

    report = _run(lambda: explain.explain(spec, name))
    typer.echo(
        report.to_json() if output_format is ExplainFormat.json else explain.text(report), nl=False
    )


def main() -> None:
    """Console-script entry point."""
    app()
