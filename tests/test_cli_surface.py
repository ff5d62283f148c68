"""The command line's own surface: --version, --help of every command, shell completion."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from fleetgen import __version__
from fleetgen.cli import app
from tests.helpers import Ran

FLEETGEN = Path(sys.executable).parent / "fleetgen"  # the installed console script


def _command_paths() -> list[tuple[str, ...]]:
    """Every command and group, as the words after ``fleetgen``."""
    paths: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        paths.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths


def _flags(path: tuple[str, ...]) -> list[str]:
    """The option names of ``fleetgen PATH`` that take no value."""
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return [
        opt for param in command.params if getattr(param, "is_flag", False) for opt in param.opts
    ]


def _invoke(*args: str, **env: str) -> Ran:
    """``fleetgen ARGS`` in this process, named as the installed script is."""
    done = CliRunner().invoke(app, list(args), env=env, prog_name="fleetgen")
    return Ran(["fleetgen", *args], done.exit_code, done.stdout, done.stderr, done.exception)


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed ``fleetgen`` script, a real process (the smoke test of the entry point)."""
    return subprocess.run(
        [str(FLEETGEN), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_version_prints_the_installed_version_and_exits_0() -> None:
    result = _run("--version")
    assert (result.returncode, result.stdout, result.stderr) == (0, f"fleetgen {__version__}\n", "")
    assert version("fleetgen") == __version__  # pyproject and fleetgen/version.py agree


def test_help_names_the_version() -> None:
    assert f"fleetgen {__version__}" in _invoke("--help").stdout


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "fleetgen")
def test_help_shows_flags_as_flags(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    lines = result.output.splitlines()
    for flag in _flags(path):
        line = next(line for line in lines if line.lstrip().startswith(flag + " "))
        assert "<" not in line.split(flag, 1)[1].split("  ")[0], line


def test_completion_is_offered_and_completes_commands_and_options() -> None:
    top = _invoke("--help").stdout
    assert "--install-completion" in top and "--show-completion" in top
    script = _invoke("--show-completion", "bash")
    assert script.returncode == 0 and "_FLEETGEN_COMPLETE=complete_bash" in script.stdout
    commands = _invoke(_FLEETGEN_COMPLETE="complete_bash", COMP_WORDS="fleetgen bu", COMP_CWORD="1")
    assert commands.stdout.split() == ["build"]
    options = _invoke(
        _FLEETGEN_COMPLETE="complete_bash", COMP_WORDS="fleetgen build --ch", COMP_CWORD="2"
    )
    assert options.stdout.split() == ["--check"]
