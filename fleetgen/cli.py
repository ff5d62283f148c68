"""The command line: a typer adapter over `fleetgen.commands`, presentation only.

Every command calls one function of ``commands`` through `_run`, the one place where errors
become messages and exit codes (DESIGN.md §4): a `fleetgen.errors.FleetgenError` or an
``OSError`` is printed without a traceback and exits 2.

Start-up is kept short (``--version``, ``--help`` and each TAB of shell completion pay it): this
module imports typer and fleetgen's light modules only; each command imports what it uses, and
`fleetgen.commands` imports the pipeline inside each function (benchmarks/startup.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from fleetgen import commands, locate
from fleetgen.errors import FleetgenError, SpecError
from fleetgen.version import VERSION

if TYPE_CHECKING:
    from fleetgen import scaffold

EXIT_OK, EXIT_CHANGED, EXIT_SPEC = 0, 1, 2
# `diff --max-chars`'s default: fleetgen.diff.formats.DEFAULT_MAX_CHARS (a test holds them equal),
# not imported here, as the diff package loads rich and Jinja2.
DIFF_MAX_CHARS = 60_000
_T = TypeVar("_T")

# Plain (click-style) help: typer's rich help shows every flag as taking a value (`--check <bool>`).
app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    rich_markup_mode=None,
    help=f"fleetgen {VERSION}: compile a typed fleet spec (fleet.py) into Argo CD, "
    "Flux and kustomize files under output/.",
)


def _spec_here_or_above(ctx: typer.Context, param: typer.CallbackParam, spec: Path) -> Path:
    """An unset --spec is fleet.py in the current folder or the nearest parent (as git finds
    .git); relative --out paths stay relative to the current folder."""
    source = ctx.get_parameter_source(param.name or "")
    if source is None or source.name != "DEFAULT" or spec.is_file():
        return spec
    found = locate.find_spec(Path.cwd())
    return Path(os.path.relpath(found)) if found else spec


SpecOption = Annotated[
    Path,
    typer.Option(
        "--spec",
        callback=_spec_here_or_above,
        help="The fleet spec (default: fleet.py here or in the nearest parent folder).",
    ),
]
OutOption = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Where to write (default: the Fleet's output_dir next to fleet.py)."
    ),
]


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
) -> None:
    """Compile the spec and write output/ (or, with --check, verify it is up to date)."""
    use_cache = not no_cache
    raise typer.Exit(
        _run(lambda: _check(spec, out, use_cache) if check else _build(spec, out, use_cache))
    )


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


def _build(spec: Path, out: Path | None, use_cache: bool) -> int:
    with _working(f"building {spec}"):
        result = commands.build(spec, out, use_cache=use_cache)
    report = result.report
    for warning in result.warnings:
        _err(warning.render(severity="warning"))
    for path in report.overwritten:
        _err(
            f"{_shown(result.out_dir / path)}: warning: this generated file was edited "
            "by hand; the edit is overwritten (change fleet.py instead)"
        )
    typer.echo(
        f"{_shown(result.out_dir)}: {len(report.written)} written, "
        f"{report.unchanged} unchanged, {len(report.deleted)} deleted "
        f"({result.placements} placements)"
    )
    return EXIT_OK


def _check(spec: Path, out: Path | None, use_cache: bool) -> int:
    with _working(f"checking {spec}"):
        result = commands.check(spec, out, use_cache=use_cache)
    findings, where = result.findings, _shown(result.out_dir)
    for finding in findings:
        _err(f"{where}/{finding.path}: {finding.kind}: {finding.detail}")
    if findings:
        _err(f"{len(findings)} file(s) differ from a fresh build: run `fleetgen build` and commit")
        return EXIT_CHANGED
    typer.echo(f"{where} is up to date")
    return EXIT_OK


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
            help="With --render: a local chart cache holding NAME-VERSION.tgz (as "
            "`helm pull --version VERSION -d DIR` writes it) for charts from "
            "repositories; without it they are counted as not rendered.",
        ),
    ] = None,
    k8s_version: Annotated[
        str | None,
        typer.Option(
            "--k8s-version",
            help="Kubernetes minor whose schemas rendered objects are checked "
            "against, e.g. 1.33 (default: the newest shipped).",
        ),
    ] = None,
    output_format: Annotated[
        ValidateFormat,
        typer.Option(
            "--format", help="text, json (docs/validate.schema.json) or sarif (SARIF 2.1.0)."
        ),
    ] = ValidateFormat.text,
) -> None:
    """Check the spec, the emitted objects against schemas and their contracts, and (--render)
    what the overlays render. Exit 0 clean or warnings only, 1 errors, 2 spec or usage error.
    Writes nothing but its cache."""
    from fleetgen.validate import formats as validate_formats

    with _working(f"validating {spec}"):
        report = _run(
            lambda: commands.validate(
                spec, crds or (), render=render, k8s_version=k8s_version, charts=charts
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
            help="Compare from this ref (default: merge-base of HEAD with the default "
            "branch, else HEAD).",
        ),
    ] = None,
    head: Annotated[
        str | None, typer.Option("--head", help="Compare to this ref (default: the working tree).")
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
            help="With --render: a local chart cache holding NAME-VERSION.tgz for charts "
            "from repositories (as validate --charts); without it they are counted "
            "as not rendered.",
        ),
    ] = None,
    output_format: Annotated[
        DiffFormat,
        typer.Option(
            "--format", help="text (coloured on a terminal), markdown (PR comment) or json."
        ),
    ] = DiffFormat.text,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars", min=2000, help="Cap of the markdown report; sections past it are cut."
        ),
    ] = DIFF_MAX_CHARS,
    json_file: Annotated[
        Path | None, typer.Option("--json-file", help="Also write the JSON report to this file.")
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
) -> None:
    """Report what the spec change does: blast radius, deletions, renames, field changes."""

    from fleetgen.diff import formats

    with _working(f"comparing {spec} at two refs"):
        report = _run(
            lambda: commands.diff(
                spec, base, head, render=render, json_file=json_file, charts=charts
            )
        )
    if output_format is DiffFormat.json:
        typer.echo(formats.to_json(report), nl=False)
    elif output_format is DiffFormat.markdown:
        typer.echo(formats.markdown(report, max_chars), nl=False)
    else:
        painted = _colour(color)
        typer.echo(formats.text(report, color=painted), nl=False, color=painted)
    raise typer.Exit(EXIT_CHANGED if report.changed else EXIT_OK)


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="Where to create the fleet repo.")] = Path("."),
    name: Annotated[
        str | None, typer.Option("--name", help="The fleet's name (default: from the directory).")
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option("--repo", help="The Git URL of this repo (the engines read output/ from it)."),
    ] = None,
    engine: Annotated[
        str, typer.Option("--engine", help="The fleet's engine: argocd or flux.")
    ] = "argocd",
) -> None:
    """Create a fleet repo, or adopt an existing repository: fleet.py, an app base, README,
    .gitignore, pre-commit and CI examples. Never overwrites a file: an existing .gitignore gets
    fleetgen's missing lines, other existing files are skipped. Without --repo, the repo URL comes
    from the Git remote 'origin'."""
    done = _run(lambda: commands.init(directory, name, repo, engine), scaffolding=True)
    for warning in done.warnings:
        _err(f"warning: {warning}")
    for path, action in done.files:
        verb, _, why = action.partition(": ")
        typer.echo(f"{verb:<8} {directory / path}" + (f" ({why})" if why else ""))
    typer.echo(f"repo: {done.repo}")
    typer.echo(f"next: cd {directory} && fleetgen build, then commit everything")


add_group = typer.Typer(
    no_args_is_help=True,
    help="Scaffold a cluster, an app, an environment or a project into fleet.py.",
)
app.add_typer(add_group, name="add")
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Print the fleet.py diff and the output files that would change; write nothing.",
    ),
]


@add_group.command("cluster")
def add_cluster(
    name: Annotated[str, typer.Argument(help="The new cluster's name.")],
    env: Annotated[str, typer.Option("--env", help="Its environment.")],
    server: Annotated[str, typer.Option("--server", help="Its API server URL.")],
    label: Annotated[
        list[str] | None, typer.Option("--label", help="A cluster label KEY=VALUE (repeatable).")
    ] = None,
    credentials: Annotated[
        str | None,
        typer.Option(
            "--credentials",
            help="external-secret:STORE:KEY | aws:ROLE_ARN[:EKS_NAME] | "
            "exec:gcp|azure (default: the fleet's default_credentials).",
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="argocd or flux: the engine of the apps placed on it (default: its "
            "environment's, or the fleet's only engine).",
        ),
    ] = None,
    ca_data: Annotated[
        Path | None,
        typer.Option(
            "--ca-data",
            metavar="FILE",
            help="The cluster's CA certificate (PEM, or the base64 that `aws eks describe-cluster "
            "--query cluster.certificateAuthority.data` or `gcloud container clusters describe "
            "--format='value(masterAuth.clusterCaCertificate)'` prints); required with aws: "
            "and exec: credentials when Argo CD deploys to it.",
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add a Cluster(...) to fleet.py, rebuild output/, say what it runs and what to do next."""
    from fleetgen import scaffold

    added = _run(
        lambda: commands.add_cluster(
            spec,
            name,
            env=env,
            server=server,
            labels=label or (),
            credentials=credentials,
            engine=engine,
            ca_data=ca_data,
            dry_run=dry_run,
            out=out,
        ),
        scaffolding=True,
    )
    _report_added(added, f"cluster {name}")
    joined = scaffold.rollout_step(added.compiled, name)
    if joined:
        typer.echo(joined)
    if added.written:
        for number, step in enumerate(scaffold.cluster_next_steps(added.compiled, name), 1):
            typer.echo(f"{number}. {step}" if number > 1 else f"next steps:\n{number}. {step}")


