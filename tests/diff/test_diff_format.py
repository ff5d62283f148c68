"""Report formats of ``diff``: markdown sections and the size cap, colour, text."""

from __future__ import annotations

from pathlib import Path

import fleetgen
from fleetgen.diff import formats
from fleetgen.diff.report import Report
from tests.diff.test_diff import PROD_B_GOLD, WEB_PROD_TAG, edit, repo  # noqa: F401 (fixture)


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
