"""Every distinct overlay of a compile kustomize-built once, in parallel, through the render cache
it shares with ``diff --render`` (`fleetgen.tools.renders`).

The overlays and the inputs of every app base are laid out in a scratch directory as the
repository holds them (nothing is written to the repository), so that every rendered object's
origin is a repository-relative path.
"""

from __future__ import annotations

import tempfile
from collections.abc import Collection, Sequence
from pathlib import Path

from fleetgen.inputs.reading import filesystem_lister, filesystem_reader
from fleetgen.pipeline import api
from fleetgen.resolver.plan import ClusterOverlay, EnvOverlay
from fleetgen.tools import renders
from fleetgen.tools.kustomize import find_kustomize
from fleetgen.tools.renders import Builds, Rendered
from fleetgen.util.cache import Cache
from fleetgen.util.progress import SILENT, Progress

__all__ = ["Builds", "Rendered", "render"]


def _bases(overlay: EnvOverlay | ClusterOverlay) -> list[str]:
    """The repo directories the build of ``overlay`` reads: its app's base and what its layers
    add (``Overrides(resources=..., components=...)``)."""
    base = overlay.base if isinstance(overlay, EnvOverlay) else overlay.env_overlay.base
    return [*([base] if base else []), *overlay.settings.resources, *overlay.settings.components]


def render(
    compiled: api.Compiled,
    root: Path,
    overlays: Sequence[str],
    progress: Progress = SILENT,
    directories: Collection[str] = (),
) -> Builds:
    """Build ``overlays`` (output-relative) and the plain ``directories``
    (`fleetgen.tools.renders.directory_unit`) as kustomize-controller does
    (`fleetgen.tools.renders.plain_directory`); reuse cached builds of identical inputs."""
    kustomize = find_kustomize()
    prefix = compiled.out_dir.resolve().relative_to(root).as_posix()
    plan = compiled.plan
    paths = {unit: found[0] for unit in directories if (found := renders.directory_of(unit))}
    read, files = filesystem_reader(root), filesystem_lister(root)
    generated = {
        f"{prefix}/{path}": data
        for path, data in compiled.rendered.items()
        if path.startswith("overlays/")
    }
    for unit, path in paths.items():
        generated |= renders.plain_directory(unit, files(path))
    with tempfile.TemporaryDirectory(prefix="fleetgen-validate-") as tmp:
        scratch = renders.lay_out(
            Path(tmp),
            generated,
            [
                *(base for overlay in plan.env_overlays for base in _bases(overlay)),
                *(base for overlay in plan.cluster_overlays for base in _bases(overlay)),
                *paths.values(),
            ],
            read,
            files,
        )
        inputs = {
            env.path: scratch.inputs(f"{prefix}/{env.path}", None, _bases(env))
            for env in plan.env_overlays
        }
        for overlay in plan.cluster_overlays:
            env = overlay.env_overlay
            inputs[overlay.path] = scratch.inputs(
                f"{prefix}/{overlay.path}", f"{prefix}/{env.path}", _bases(overlay)
            )
        names = {f"{prefix}/{overlay}": overlay for overlay in overlays}
        names |= {unit: unit for unit in directories}
        units = {f"{prefix}/{overlay}": inputs[overlay] for overlay in overlays}
        units |= {unit: scratch.inputs(unit, None, [path]) for unit, path in paths.items()}
        built = renders.build(scratch, units, Cache(compiled.out_dir), kustomize, progress)
    return Builds(
        {names[unit]: found for unit, found in built.objects.items()},
        {names[unit]: error for unit, error in built.failures.items()},
        built.distinct,
        built.built,
        built.cached,
        {names[unit]: entry for unit, entry in built.keys.items()},
    )
