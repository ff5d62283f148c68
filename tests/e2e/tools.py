"""Where the upstream programs `scripts/e2e-tools` built are."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "e2e-tools"


@cache
def built() -> dict[str, Path]:
    """Every built component's folder by its wrapper module's name (``kubernetes-v1.34.4``)."""
    printed = subprocess.run(
        ["bash", str(SCRIPT), "--print"], capture_output=True, text=True, check=False
    ).stdout
    return {
        name: Path(folder)
        for name, folder in (line.split("\t") for line in printed.splitlines() if line)
    }


def program(component: str, name: str) -> Path:
    """The binary ``name`` of the built component ``component`` names: its wrapper module's name
    (``source-controller-v1.9.5``) or, where one version is built, the name before the version
    (``program("kubernetes", "kube-apiserver")``)."""
    found = [path for key, path in built().items() if component in (key, key.rsplit("-v", 1)[0])]
    if len(found) != 1:
        raise FileNotFoundError(
            f"{component}: built {len(found)} times; run bash scripts/e2e-tools"
        )
    binary = found[0] / name
    if not binary.is_file():
        raise FileNotFoundError(f"{binary} is missing")
    return binary
