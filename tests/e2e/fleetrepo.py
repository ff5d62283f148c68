"""A fleet repository as a user keeps it: fleet.py built with fleetgen, committed, pushed to the
loopback Git server the controllers read."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import run_fleetgen_process

FLEETS = Path(__file__).parent / "fleets"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@dataclass(frozen=True)
class FleetRepo:
    """The working copy ``work`` of fleet ``name``, pushed to the bare ``served`` repository."""

    work: Path
    served: Path
    url: str

    @classmethod
    def create(
        cls, name: str, folder: Path, base_url: str, placeholders: Mapping[str, str] = {}
    ) -> FleetRepo:
        """Copy the e2e fleet ``name`` with its Git URL set (and each of its ``placeholders`` in
        fleet.py replaced: the API servers' loopback ports), build and commit it, serve it."""
        work, served = folder / "work", folder / "served" / "fleet.git"
        shutil.copytree(FLEETS / name, work)
        url = f"{base_url}/fleet.git"
        repo = cls(work, served, url)
        repo.edit("fleet.py", "GIT_URL", url)
        for placeholder, value in placeholders.items():
            repo.edit("fleet.py", placeholder, value)
        _git(work, "init", "-q", "-b", "main")
        served.parent.mkdir(parents=True)
        _git(folder, "init", "-q", "--bare", "-b", "main", str(served))
        _git(work, "remote", "add", "origin", str(served))
        repo.commit("the fleet")
        return repo

    def bump_echo(self) -> None:
        """The walk fleets' in-repo chart echo from 0.1.0 to 0.2.0, its template labelling the
        pods with the chart's version (what a test reads to see the new template live)."""
        self.edit("charts/echo/Chart.yaml", "0.1.0", "0.2.0")
        self.edit(
            "charts/echo/templates/deployment.yaml",
            "labels: {app: echo}",
            'labels: {app: echo, chart: "{{ .Chart.Version }}"}',
        )

    def edit(self, path: str, old: str, new: str) -> None:
        """Replace ``old`` (which must be there) with ``new`` in file ``path``."""
        file = self.work / path
        text = file.read_text()
        assert old in text, f"{old!r} not in {path}"
        file.write_text(text.replace(old, new))

    def fleetgen(self, *args: str) -> str:
        """Run fleetgen in the repository; its output (exit 0, or 1 for a diff with changes)."""
        ran = run_fleetgen_process(self.work, *args)
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr  # diff exits 1 on changes
        return ran.stdout + ran.stderr

    def diff(self, base: str, head: str) -> dict[str, Any]:
        """``fleetgen diff --base BASE --head HEAD --format json``: the report (docs/diff.md)."""
        ran = run_fleetgen_process(
            self.work, "diff", "--base", base, "--head", head, "--format", "json", "--quiet"
        )
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr
        report: dict[str, Any] = json.loads(ran.stdout)
        return report

    def explain(self) -> dict[str, Any]:
        """``fleetgen explain --format json``: every app's placements, every cluster's apps."""
        ran = run_fleetgen_process(self.work, "explain", "--format", "json")
        assert ran.returncode == 0, ran.stdout + ran.stderr
        return dict(json.loads(ran.stdout))

    def head(self) -> str:
        """The sha of the commit checked out."""
        return _git(self.work, "rev-parse", "HEAD")

    def commit(self, message: str, *build: str) -> str:
        """``fleetgen build BUILD``, commit everything and push; the commit's sha."""
        self.fleetgen("build", *build)
        _git(self.work, "add", "-A")
        _git(self.work, "commit", "-q", "-m", message)
        _git(self.work, "push", "-q", "origin", "main")
        return self.head()
