"""The command line's scaffolding commands: ``init`` and the ``add`` group (``add cluster|app|env|
engine|project``), and how what they added is reported. Each imports what it runs inside it, as
`fleetgen.cli.app` does."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fleetgen.cli.options import (
    OutOption,
    PlainHelp,
    SpecOption,
    engines,
    folder,
    in_repository,
    names_of,
    syncs,
)
from fleetgen.cli.output import _count, _err, _run, _shown
from fleetgen.cli.prompts import asked_sync, choose, on_a_terminal

if TYPE_CHECKING:
    from fleetgen import scaffold


def init(
    directory: Annotated[
        Path, typer.Argument(metavar="DIR", help="Where to create the fleet repo.")
    ] = Path("."),
    name: Annotated[
        str | None,
        typer.Option(
            "--name", metavar="NAME", help="The fleet's name (default: from the directory)."
        ),
    ] = None,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            metavar="URL",
            help="The Git URL of this repo (the engines read output/ from it).",
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            metavar="argocd|flux",
            help="The fleet's engine: argocd or flux.",
            autocompletion=engines,
        ),
    ] = "argocd",
) -> None:
    """Create a fleet repo, or adopt an existing repository: fleet.py (with a demo app and its
    base in a new repository), README, .gitignore, pre-commit and CI examples. Never overwrites a
    file: an existing .gitignore gets fleetgen's missing lines, other existing files are skipped.
    Without --repo, the repo URL comes from the Git remote 'origin'."""
    from fleetgen import scaffold

    def initialized() -> scaffold.Initialized:
        folder(directory, "DIR")
        return scaffold.init(directory, name, repo, engine)

    done = _run(initialized, scaffolding=True)
    for warning in done.warnings:
        _err(f"warning: {warning}")
    for path, action in done.files:
        verb, _, why = action.partition(": ")
        typer.echo(f"{verb:<8} {directory / path}" + (f" ({why})" if why else ""))
    typer.echo(f"repo: {done.repo}")
    if done.adopted:
        typer.echo(
            "adopted an existing repository: no demo app; add its kustomize bases with "
            "`fleetgen add project NAME --namespace NS`, then `fleetgen add app NAME "
            "--project NAME --namespace NS --path DIR` each"
        )
    if done.install is not None and done.install.note is not None:
        typer.echo(f"note: {done.install.note}")
    here = directory.resolve() == Path.cwd().resolve()
    go = "" if here else f"cd {shlex.quote(str(directory))} && "
    typer.echo(f"next: {go}fleetgen build, then commit everything")


add_group = typer.Typer(
    cls=PlainHelp,
    no_args_is_help=True,
    help="Scaffold a cluster, an app, an environment, an engine or a project into fleet.py.",
)
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Print the fleet.py diff and the output files that would change; write nothing.",
    ),
]


@add_group.command("cluster")
def add_cluster(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new cluster's name.")],
    env: Annotated[
        str,
        typer.Option(
            "--env", metavar="ENV", help="Its environment.", autocompletion=names_of("environment")
        ),
    ],
    server: Annotated[str, typer.Option("--server", metavar="URL", help="Its API server URL.")],
    label: Annotated[
        list[str] | None,
        typer.Option(
            "--label", metavar="KEY=VALUE", help="A cluster label KEY=VALUE (repeatable)."
        ),
    ] = None,
    var: Annotated[
        list[str] | None,
        typer.Option(
            "--var",
            metavar="NAME=VALUE",
            help="Its value of a ClusterVar the fleet's apps use, NAME=VALUE (repeatable).",
        ),
    ] = None,
    credentials: Annotated[
        str | None,
        typer.Option(
            "--credentials",
            metavar="KIND:...",
            help="external-secret:STORE:KEY | aws:ROLE_ARN[:EKS_NAME] | "
            "exec:gcp|azure (default: the fleet's default_credentials).",
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            metavar="argocd|flux",
            help="argocd or flux: the engine of the apps placed on it (default: its "
            "environment's, or the fleet's only engine).",
            autocompletion=engines,
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
            "and exec: credentials when Argo CD deploys to it. Inlined into fleet.py; "
            "--ca-file refers to the file instead.",
        ),
    ] = None,
    ca_file: Annotated[
        Path | None,
        typer.Option(
            "--ca-file",
            metavar="FILE",
            help="As --ca-data, for a file inside the repository: fleet.py gets "
            'ca_data=CaFile("FILE"), read at every build (a change to it rebuilds).',
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add a Cluster(...) to fleet.py, rebuild output/, say what it runs and what to do next."""
    from fleetgen import scaffold

    def added_() -> scaffold.Added:
        request = scaffold.ClusterRequest(
            name,
            env,
            server,
            scaffold.parse_pairs(label or ()),
            credentials,
            engine,
            scaffold.read_ca_data(ca_data) if ca_data else None,
            in_repository(ca_file, spec, "--ca-file") if ca_file else None,
            scaffold.parse_pairs(var or (), "--var"),
        )
        return scaffold.add_cluster(spec, request, dry_run=dry_run, out=folder(out, "--out"))

    added = _run(added_, scaffolding=True)
    _report_added(added, f"cluster {name}")
    joined = scaffold.rollout_step(added.compiled, name)
    if joined:
        typer.echo(joined)
    if added.written:
        for number, step in enumerate(scaffold.cluster_next_steps(added.compiled, name), 1):
            typer.echo(f"{number}. {step}" if number > 1 else f"next steps:\n{number}. {step}")


