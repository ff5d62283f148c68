"""Options several commands share: ``--spec`` (fleet.py here or in the nearest parent folder)
and ``--out``, the shell completion of the names fleet.py defines (`names_of`), and the checks of
paths given on the command line, which refuse one that cannot be what the command needs
(`UsageError`, naming the option, before any work)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer import _click as click  # typer's own click, which it builds commands with
from typer.core import TyperArgument, TyperGroup

from fleetgen.cli import locate
from fleetgen.errors import UsageError


def format_option(formats: type[StrEnum], help_text: str) -> Any:
    """The ``--format`` option of a command whose formats are ``formats``: its metavar lists
    them, and a format not among them is refused in the user's words ("unknown format 'yaml':
    choose text, json or markdown")."""
    names = [str(member) for member in formats]
    listed = f"{', '.join(names[:-1])} or {names[-1]}"

    def parse(value: str | StrEnum) -> StrEnum:
        if isinstance(value, formats):
            return value
        try:
            return formats(value)
        except ValueError:
            raise typer.BadParameter(f"unknown format {value!r}: choose {listed}") from None

    return typer.Option("--format", parser=parse, metavar="|".join(names), help=help_text)


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
        metavar="FILE",
        callback=_spec_here_or_above,
        help="The fleet spec (default: fleet.py here or in the nearest parent folder).",
    ),
]
OutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
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


# add env --sync: `fleetgen.scaffold.requests.SYNCS` (a test holds them equal; that module is not
# imported here, as it loads the spec model)
SYNCS = ("auto", "manual")


def syncs(incomplete: str) -> list[str]:
    """Shell completion of a sync policy (``add env --sync``)."""
    return [sync for sync in SYNCS if sync.startswith(incomplete)]


def engines(incomplete: str) -> list[str]:
    """Shell completion of an engine."""
    return [engine for engine in ("argocd", "flux") if engine.startswith(incomplete)]


def folder(path: Path | None, option: str) -> Path | None:
    """``path``, refused (`UsageError`, naming ``option``) when a file stands where it or one
    of its parents should be a folder."""
    if path is not None:
        _no_file_in(path, (path, *path.parents), option)
    return path


def writable_file(path: Path, option: str) -> Path:
    """``path``, refused when it is a directory or its parent cannot hold a file."""
    if path.is_dir():
        raise UsageError(f"{path}: is a directory ({option} needs a file)")
    _no_file_in(path, path.parents, option)
    if not path.parent.exists():
        raise UsageError(f"{path.parent}: no such directory ({option} {path})")
    return path


def in_repository(path: Path, spec: Path, option: str) -> str:
    """``path`` (relative to the current folder) relative to the folder holding ``spec``, which
    it must be inside: the spec refers to it, at every build and at other Git refs."""
    root = spec.resolve().parent
    found = path.resolve()
    if not found.is_relative_to(root):
        raise UsageError(
            f"{option} {path}: not inside the repository ({root}); fleet.py refers to the "
            "file, read at every build: copy it into the repository first"
        )
    return found.relative_to(root).as_posix()


def _no_file_in(path: Path, folders: Sequence[Path], option: str) -> None:
    for folder in folders:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{folder}: not a directory ({option} {path})")


class _PlainArgument(TyperArgument):
    """A positional argument whose help shows its name only (``APP``), never typer's Python
    type after it (``APP <list[str]>``)."""

    def display_type_rich(self, ctx: click.Context) -> str | None:
        return None


class PlainHelp(TyperGroup):
    """A command group whose commands' help names positional arguments in the user's words:
    each command's typer arguments become `_PlainArgument` when the group hands it out (typer's
    TyperArgument prints its type even with a metavar; its options do not)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        for param in command.params if command is not None else ():
            if type(param) is TyperArgument:
                param.__class__ = _PlainArgument
        return command
