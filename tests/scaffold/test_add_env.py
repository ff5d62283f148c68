"""``fleetgen add env``: the explicit sync policy it writes (issue #39), and how a manual
environment on Flux, every object of it suspended, is named by build, explain and the fleet map."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import answering, run_fleetgen
from tests.scaffold.test_add import added_lines, repo, snapshot

__all__ = ["repo"]  # the example fleet with its output/, a fixture

AUTO = 'Environment(name="qa", sync=SyncPolicy(automated=True, prune=True))'
MANUAL = 'Environment(name="qa", sync=SyncPolicy(automated=False))'


@pytest.mark.parametrize(("args", "written"), [([], AUTO), (["--sync", "manual"], MANUAL)])
def test_add_env_writes_its_sync_policy(repo: Path, args: list[str], written: str) -> None:
    """Without a terminal and without --sync, auto; the model's default (manual) is never left
    implicit."""
    before = (repo / "fleet.py").read_text()
    result = run_fleetgen(repo, "add", "env", "qa", *args)
    assert result.returncode == 0, result.stderr
    assert added_lines(before, (repo / "fleet.py").read_text()) == ([], [f"        {written},"])


def test_add_env_refuses_an_unknown_sync(repo: Path) -> None:
    before = snapshot(repo)
    result = run_fleetgen(repo, "add", "env", "qa", "--sync", "yes")
    assert result.returncode == 2
    assert result.stderr == "--sync 'yes': use auto or manual; nothing was written\n"
    assert snapshot(repo) == before


@pytest.mark.parametrize(("answer", "written"), [(b"\n", AUTO), (b"manual\n", MANUAL)])
def test_on_a_terminal_add_env_asks_for_the_sync(repo: Path, answer: bytes, written: str) -> None:
    code, output = answering(repo, [(b"Sync of environment qa", answer)], "add", "env", "qa")
    assert code == 0, output
    assert "auto (every merged change deploys) or manual" in output and "[auto]" in output
    assert written in (repo / "fleet.py").read_text()


def test_a_manual_environment_on_flux_is_named_suspended(tmp_path: Path) -> None:
    """Flux suspends every Kustomization of a manual environment (`Placement.suspended`):
    build warns once for the environment, explain and the fleet map say so."""
    repo = tmp_path / "fleet"
    created = run_fleetgen(
        tmp_path, "init", "fleet", "--engine", "flux", "--repo", "https://github.com/a/f.git"
    )
    assert created.returncode == 0, created.stderr
    assert run_fleetgen(repo, "add", "env", "prod", "--sync", "manual").returncode == 0
    for name in ("prod-1", "prod-2"):
        added = run_fleetgen(
            repo, "add", "cluster", name, "--env", "prod", "--server", f"https://{name}.example"
        )
        assert added.returncode == 0, added.stderr
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    line = next(
        number
        for number, text in enumerate((repo / "fleet.py").read_text().splitlines(), 1)
        if 'name="prod"' in text
    )
    suspended = [line for line in built.stderr.splitlines() if "suspended" in line]
    assert suspended == [
        f"fleet.py:{line}: warning: environment 'prod': its Flux placements are suspended: "
        "nothing deploys until its sync is set to automated in fleet.py (a manual sync on Flux "
        "suspends every Kustomization and HelmRelease; automated: "
        "sync=SyncPolicy(automated=True, prune=True))"
    ]
    explained = run_fleetgen(repo, "explain", "hello").stdout
    assert "prod-1 (prod, flux, suspended)" in explained and "dev-1 (dev, flux)" in explained
    assert (
        "  prod-1, prod-2 — overlays/hello/prod\n    suspended: nothing deploys until its sync "
        "is set to automated in fleet.py\n"
    ) in explained
    cluster = run_fleetgen(repo, "explain", "prod-1").stdout
    assert "hello  flux (suspended)" in cluster
    assert "hello: suspended: nothing deploys until its sync is set to automated" in cluster
    fleet_map = (repo / "output/README.md").read_text()
    assert "| hello | flux (suspended) | flux (suspended) |" in fleet_map
    assert (
        "The Flux placements of hello are suspended: nothing deploys until its sync is set to "
        "automated in fleet.py."
    ) in fleet_map


def test_the_command_line_offers_the_sync_policies_add_env_takes() -> None:
    """cli/options keeps its own copy (it does not import the spec model at start-up)."""
    from fleetgen.cli.options import SYNCS
    from fleetgen.scaffold.requests import SYNCS as TAKEN

    assert SYNCS == TAKEN
