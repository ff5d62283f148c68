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
from fleetgen.cli.app import app
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


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "fleetgen")
def test_help_names_option_values_in_the_users_words(path: tuple[str, ...]) -> None:
    """KEY=VALUE, ENV, FILE, text|json, and arguments by their names (APP, NAME): never a
    Python type such as <list[str]> (issue #39)."""
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
    lines = result.output.splitlines()
    options = [line.strip() for line in lines if line.strip()[:2] == "--"]
    assert options or path == ("add",)
    assert [line for line in options if "<" in line.split("  ")[0]] == []
    if "Arguments:" in lines:
        section = lines[lines.index("Arguments:") + 1 :]
        arguments = [line.strip() for line in section[: section.index("")]]
        assert arguments and [line for line in arguments if "<" in line.split("  ")[0]] == []


@pytest.mark.parametrize(
    ("command", "formats"),
    [
        ("versions", "text, json or markdown"),
        ("diff", "text, markdown or json"),
        ("validate", "text, json or sarif"),
        ("explain", "text or json"),
    ],
)
def test_an_unknown_format_is_named_with_the_choices(command: str, formats: str) -> None:
    result = _invoke(command, "--format", "yaml")
    assert result.returncode == 2
    assert f"unknown format 'yaml': choose {formats}" in result.stderr
    assert "Value error" not in result.stderr


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


# A fleet.py whose running would leave a mark: completion must read it, never run it.
SIDE_EFFECT = """\
import pathlib
pathlib.Path("RAN").write_text("fleet.py was executed")

from fleetgen import App, Cluster, Environment, Fleet, Project
import fleetgen

fleet = Fleet(
    name="tab",
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://d.example.com"),
              fleetgen.Cluster(name="prod-1", env="prod", server="https://p.example.com")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web"),
          App(name=f"computed-{1}", project="shop", namespace="shop", path="apps/x")],
)
"""


def _complete(words: str) -> list[str]:
    """What a TAB after ``fleetgen WORDS`` offers (bash)."""
    done = _invoke(
        _FLEETGEN_COMPLETE="complete_bash",
        COMP_WORDS=f"fleetgen {words}",
        COMP_CWORD=str(len(f"fleetgen {words}".split(" ")) - 1),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(
    ("words", "offered"),
    [
        ("explain ", ["dev-1", "prod-1", "web"]),
        ("explain p", ["prod-1"]),
        ("add cluster c --env ", ["dev", "prod"]),
        ("add app a --project ", ["shop"]),
        ("add app a --envs p", ["prod"]),
        ("add env qa --after ", ["dev", "prod"]),
        ("add engine ", ["argocd", "flux"]),
        ("add engine flux --envs d", ["dev"]),
        ("init --engine f", ["flux"]),
        ("promote w", ["web"]),
        ("promote web --from ", ["dev", "prod"]),
        ("promote web --cluster p", ["prod-1"]),
        ("versions ", ["web"]),
    ],
)
def test_completion_offers_the_names_fleet_py_defines_without_running_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: str, offered: list[str]
) -> None:
    (tmp_path / "fleet.py").write_text(SIDE_EFFECT)
    (tmp_path / "apps").mkdir()
    monkeypatch.chdir(tmp_path / "apps")  # fleet.py in a parent folder, as for every command
    assert _complete(words) == offered
    assert not (tmp_path / "RAN").exists() and not (tmp_path / "apps/RAN").exists()


def test_completion_reads_the_spec_named_by_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "other.py").write_text(SIDE_EFFECT)
    monkeypatch.chdir(tmp_path)
    assert _complete("explain --spec other.py w") == ["web"]
    assert _complete("explain w") == []  # no fleet.py here: nothing to offer, no error
    (tmp_path / "fleet.py").write_text("fleet = (\n")  # does not parse
    assert _complete("explain ") == []
    assert not (tmp_path / "RAN").exists()