@add_group.command("app")
def add_app(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new app's name.")],
    project: Annotated[
        str,
        typer.Option(
            "--project",
            metavar="PROJECT",
            help="Its project (defined in fleet.py).",
            autocompletion=names_of("project"),
        ),
    ],
    namespace: Annotated[
        str, typer.Option("--namespace", metavar="NS", help="The namespace it deploys to.")
    ],
    envs: Annotated[
        list[str] | None,
        typer.Option(
            "--envs",
            metavar="ENV",
            help="Environments it runs in (repeatable; default: all).",
            autocompletion=names_of("environment"),
        ),
    ] = None,
    image: Annotated[
        str | None,
        typer.Option(
            "--image",
            metavar="REPO:TAG",
            help="REPOSITORY:TAG (or @sha256:...) the base's image points at.",
        ),
    ] = None,
    chart: Annotated[
        str | None,
        typer.Option(
            "--chart",
            metavar="REPO/NAME@VERSION",
            help="REPO/NAME@VERSION: a Helm chart app (https:// or oci:// repository, "
            "an exact version, or a range such as >=1.0.0) instead of a kustomize base.",
        ),
    ] = None,
    path: Annotated[
        str | None,
        typer.Option(
            "--path",
            metavar="DIR",
            help="Its kustomize base, relative to fleet.py's folder: an existing base is "
            "used as it is, else one is created there (default: apps/NAME/base).",
        ),
    ] = None,
    image_name: Annotated[
        str | None,
        typer.Option(
            "--image-name",
            metavar="NAME",
            help="The image of an existing base (--path) that --image sets, when it has "
            "several (on a terminal, add asks).",
        ),
    ] = None,
    extend_project: Annotated[
        bool,
        typer.Option(
            "--extend-project",
            help="Add the namespace to the project's namespaces, and a chart's repository "
            "to its source_repos, where the project does not allow them (on a terminal, "
            "add asks).",
        ),
    ] = False,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add App(...) to fleet.py with a new base (Deployment, Service, kustomization) at
    apps/NAME/base/ or --path, or the existing base at --path as it is; with --chart, a chart app
    (no base)."""

    from fleetgen import scaffold

    def attempt(extend: bool, image_name: str | None) -> scaffold.Added:
        request = scaffold.AppRequest(
            name, project, namespace, tuple(envs or ()), image, chart, path, extend, image_name
        )
        return scaffold.add_app(spec, request, dry_run=dry_run, out=folder(out, "--out"))

    added = _run(lambda: _asking(attempt, extend_project, image_name), scaffolding=True)
    _report_added(added, f"app {name}")
    if added.written:
        bases = [*added.kept, *(Path(path).parent.as_posix() for path in added.new_files)]
        what = f"{bases[0]}/" if bases else "its values in fleet.py"
        typer.echo(f"next: edit {what}, then commit it with fleet.py and output/")


def _asking(
    attempt: Callable[[bool, str | None], scaffold.Added], extend: bool, image_name: str | None
) -> scaffold.Added:
    """``attempt(extend, image_name)``; on a terminal (never in CI, where stdin is not one), when
    the project does not allow the namespace or the chart's repository, ask whether to extend
    it, and when the base has several images, which one --image sets; then try again."""
    from fleetgen import scaffold

    while True:
        try:
            return attempt(extend, image_name)
        except scaffold.ProjectTooNarrow as refused:
            if extend or not on_a_terminal():
                raise
            if not typer.confirm(f"{refused} -- {refused.question}", default=False):
                raise
            extend = True
        except scaffold.ImageNameNeeded as needed:
            if not on_a_terminal():
                raise
            image_name = choose(f"Which image of {needed.base} does --image set?", needed.choices)


@add_group.command("env")
def add_env(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new environment's name.")],
    after: Annotated[
        str | None,
        typer.Option(
            "--after",
            metavar="ENV",
            help="The environment it goes after (default: last).",
            autocompletion=names_of("environment"),
        ),
    ] = None,
    sync: Annotated[
        str | None,
        typer.Option(
            "--sync",
            metavar="auto|manual",
            help="auto: every merged change deploys (SyncPolicy(automated=True, prune=True)); "
            "manual: nothing deploys until synced by hand (on Flux, every object is suspended). "
            "On a terminal, add asks (default auto); else auto.",
            autocompletion=syncs,
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add Environment(name=NAME, sync=SyncPolicy(...)) to fleet.py (after --after ENV), rebuild
    output/."""
    from fleetgen import scaffold

    def added_() -> scaffold.Added:
        request = scaffold.EnvRequest(name, after, sync or asked_sync(name))
        return scaffold.add_env(spec, request, dry_run=dry_run, out=folder(out, "--out"))

    added = _run(added_, scaffolding=True)
    _report_added(added, f"environment {name}")
    if added.written:
        typer.echo(
            f"next: add its clusters with `fleetgen add cluster NAME --env {name} --server URL`"
        )


@add_group.command("engine")
def add_engine(
    engine: Annotated[
        str, typer.Argument(metavar="argocd|flux", help="argocd or flux.", autocompletion=engines)
    ],
    envs: Annotated[
        list[str] | None,
        typer.Option(
            "--envs",
            metavar="ENV",
            help="An environment whose placements the engine takes over (repeatable).",
            autocompletion=names_of("environment"),
        ),
    ] = None,
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add the engine to the fleet's engines and set it on the --envs environments; the other
    environments of a one-engine fleet are kept on that engine. Rebuilds output/."""
    from fleetgen import scaffold

    added = _run(
        lambda: scaffold.add_engine(
            spec,
            scaffold.EngineRequest(engine, tuple(envs or ())),
            dry_run=dry_run,
            out=folder(out, "--out"),
        ),
        scaffolding=True,
    )
    _report_added(added, f"engine {engine}")
    if added.pinned:
        former = next(e for e in added.compiled.plan.fleet.engines if e != engine)
        typer.echo(
            f"{'kept' if added.written else 'would keep'} environment(s) "
            f'{", ".join(added.pinned)} on {former} (engine="{former}" set: with two engines, '
            "fleet.py names each placement's)"
        )
    if added.written:
        for number, step in enumerate(scaffold.engine_next_steps(added.compiled, engine), 1):
            typer.echo(f"{number}. {step}" if number > 1 else f"next steps:\n{number}. {step}")


@add_group.command("project")
def add_project(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new project's name.")],
    namespace: Annotated[
        list[str],
        typer.Option(
            "--namespace",
            metavar="NS",
            help="A namespace (or glob) its apps may deploy into (repeatable).",
        ),
    ],
    description: Annotated[
        str, typer.Option("--description", metavar="TEXT", help="What it is for.")
    ] = "",
    spec: SpecOption = Path("fleet.py"),
    out: OutOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add Project(name=NAME, namespaces=[...]) to fleet.py, rebuild output/."""
    from fleetgen import scaffold

    added = _run(
        lambda: scaffold.add_project(
            spec,
            scaffold.ProjectRequest(name, tuple(namespace), description),
            dry_run=dry_run,
            out=folder(out, "--out"),
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
            f"{added.extended}'s {' and '.join(added.extended_lists)}"
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
    from fleetgen.explain.explanation import source_text

    typer.echo(
        f"runs {_count(len(added.placements), 'placement')}" + (":" if added.placements else "")
    )
    for placement in added.placements:
        wave = f", wave {placement.wave}" if placement.wave else ""
        typer.echo(
            f"  {placement.app} on {placement.cluster} ({placement.env}{wave}) by "
            f"{placement.engine}: {source_text(placement)}"
        )
