"""Every distinct overlay of a compile kustomize-built once, in parallel, through the render cache
it shares with ``diff --render`` (`fleetgen.renders`).

The overlays and the inputs of every app base are laid out in a scratch directory as the
repository holds them (nothing is written to the repository), so that every rendered object's
origin is a repository-relative path.
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from fleetgen import api, renders
from fleetgen.cache import Cache
from fleetgen.emit.common import KUSTOMIZATION
from fleetgen.kustomize import find_kustomize
from fleetgen.progress import SILENT, Progress
from fleetgen.renders import Builds, Rendered
from fleetgen.workspace import FLUX_SUFFIXES, filesystem_lister, filesystem_reader
from fleetgen.yamlio import dump

__all__ = ["Builds", "Rendered", "directory_unit", "render"]


def render(
    compiled: api.Compiled,
    root: Path,
    overlays: Sequence[str],
    progress: Progress = SILENT,
    directories: Mapping[str, tuple[str, str | None]] | None = None,
) -> Builds:
    """Build ``overlays`` (output-relative) and the plain ``directories`` (`directory_unit` ->
    the directory and the app's namespace) as kustomize-controller does (`_generated`); reuse
    cached builds of identical inputs."""
    kustomize = find_kustomize()
    prefix = compiled.out_dir.resolve().relative_to(root).as_posix()
    plan = compiled.plan
    directories = directories or {}
    read, files = filesystem_reader(root), filesystem_lister(root)
    generated = {
        f"{prefix}/{path}": data
        for path, data in compiled.rendered.items()
        if path.startswith("overlays/")
    }
    for unit, (path, namespace) in directories.items():
        generated |= _generated(unit, path, namespace, files(path))
    with tempfile.TemporaryDirectory(prefix="fleetgen-validate-") as tmp:
        scratch = renders.lay_out(
            Path(tmp),
            generated,
            [
                *(overlay.base for overlay in plan.env_overlays),
                *(p for p, _ in directories.values()),
            ],
            read,
            files,
        )
        inputs = {
            env.path: scratch.inputs(f"{prefix}/{env.path}", None, env.base)
            for env in plan.env_overlays
        }
        for overlay in plan.cluster_overlays:
            env = overlay.env_overlay
            inputs[overlay.path] = scratch.inputs(
                f"{prefix}/{overlay.path}", f"{prefix}/{env.path}", env.base
            )
        names = {f"{prefix}/{overlay}": overlay for overlay in overlays}
        names |= {unit: unit for unit in directories}
        units = {f"{prefix}/{overlay}": inputs[overlay] for overlay in overlays}
        units |= {unit: scratch.inputs(unit, None, path) for unit, (path, _) in directories.items()}
        built = renders.build(scratch, units, Cache(compiled.out_dir), kustomize, progress)
    return Builds(
        {names[unit]: found for unit, found in built.objects.items()},
        {names[unit]: error for unit, error in built.failures.items()},
        built.distinct,
        built.built,
        built.cached,
        {names[unit]: entry for unit, entry in built.keys.items()},
    )


def directory_unit(path: str, namespace: str | None) -> str:
    """The name a plain directory's objects go by in place of an overlay, read with the app
    ``namespace``: the scratch folder of the kustomization that builds it."""
    return f"{_PLAIN}/{namespace or '_'}/{path}"


_PLAIN = ".plain-directories"  # in the scratch directory, beside the repository's folders


def _generated(
    unit: str, path: str, namespace: str | None, files: Iterable[str]
) -> dict[str, bytes]:
    """The kustomization kustomize-controller generates for the plain directory ``path``
    (fluxcd/pkg kustomize ``scanManifests``: every .yaml and .yml file below it), and the one of
    ``unit`` that builds it with Flux's ``targetNamespace`` (``Generator.GenerateManifest``:
    the generated kustomization's ``namespace``), which Argo CD's destination namespace matches
    where resolve let it through."""
    resources = [
        "./" + posixpath.relpath(name, path)
        for name in sorted(files)
        if name.endswith(FLUX_SUFFIXES)
    ]
    outer = {**KUSTOMIZATION, "resources": [posixpath.relpath(path, unit)]}
    if namespace is not None:
        outer["namespace"] = namespace
    return {
        f"{path}/kustomization.yaml": dump({**KUSTOMIZATION, "resources": resources}).encode(),
        f"{unit}/kustomization.yaml": dump(outer).encode(),
    }
