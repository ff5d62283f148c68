"""The Mermaid pictures (`fleetgen.emit.pictures`) parsed by Mermaid's own parser: the ``mermaid``
package from the npm registry under Node.js with jsdom for its DOM (``tests/mermaid/``: its
package.json and lock, installed by ``scripts/test`` with ``npm ci``), so a malformed diagram
fails the suite. Missing node or the package skips these tests, except on CI (CI set), where it
fails them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from fleetgen.emit import pictures
from fleetgen.model import Cluster, Environment, ExternalSecretRef, Fleet, Rollout, Step
from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parents[1]
PARSER = ROOT / "tests/mermaid"
FENCED = re.compile(r"^```mermaid\n(.*?)^```$", re.M | re.S)

Parse = Callable[[list[str]], list[str | None]]


@pytest.fixture(scope="session")
def parse() -> Parse:
    """Mermaid's parser: diagrams in, None for each that parses, else the parser's message."""
    node = shutil.which("node")
    if node is None or not (PARSER / "node_modules/mermaid").is_dir():
        why = f"Mermaid's parser needs node and `npm ci` in {PARSER} (scripts/test runs it)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)

    def run(diagrams: list[str]) -> list[str | None]:
        ran = subprocess.run(
            [node, str(PARSER / "parse.mjs")],
            input=json.dumps(diagrams),
            capture_output=True,
            text=True,
            check=True,
        )
        found: list[str | None] = json.loads(ran.stdout)
        return found

    return run


def diagrams(markdown: str) -> list[str]:
    """The ```mermaid blocks of ``markdown``."""
    return FENCED.findall(markdown)


def test_the_parser_refuses_a_malformed_diagram(parse: Parse) -> None:
    good, bad = parse(["flowchart LR\n  a --> b\n", "flowchart LR\n  a[x[y]] -->\n"])
    assert good is None and "Parse error" in str(bad)


def test_the_example_fleet_map_draws_environments_and_rollouts(parse: Parse) -> None:
    found = diagrams((ROOT / "output/README.md").read_text())
    assert len(found) == 2
    assert 'e3["prod (production)"]:::production' in found[0]
    # dev → staging → prod: the environments in promotion order (the spec's), issue #39
    assert found[0].endswith(
        "  e1 -. promote .-> e2\n  e2 -. promote .-> e3\n"
        "  classDef production stroke:#d73a49,stroke-width:3px\n"
    )
    assert 'r1w1["wave 1 (ring=canary)<br/>prod-east"]:::production' in found[1]
    assert parse(found) == [None, None]


def test_every_golden_fleet_map_parses(parse: Parse) -> None:
    found = [
        diagram
        for readme in sorted(ROOT.glob("tests/cases/*/expected/README.md"))
        for diagram in diagrams(readme.read_text())
    ]
    assert len(found) >= 20
    assert parse(found) == [None] * len(found)


def test_a_diff_of_the_example_draws_the_touched_clusters_rollout(
    parse: Parse, tmp_path: Path
) -> None:
    repo = tmp_path / "fleet"
    for name in ("fleet.py", "apps", "charts"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name)
        else:
            repo.mkdir()
            shutil.copy2(source, repo / name)
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    spec = repo / "fleet.py"
    spec.write_text(spec.read_text().replace('tag="1.8.2"', 'tag="1.8.3"', 1))
    ran = run_fleetgen(repo, "diff", "--base", "HEAD", "--format", "markdown")
    assert ran.returncode == 1, ran.stderr
    (found,) = diagrams(ran.stdout)
    # staging has no rollout; prod's waves in order, the canary first, production marked
    assert found.index('"staging"') < found.index('r2w1["wave 1 (ring=canary)<br/>prod-east"]')
    assert "r2w1 --> r2w2\n    r2w2 --> r2w3" in found and ":::production" in found
    assert parse([found]) == [None]


def big_fleet(clusters: int) -> Fleet:
    """``clusters`` clusters over three environments, each rolling out by ring label."""
    envs = ("dev", "staging", "prod")
    rollout = Rollout(
        steps=[Step(match_labels={"ring": "canary"}), Step(match_labels={"ring": "early"}), Step()]
    )
    return Fleet(
        name="big",
        repo="https://git.example.com/big.git",
        default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
        environments=[Environment(name=env, rollout=rollout) for env in envs],
        clusters=[
            Cluster(
                name=f"c{i:04d}",
                env=envs[i % 3],
                server=f"https://c{i}.example.com",
                labels={"ring": "canary" if i < 30 else "early" if i < 90 else "late"},
            )
            for i in range(clusters)
        ],
    )


def test_pictures_stay_readable_at_1000_clusters(parse: Parse) -> None:
    views = pictures.env_views(big_fleet(1000))
    engines = {view_cluster: "argocd" for view in views for view_cluster in view.clusters}
    drawn = [
        pictures.environments(views, engines),
        pictures.rollouts(views),
        pictures.rollouts(pictures.touched(views, {"c0000", "c0003", "c0999"}), all_at_once=True),
    ]
    # a node per environment, and per wave and engine: counts, not 1,000 names
    assert [len(diagram.splitlines()) for diagram in drawn] == [16, 26, 7]
    assert 'e3c3["wave 3<br/>303 clusters<br/>argocd"]:::production' in drawn[0]
    assert 'r1w2["wave 2 (ring=early)<br/>20 clusters"]' in drawn[1]
    assert 'r1w1["wave 1 (ring=canary)<br/>c0000<br/>c0003"]' in drawn[2]
    assert 'r1w2["wave 3<br/>c0999"]' in drawn[2]  # wave 2 holds none of them
    assert parse(drawn) == [None, None, None]


HOSTILE = ['say "hi"', "a[b]", "x#1;", "<b>bold</b>", "`code`", "end", "a --> b", "{x} |z|", "é"]


def test_every_label_is_escaped(parse: Parse) -> None:
    drawn = []
    for name in HOSTILE:
        view = pictures.EnvView(
            name, True, (name, "ok"), (pictures.Wave(1, f"ring={name}", (name,)),)
        )
        drawn += [pictures.environments([view], {name: name}), pictures.rollouts([view])]
    assert parse(drawn) == [None] * len(drawn)
    for diagram in drawn:
        assert all(line.count('"') % 2 == 0 for line in diagram.splitlines())
