"""Options several commands share: ``--spec`` (fleet.py here or in the nearest parent folder)
and ``--out``, and the shell completion of the names fleet.py defines (`names_of`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from fleetgen.cli import locate


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
        "--out",
        help="Where to write (default: the Fleet's output_dir next to fleet.py); the paths "
        "the engines read keep output_dir.",
    ),
]


def names_of(*kinds: str) -> Callable[[typer.Context, str], list[str]]:
    """Shell completion of the names of ``kinds`` (`fleetgen.cli.names.KINDS`) in the spec: the one
    --spec names when it is given before, else fleet.py here or in the nearest parent folder.
    fleet.py is parsed, never run."""

    def complete(ctx: typer.Context, incomplete: str) -> list[str]:
        from fleetgen.cli import names

        given = ctx.params.get("spec")
        spec = (
            given if isinstance(given, Path) and given.is_file() else locate.find_spec(Path.cwd())
        )
        found = names.read(spec, *kinds) if spec is not None else []
        return [name for name in found if name.startswith(incomplete)]

    return complete


def engines(incomplete: str) -> list[str]:
    """Shell completion of an engine."""
    return [engine for engine in ("argocd", "flux") if engine.startswith(incomplete)]
