"""What ``add`` asks on a terminal (never in CI, where stdin is not one): which of several
choices, and the sync policy of a new environment."""

from __future__ import annotations

import sys

import typer

from fleetgen.cli.options import SYNCS


def on_a_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def choose(question: str, choices: list[str]) -> str:
    """One of ``choices``, asked for by number or name until the answer is one."""
    listed = "".join(f"\n  {number}. {choice}" for number, choice in enumerate(choices, 1))
    while True:
        answer = str(typer.prompt(f"{question}{listed}\nnumber or name")).strip()
        if answer in choices:
            return answer
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        typer.echo(f"{answer!r} is none of them")


def asked_sync(env: str) -> str:
    """The sync policy of a new environment asked for on a terminal (default auto), until the
    answer is auto or manual; auto elsewhere."""
    if not on_a_terminal():
        return "auto"
    while True:
        answer = str(
            typer.prompt(
                f"Sync of environment {env}: auto (every merged change deploys) or manual "
                "(nothing deploys until synced by hand)",
                default="auto",
            )
        ).strip()
        if answer in SYNCS:
            return answer
        typer.echo(f"{answer!r}: answer {' or '.join(SYNCS)}")
