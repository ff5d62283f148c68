"""Small helpers shared by the tests: the real CLI in a subprocess, a directory as bytes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def run_fleetgen(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m fleetgen ARGS`` in ``cwd``, as a user runs it next to fleet.py."""
    return subprocess.run(
        [sys.executable, "-m", "fleetgen", *args],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", **env},
        capture_output=True,
        text=True,
        check=False,
    )


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, but fleetgen's cache (ignored by Git)."""
    return {
        path: p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "/.fleetgen/cache/" not in "/" + (path := p.relative_to(root).as_posix())
    }


def case_copy(case: Path, target: Path, *edits: tuple[str, str]) -> Path:
    """A copy of golden case ``case`` at ``target`` without its expectations, its fleet.py
    edited by (old, new) replacements (each must apply)."""
    shutil.copytree(case, target, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    spec = target / "fleet.py"
    text = spec.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    spec.write_text(text)
    return target
