"""Plain directories of manifests (an app path without a kustomization): what both engines read
from one as they are, and what makes them read different things.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from fleetgen.inputs.bases import Base, Inventory
from fleetgen.inputs.reading import KUSTOMIZATION_FILES, Reader, folder_digest

# A plain directory's files as each engine reads them: Argo CD's directory source, every file
# these end in (reposerver ``findManifests``, its ``manifestFile`` pattern); kustomize-
# controller's generated kustomization, every .yaml and .yml file (fluxcd/pkg kustomize
# ``scanManifests``), both recursing into every folder.
ARGO_SUFFIXES = (".yaml", ".yml", ".json", ".jsonnet")
FLUX_SUFFIXES = (".yaml", ".yml")
# Files source-controller leaves out of every artifact without a leading dot (fluxcd/pkg
# sourceignore ``ExcludeCI``; the others it excludes are hidden, which a plain directory refuses).
SOURCE_EXCLUDED = frozenset(
    {"cloudbuild.yaml", "appveyor.yml", "codeship-services.yml", "codeship-steps.yml"}
)
SKIP_MARKER = b"+argocd:skip-file-rendering"  # Argo CD skips the file (``skipFileRenderingMarker``)


def scan_directory(read: Reader, path: str, files: Sequence[str]) -> Base:
    """A plain directory: the manifests both engines read from it as they are (`ARGO_SUFFIXES`,
    `FLUX_SUFFIXES`, in every folder below it), and what makes the two read different things
    (problems: a file only one of them reads, a folder kustomize-controller builds as a
    kustomization, a file that is no Kubernetes object, one object twice)."""
    inventory = Inventory()
    kustomized = sorted(
        posixpath.dirname(name) for name in files if posixpath.basename(name) in KUSTOMIZATION_FILES
    )
    inventory.problems += [
        f"{folder}/ holds a kustomization, which kustomize-controller builds as one while "
        "Argo CD's directory source reads its files as manifests: make the directory a base "
        "(a kustomization.yaml listing it) or move the folder out"
        for folder in kustomized
    ]
    seen: dict[tuple[str, str, str, str], str] = {}
    for name in files:
        if any(name == folder or name.startswith(folder + "/") for folder in kustomized):
            continue
        data = read(name)
        problem = _read_differently(posixpath.relpath(name, path), data)
        if problem is not None:
            inventory.problems.append(f"{name}: {problem}")
        elif data is not None and name.endswith(FLUX_SUFFIXES):
            inventory.add_manifests(name, data, seen)
    return inventory.base(path, plain=True, digest=folder_digest(read, files, path))


def _read_differently(name: str, data: bytes | None) -> str | None:
    """Why the engines would read the file ``name`` (relative to its plain directory) apart,
    None when they read it alike (both, or neither)."""
    if not name.endswith(ARGO_SUFFIXES):
        return None
    if any(part.startswith(".") for part in name.split("/")):
        return (
            "a hidden file, which Argo CD reads while source-controller leaves some out of "
            "Flux's artifact (.sops.yaml, .github/ ...): rename it or move it out"
        )
    if posixpath.basename(name) in SOURCE_EXCLUDED:
        return (
            "source-controller leaves this file out of Flux's artifact, Argo CD reads it: "
            "rename it or move it out"
        )
    if not name.endswith(FLUX_SUFFIXES):
        return (
            "Argo CD's directory source reads it, kustomize-controller's generated "
            "kustomization does not (.yaml and .yml files only): write it as YAML or move it out"
        )
    if data is not None and SKIP_MARKER in data:
        return (
            f"Argo CD skips it ({SKIP_MARKER.decode()}), kustomize-controller applies it: "
            "remove the marker or move it out"
        )
    return None
