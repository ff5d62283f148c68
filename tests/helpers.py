"""Small helpers shared by the tests: the real CLI in a subprocess, a directory as bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_fleetgen(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m fleetgen ARGS`` in ``cwd``, as a user runs it next to fleet.py."""
    return subprocess.run([sys.executable, "-m", "fleetgen", *args], cwd=cwd,
                          env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1",
                               **env},
                          capture_output=True, text=True, check=False)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, but fleetgen's cache (ignored by Git)."""
    return {path: p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "/.fleetgen/cache/" not in "/" + (
                path := p.relative_to(root).as_posix())}
