"""fleetgen finds fleet.py in the current folder or the nearest parent, through the real CLI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import typer.main

from fleetgen.cli.app import app
from fleetgen.cli.locate import find_spec
from tests.helpers import run_fleetgen, tree

ROOT = Path(__file__).resolve().parent.parent
SUBDIR = "apps/api-service/base"

# Arguments each command that takes --spec needs besides it; a new such command must be added.
ARGS = {
    ("build",): ["--check"],
    ("validate",): [],
    ("diff",): ["--base", "HEAD"],
    ("explain",): ["api-service"],
    ("add", "cluster"): [
        *("qa", "--env", "dev", "--server", "https://qa.example:6443"),
        *("--var", "region=eu-west", "--dry-run"),
    ],
    ("add", "app"): ["shop", "--project", "orders", "--namespace", "orders", "--dry-run"],
    ("add", "env"): ["qa", "--after", "dev", "--dry-run"],
    ("add", "engine"): ["flux", "--envs", "prod", "--dry-run"],
    ("add", "project"): ["web", "--namespace", "web", "--dry-run"],
    ("promote",): ["payment-service", "--from", "staging", "--to", "prod", "--dry-run"],
    ("versions",): ["--check-order", "staging,prod"],
}


def _commands_with_spec() -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        if any(param.name == "spec" for param in getattr(command, "params", [])):
            found.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed Git repository holding a copy of the example fleet and its output/."""
    copy = tmp_path / "fleet-repo"
    copy.mkdir()
    shutil.copy(ROOT / "fleet.py", copy)
    for folder in ("apps", "charts", "output"):
        shutil.copytree(ROOT / folder, copy / folder)
    git(copy, "init", "-q", "-b", "main")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "fleet")
    return copy


def test_every_command_with_spec_is_covered() -> None:
    assert sorted(_commands_with_spec()) == sorted(ARGS)


@pytest.mark.parametrize("command", sorted(ARGS), ids=" ".join)
def test_a_command_run_in_a_subfolder_does_what_it_does_at_the_top(
    repo: Path, command: tuple[str, ...]
) -> None:
    at_top = run_fleetgen(repo, *command, *ARGS[command])
    below = run_fleetgen(repo / SUBDIR, *command, *ARGS[command])
    assert at_top.returncode in (0, 1), at_top.stderr
    assert (below.returncode, below.stderr) == (at_top.returncode, at_top.stderr)
    assert "no such spec" not in below.stderr


def test_build_in_a_subfolder_writes_next_to_fleet_py(repo: Path) -> None:
    stale = repo / "output/overlays/api-service/prod/kustomization.yaml"
    expected = stale.read_bytes()
    stale.unlink()
    before = tree(repo / SUBDIR)
    result = run_fleetgen(repo / SUBDIR, "build")
    assert result.returncode == 0, result.stderr
    assert stale.read_bytes() == expected
    assert tree(repo / SUBDIR) == before


def test_a_relative_out_stays_relative_to_the_current_folder(repo: Path) -> None:
    result = run_fleetgen(repo / SUBDIR, "build", "--out", "preview")
    assert result.returncode == 0, result.stderr
    preview, output = tree(repo / SUBDIR / "preview"), tree(repo / "output")
    assert preview.keys() == output.keys()
    overlay = "overlays/api-service/prod/kustomization.yaml"
    # From where it lands, inside the base it builds on.
    assert b"\n- ../../../..\n" in preview[overlay]
    assert b"\n- ../../../../apps/api-service/base\n" in output[overlay]
    assert {p: d for p, d in preview.items() if not p.startswith(("overlays/", ".fleetgen/"))} == {
        p: d for p, d in output.items() if not p.startswith(("overlays/", ".fleetgen/"))
    }


def test_an_explicit_spec_is_taken_as_given(repo: Path) -> None:
    result = run_fleetgen(repo / SUBDIR, "build", "--spec", "fleet.py", "--check")
    assert result.returncode == 2
    assert "fleet.py: no such spec" in result.stderr


def test_the_search_stops_at_the_top_of_the_git_repository(tmp_path: Path) -> None:
    (tmp_path / "fleet.py").write_text("raise SystemExit('not this one')\n")
    inner = tmp_path / "other-repo"
    (inner / "sub").mkdir(parents=True)
    git(inner, "init", "-q")
    assert find_spec(inner / "sub") is None
    assert find_spec(tmp_path / "elsewhere") == tmp_path / "fleet.py"
    result = run_fleetgen(inner / "sub", "build", "--check")
    assert result.returncode == 2
    assert "no such spec" in result.stderr
