"""Files a controller applies from the output folder although fleetgen did not write them.

The controllers read whole directories, not fleetgen's manifest: each Argo CD instance's root
Application applies every manifest under its folder, ``argocd/`` or an environment's own
``argocd-<env>/`` (``directory.recurse``: the repo-server's directory
source reads ``*.yaml``, ``*.yml`` and ``*.json``), and the Flux that ``flux bootstrap --path``
installed applies everything under ``flux/clusters/<cluster>/`` (kustomize-controller generates
a kustomization of every manifest there, subdirectories included) but ``flux-system/``, which
bootstrap owns. A file dropped there by hand is deployed although fleet.py never says so:
``build --check`` reports it.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from pathlib import Path

from fleetgen.util.layout import is_argocd_directory

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
BOOTSTRAP = "flux-system"


def read_dirs(owned: Collection[str]) -> dict[str, str]:
    """The directories of the output folder a controller applies whole, where fleetgen writes
    files (``owned``: output-relative paths) -> who applies it."""
    found = {}
    for path in owned:
        parts = path.split("/")
        if is_argocd_directory(parts[0]) and len(parts) > 1:
            found[parts[0]] = "Argo CD's root Application (directory.recurse)"
        elif parts[:2] == ["flux", "clusters"] and len(parts) > 3:
            found[f"flux/clusters/{parts[2]}"] = f"the Flux bootstrapped on {parts[2]}"
    return found


def unowned(out_dir: Path, owned: Collection[str]) -> list[tuple[str, str]]:
    """(path, who applies it) of each manifest under a `read_dirs` directory that fleetgen does
    not own, sorted."""
    owned = set(owned)
    return sorted(
        (path, who)
        for top, who in read_dirs(owned).items()
        for path in _manifests(out_dir, top)
        if path not in owned
    )


def _manifests(out_dir: Path, top: str) -> Iterator[str]:
    """Output-relative paths of the manifests below ``top`` (bootstrap's own excluded)."""
    for root, dirs, files in os.walk(out_dir / top):
        dirs[:] = sorted(d for d in dirs if not (top.startswith("flux/") and d == BOOTSTRAP))
        relative = Path(root).relative_to(out_dir).as_posix()
        yield from (f"{relative}/{name}" for name in files if name.endswith(MANIFEST_SUFFIXES))
