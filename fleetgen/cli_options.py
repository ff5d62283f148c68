"""Options several commands share: ``--spec`` (fleet.py here or in the nearest parent folder)
and ``--out``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from fleetgen import locate


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
