"""Helpers of the overlays emitter."""

from __future__ import annotations

import itertools
import posixpath

from fleetgen.inputs.landing import relative


def test_relative_is_relpath_for_plan_paths() -> None:
    """Overlays reach their environment's overlay and their base by
    `fleetgen.inputs.landing.relative`,
    which must say what ``posixpath.relpath`` says for normalized relative paths (shared
    prefixes, one inside the other, the same path)."""
    parts = ["overlays", "app", "clusters", "c1", "dev", "a"]
    paths = [
        "/".join(chosen) for size in range(1, 4) for chosen in itertools.product(parts, repeat=size)
    ]
    for path, start in itertools.product(paths, paths[::7]):
        assert relative(path, start) == posixpath.relpath(path, start), (path, start)
