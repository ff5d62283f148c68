"""benchmarks/run.py keeps working: a small run produces every figure (no timing asserted);
benchmarks/tree_digest.py prints the digests of a cold build and of the edited spec built warm
and cold, the last two equal; benchmarks/import_survey.py imports, builds and validates a
repository and prints its row."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).parent.parent / "benchmarks" / "run.py"
DIGEST = RUN.with_name("tree_digest.py")
SURVEY = RUN.with_name("import_survey.py")


def test_small_run_reports_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(RUN), "--clusters", "50", "--apps", "10", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout)
    for name in [
        "full_s",
        "floor_s",
        "noop_s",
        "one_app_s",
        "check_s",
        "diff_s",
        "diff_cold_s",
        "one_app_flux_s",
        "peak_rss_mb",
        "docs",
        "files",
        "bytes",
    ]:
        assert figures[name] > 0, name
    assert set(figures["ratios"]) == {
        "full_over_floor",
        "noop_over_full",
        "one_app_over_full",
        "one_app_flux_over_full",
        "diff_over_full",
        "diff_cold_over_full",
    }
    assert figures["one_app_flux_written"] > figures["one_app_written"]  # Flux files too
    assert figures["noop_written"] == 0
    assert figures["one_app_written"] > 0  # the image tag change reached the output
    assert figures["check_findings"] == 0 and figures["diff_changes"] > 0
    assert set(figures["user_ratios"]) == set(figures["ratios"])


def test_tree_digest_prints_equal_warm_and_cold_digests_of_the_edit() -> None:
    done = subprocess.run(
        [sys.executable, str(DIGEST), "--clusters", "20", "--apps", "10"],
        capture_output=True,
        text=True,
        check=True,
    )
    digests = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert set(digests) == {"cold     ", "warm edit", "cold edit"}
    assert digests["warm edit"] == digests["cold edit"] != digests["cold     "]


def test_startup_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(RUN.with_name("startup.py")), "--runs", "1", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout)
    names = {"python", "import", "version", "help", "noop_build"}
    assert set(figures["wall"]) == set(figures["cpu"]) == names
    assert all(seconds > 0 for seconds in figures["wall"].values())


def test_the_scan_benchmark_runs() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(RUN.with_name("bench_scan.py")),
            *("--clusters", "20", "--apps", "5", "--objects", "20", "--reps", "1", "--json"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout)
    assert set(figures) == {"spec_scan", "load", "resolve", "base_bytes", "base_scan", "base_parse"}


def test_the_import_survey_prints_a_row_per_repository() -> None:
    case = Path(__file__).parent / "imports" / "flux-hub-spoke" / "repo"
    done = subprocess.run(
        [sys.executable, str(SURVEY), "--findings", str(case)],
        capture_output=True,
        text=True,
        check=True,
    )
    header, _, row = done.stdout.splitlines()
    assert header.startswith("| repository @ commit | import |")
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[:2] == ["repo @ -", "1"], row  # a golden folder: no commit; findings: exit 1
    assert cells[2].startswith("flux, 3 clusters,"), row
    assert cells[3:6] == ["2", "0", "0"], (
        row
    )  # its two differences (findings.txt), builds, validates
    assert "× " in done.stderr  # the findings by kind
