"""Progress of long work (`fleetgen.util.progress`, shown by `fleetgen.cli.output._progress`):
``validate --render`` and ``diff --render`` say each phase, with the overlays and charts built,
cached and left: counts on a terminal, one line per phase on stderr otherwise (CI logs), nothing
with ``--quiet``; never colour (NO_COLOR and FORCE_COLOR speak of colour, not of progress)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fleetgen.tools.kustomize import Kustomize
from tests.helpers import on_a_terminal, run_fleetgen

ROOT = Path(__file__).resolve().parent.parent
VALIDATE = "fleetgen validate"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example fleet (fleet.py, apps/, charts/), committed in a Git repository."""
    copy = tmp_path / "fleet-repo"
    copy.mkdir()
    shutil.copy(ROOT / "fleet.py", copy)
    for folder in ("apps", "charts"):
        shutil.copytree(ROOT / folder, copy / folder)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=copy, check=True)
    subprocess.run([*git, "add", "-A"], cwd=copy, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fleet"], cwd=copy, check=True)
    return copy


def _counted(name: str, unit: str, total: int, cached: int) -> str:
    return f"{name}: {total} {unit}, {cached} cached, {total - cached} to go"


def test_validate_render_says_each_phase_in_a_line_off_a_terminal(
    repo: Path, kustomize: Kustomize
) -> None:
    first = run_fleetgen(repo, "validate", "--render", "--format", "json")
    summary = json.loads(first.stdout)["summary"]
    overlays, charts = summary["builds"]["distinct"], summary["charts"]["distinct"]
    assert overlays > 1

    def expected(cached: bool) -> list[str]:
        return [
            f"{VALIDATE}: compiling",
            f"{VALIDATE}: checking the emitted objects",
            f"{VALIDATE}: "
            + _counted("kustomize build", "overlays", overlays, overlays if cached else 0),
            *(
                [f"{VALIDATE}: " + _counted("helm render", "charts", charts, charts * cached)]
                if charts
                else []
            ),
            f"{VALIDATE}: checking the rendered objects",
        ]

    assert first.stderr.splitlines() == expected(cached=False)
    again = run_fleetgen(repo, "validate", "--render", "--format", "json", FORCE_COLOR="1")
    assert again.stderr.splitlines() == expected(cached=True)  # no colour asked of progress
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]


def test_quiet_and_short_work_print_no_progress_off_a_terminal(repo: Path) -> None:
    quiet = run_fleetgen(repo, "validate", "--render", "--quiet")
    assert quiet.stderr == "" and "error" in quiet.stdout
    assert run_fleetgen(repo, "validate").stderr == ""  # no --render: seconds, a quiet log
    assert run_fleetgen(repo, "diff", "--base", "HEAD").stderr == ""


def test_diff_render_says_each_phase_in_a_line_off_a_terminal(
    repo: Path, kustomize: Kustomize
) -> None:
    deployment = repo / "apps/api-service/base/deployment.yaml"
    deployment.write_text(deployment.read_text().replace("replicas: 1", "replicas: 5"))
    result = run_fleetgen(repo, "diff", "--base", "HEAD", "--render")
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert lines[:3] == [
        "fleetgen diff: compiling fleet.py at HEAD",
        "fleetgen diff: compiling fleet.py at worktree",
        "fleetgen diff: comparing",
    ]
    built = [line for line in lines[3:] if "kustomize build" in line]
    assert built == [
        "fleetgen diff: kustomize build at HEAD: 4 overlays, 0 cached, 4 to go",
        "fleetgen diff: kustomize build at worktree: 4 overlays, 0 cached, 4 to go",
    ]  # api-service's dev, staging and prod overlays and dr's own layer, at both refs
    again = run_fleetgen(repo, "diff", "--base", "HEAD", "--render", "--quiet")
    assert again.stderr == "" and again.stdout == result.stdout


def _on_a_terminal(cwd: Path, *args: str, **env: str) -> str:
    """What ``fleetgen ARGS`` writes to stderr, a terminal (its report goes elsewhere)."""
    return on_a_terminal(cwd, *args, report=False, **env)[1]


def test_a_terminal_shows_the_counts_as_they_change(repo: Path, kustomize: Kustomize) -> None:
    shown = _on_a_terminal(repo, "validate", "--render", NO_COLOR="1")
    assert re.search(r"fleetgen validate: kustomize build: 0 built, 0 cached, \d+ left", shown)
    assert re.search(r"fleetgen validate: kustomize build: [1-9]\d* built, 0 cached, 0 left", shown)
    assert "to go" not in shown  # the lines are for logs
    assert not re.search("\x1b\\[[0-9;]*m", shown)  # no colour, NO_COLOR or not
    assert "fleetgen validate: compiling" in _on_a_terminal(repo, "validate")
    assert "fleetgen validate" not in _on_a_terminal(repo, "validate", "--quiet")
