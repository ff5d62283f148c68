"""``build`` and ``validate`` report the same spec warnings (issue #39): each warning build prints
is a validate finding at the same line, ``spec-warning`` unless a rule of its own reports it
(``placeholder-repo``, ``chart-range``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_fleetgen

CHART = "https://charts.example.com/web@>=1.0.0"


def _fleet(tmp_path: Path) -> Path:
    """A Flux fleet with a placeholder repo and cluster server, a manual environment (suspended)
    and a chart app following a range that keeps its objects by default: five build warnings."""
    repo = tmp_path / "fleet"
    created = run_fleetgen(tmp_path, "init", repo.name, "--engine", "flux")
    assert created.returncode == 0, created.stderr
    for args in (
        ("env", "prod", "--sync", "manual"),
        ("cluster", "prod-1", "--env", "prod", "--server", "https://p1.example.com"),
        (
            "app",
            "web",
            "--project",
            "apps",
            "--namespace",
            "web",
            "--chart",
            CHART,
            "--extend-project",
        ),
    ):
        done = run_fleetgen(repo, "add", *args)
        assert done.returncode == 0, done.stderr
    return repo


def test_build_and_validate_report_the_same_spec_warnings(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    warned = {line.partition(": warning: ")[::2] for line in built.stderr.splitlines()}
    assert len(warned) == 5, built.stderr
    validated = run_fleetgen(repo, "validate", "--format", "json")
    findings = json.loads(validated.stdout)["findings"]
    reported = {
        (f"{f['location']['path']}:{f['location']['line']}", f["message"])
        for f in findings
        if f["rule"] in ("spec-warning", "placeholder-repo")
    }
    ranges = {
        f"{f['location']['path']}:{f['location']['line']}"
        for f in findings
        if f["rule"] == "chart-range"
    }
    unpinned = {(where, message) for where, message in warned if "is a range" in message}
    assert reported == warned - unpinned
    assert {where for where, _ in unpinned} == ranges
    assert {f["rule"] for f in findings} == {"spec-warning", "placeholder-repo", "chart-range"}


def test_the_cascade_delete_warning_advises_what_ends_it(tmp_path: Path) -> None:
    """The default keeps a Flux chart app's objects on upgrade: the warning says that writing
    the default out ends it (not "set it to False", which it is), and it does."""
    repo = _fleet(tmp_path)
    warning = next(
        line for line in run_fleetgen(repo, "build").stderr.splitlines() if "cascade_delete" in line
    )
    assert warning.endswith(
        "set cascade_delete=True to have both delete them, or, to keep them knowingly, write the "
        "default out, cascade_delete=False, on the App (or its Environment or the Fleet), which "
        "ends this warning"
    )
    spec = repo / "fleet.py"
    spec.write_text(spec.read_text().replace('name="web",', 'name="web", cascade_delete=False,', 1))
    assert "cascade_delete" not in run_fleetgen(repo, "build").stderr