@add_group.command("app")
def add_app(
    name: Annotated[str, typer.Argument(help="The new app's name.")],
    project: Annotated[str, typer.Option("--project", help="Its project (defined in fleet.py).")],
    namespace: Annotated[str, typer.Option("--namespace", help="The namespace it deploys to.")],
    envs: Annotated[
        list[str] | None,
        typer.Option("--envs", help="Environments it runs in (repeatable; default: all)."),
    ] = None,
    image: Annotated[
        str | None,
        typer.Option("--image", help="REPOSITORY:TAG (or @sha256:...) the base's image points at."),
    ] = None,
    chart: Annotated[
        str | None,
        typer.Option(
            "--chart",
            help="REPO/NAME@VERSION: a Helm chart app (https:// or oci:// repository, "
            "pinned version) instead of a kustomize base.",
        ),
    ] = None,
    path: Annotated[
        str | None,
        typer.Option(
            "--path",
            help="Its kustomize base, relative to fleet.py's folder: an existing base is "
            "used as it is, else one is created there (default: apps/NAME/base).",
        ),
    ] = None,
    extend_project: Annotated[
        bool,
        typer.Option(
            "--extend-project",
            help="Add the namespace to the project's namespaces if the project "
            "does not allow it (on a terminal, add asks).",
        ),
    ] = False,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add App(...) to fleet.py with a new base (Deployment, Service, kustomization) at
    apps/NAME/base/ or --path, or the existing base at --path as it is; with --chart, a chart app
    (no base)."""

    def attempt(extend: bool) -> scaffold.Added:
        return commands.add_app(
            spec,
            name,
            project=project,
            namespace=namespace,
            envs=envs or (),
            image=image,
            chart=chart,
            path=path,
            extend_project=extend,
            dry_run=dry_run,
            out=out,
        )

    added = _run(lambda: _confirming_extension(attempt, extend_project), scaffolding=True)
    _report_added(added, f"app {name}")
    if added.written:
        bases = [*added.kept, *(Path(path).parent.as_posix() for path in added.new_files)]
        what = f"{bases[0]}/" if bases else "its values in fleet.py"
        typer.echo(f"next: edit {what}, then commit it with fleet.py and output/")


def _confirming_extension(
    attempt: Callable[[bool], scaffold.Added], extend: bool
) -> scaffold.Added:
    """``attempt(extend)``; when the project does not allow the namespace, ask on a terminal
    (never in CI, where stdin is not one) whether to extend it."""
    from fleetgen import scaffold

    try:
        return attempt(extend)
    except scaffold.NamespaceNotAllowed as refused:
        if extend or not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise
        if not typer.confirm(f"{refused} -- {refused.question}", default=False):
            raise
        return attempt(True)


@add_group.command("env")
def add_env(
    name: Annotated[str, typer.Argument(help="The new environment's name.")],
    after: Annotated[
        str | None, typer.Option("--after", help="The environment it goes after (default: last).")
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add Environment(name=NAME) to fleet.py (after --after ENV), rebuild output/."""
    added = _run(
        lambda: commands.add_env(spec, name, after=after, dry_run=dry_run, out=out),
        scaffolding=True,
    )
    _report_added(added, f"environment {name}")
    if added.written:
        typer.echo(
            f"next: add its clusters with `fleetgen add cluster NAME --env {name} --server URL`"
        )


@add_group.command("project")
def add_project(
    name: Annotated[str, typer.Argument(help="The new project's name.")],
    namespace: Annotated[
        list[str],
        typer.Option(
            "--namespace", help="A namespace (or glob) its apps may deploy into (repeatable)."
        ),
    ],
    description: Annotated[str, typer.Option("--description", help="What it is for.")] = "",
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add Project(name=NAME, namespaces=[...]) to fleet.py, rebuild output/."""
    added = _run(
        lambda: commands.add_project(
            spec, name, namespaces=namespace, description=description, dry_run=dry_run, out=out
        ),
        scaffolding=True,
    )
    _report_added(added, f"project {name}")
    if added.written:
        typer.echo(f"next: add apps with `fleetgen add app NAME --project {name} --namespace NS`")


_CHANGE_KIND = {"missing": "new", "stale": "changed", "extra": "deleted"}


def _report_added(added: scaffold.Added, what: str) -> None:
    if not added.written:
        typer.echo(added.spec_diff, nl=False)
    where = _shown(added.compiled.out_dir)
    verb = "added" if added.written else "would add"
    typer.echo(
        f"{verb} {what}"
        + "".join(
            f"; {'created' if added.written else 'would create'} {path}" for path in added.new_files
        )
        + "".join(f"; using {path} as it is" for path in added.kept)
        + (
            f"; {'extended' if added.written else 'would extend'} project "
            f"{added.extended}'s namespaces"
            if added.extended
            else ""
        )
    )
    typer.echo(
        f"{where}: {len(added.output_changes)} file(s) "
        f"{'changed' if added.written else 'would change'}"
    )
    for change in added.output_changes:
        typer.echo(f"  {_CHANGE_KIND.get(change.kind, change.kind):<8} {where}/{change.path}")
    typer.echo(f"runs {len(added.placements)} placement(s)" + (":" if added.placements else ""))
    for placement in added.placements:
        wave = f", wave {placement.wave}" if placement.wave else ""
        typer.echo(
            f"  {placement.app} on {placement.cluster} ({placement.env}{wave}) by "
            f"{placement.engine}: {placement.overlay}"
        )


class ExplainFormat(StrEnum):
    """Output formats of ``explain``."""

    text = "text"
    json = "json"


@app.command("explain")
def explain_command(
    name: Annotated[
        str | None, typer.Argument(help="An app or a cluster (default: the whole fleet).")
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    output_format: Annotated[
        ExplainFormat, typer.Option("--format", help="text or json.")
    ] = ExplainFormat.text,
) -> None:
    """Where things run and why: for an app, which layer set each value on each cluster; for a
    cluster, its apps and rollout waves."""
    from fleetgen import explain

    report = _run(lambda: commands.explain(spec, name))
    typer.echo(
        report.to_json() if output_format is ExplainFormat.json else explain.text(report), nl=False
    )


def _shown(path: Path) -> str:
    resolved = path.resolve()
    return str(resolved.relative_to(Path.cwd()) if resolved.is_relative_to(Path.cwd()) else path)


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def main() -> None:
    """Console-script entry point."""
    app()
