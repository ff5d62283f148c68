"""Report formats of ``diff``: markdown sections and the size cap, colour, text."""

from __future__ import annotations

from pathlib import Path

import fleetgen
from fleetgen.diffs import formats
from fleetgen.diffs.report import Report
from tests.diff.test_diff import PROD_B_GOLD, WEB_PROD_TAG, edit, repo  # noqa: F401 (fixture)
from tests.helpers import on_a_terminal, run_fleetgen


def busy_report(repo: Path) -> Report:  # noqa: F811 (the fixture's name)
    """A change touching dev, prod (three clusters) and dropping api from prod-b."""
    edit(
        repo / "fleet.py",
        'new_name="registry.example.com/web", tag="1.0"',
        'new_name="registry.example.com/web", tag="1.1"',
    )
    edit(repo / "fleet.py", WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"'))
    edit(repo / "fleet.py", PROD_B_GOLD, PROD_B_GOLD.replace("gold", "bronze"))
    return fleetgen.diff(repo / "fleet.py")


def test_markdown_has_a_collapsible_section_per_cluster_production_open(repo: Path) -> None:  # noqa: F811
    text = formats.markdown(busy_report(repo))
    assert text.startswith("### fleetgen diff: `")
    assert "**Blast radius:** 4 clusters, 2 environments, 2 apps, 1 project" in text
    assert "> [!WARNING]" in text and "#### Placements (1)" in text
    assert "<summary><b>dev-1</b> (dev): " in text
    assert text.index("<details open>") < text.index("<details>\n<summary><b>dev-1")
    assert "+ images[name=web].newTag: 1.1" in text
    assert "cut to stay under" not in text


def test_markdown_is_capped_and_says_what_was_cut(repo: Path) -> None:  # noqa: F811
    report = busy_report(repo)
    full = formats.markdown(report)
    cap = len(full) - 20
    capped = formats.markdown(report, max_chars=cap)
    assert len(capped) <= cap
    assert "cut to stay under" in capped and "dev-1" in capped.split("cut to stay under")[1]
    assert capped.count("<details") < full.count("<details")
    assert "<details open>" in capped  # production sections are kept first


def test_text_is_coloured_only_when_asked(repo: Path) -> None:  # noqa: F811
    report = busy_report(repo)
    plain, coloured = formats.text(report), formats.text(report, color=True)
    assert "\033[" not in plain and "\033[32m" in coloured and "\033[31m" in coloured
    assert "! production: 3 cluster(s) in prod: prod-a, prod-b, prod-c" in plain
    assert "- api on prod-b (prod)" in plain


def test_json_is_the_report_contract(repo: Path) -> None:  # noqa: F811
    report = busy_report(repo)
    assert formats.to_json(report).endswith("}\n")
    assert '"touched": {' in formats.to_json(report)


GREEN, RED = "\033[32m", "\033[31m"


def _coloured(output: str) -> bool:
    return GREEN in output and RED in output


def _diff_on_a_terminal(repo: Path, **env: str | None) -> str:  # noqa: F811
    """``fleetgen diff`` in a real process whose stdout (and stderr) is a terminal."""
    code, shown = on_a_terminal(repo, "diff", **env)
    assert code == 1  # changes found
    return shown


def test_colour_on_a_terminal_unless_no_color_is_set(repo: Path) -> None:  # noqa: F811
    """Neither NO_COLOR nor FORCE_COLOR: colour on a terminal; a non-empty NO_COLOR turns it
    off there."""
    busy_report(repo)
    assert _coloured(_diff_on_a_terminal(repo, NO_COLOR=None, FORCE_COLOR=None))
    plain = _diff_on_a_terminal(repo, NO_COLOR="1", FORCE_COLOR=None)
    assert "\033[3" not in plain and "- api on prod-b (prod)" in plain


def test_no_colour_off_a_terminal_unless_forced(repo: Path) -> None:  # noqa: F811
    busy_report(repo)
    plain = run_fleetgen(repo, "diff", NO_COLOR=None, FORCE_COLOR=None)
    assert plain.returncode == 1 and "\033[" not in plain.stdout
    assert "- api on prod-b (prod)" in plain.stdout
    forced = run_fleetgen(repo, "diff", NO_COLOR=None, FORCE_COLOR="1")
    assert forced.returncode == 1 and _coloured(forced.stdout)


def test_no_color_wins_over_force_color_and_the_flags_win_over_both(repo: Path) -> None:  # noqa: F811
    busy_report(repo)
    both = run_fleetgen(repo, "diff", NO_COLOR="1", FORCE_COLOR="1")
    assert "\033[" not in both.stdout
    empty = run_fleetgen(repo, "diff", NO_COLOR="", FORCE_COLOR="1")  # empty is unset
    assert _coloured(empty.stdout)
    asked = run_fleetgen(repo, "diff", "--color", NO_COLOR="1")
    assert asked.returncode == 1 and _coloured(asked.stdout)
    refused = run_fleetgen(repo, "diff", "--no-color", NO_COLOR=None, FORCE_COLOR="1")
    assert refused.returncode == 1 and "\033[" not in refused.stdout
    assert refused.stdout == both.stdout
