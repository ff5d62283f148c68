"""Helpers of the overlays emitter."""

from __future__ import annotations

import itertools
import posixpath

from fleetgen.emit.overlays import _relative


def test_relative_is_relpath_for_plan_paths() -> None:
    """A cluster overlay reaches its environment's overlay by `_relative`, which must say what
    ``posixpath.relpath`` says for normalized relative paths (shared prefixes, one inside the
    other, the same path)."""
    parts = ["overlays", "app", "clusters", "c1", "dev", "a"]
    paths = [
        "/".join(chosen) for size in range(1, 4) for chosen in itertools.product(parts, repeat=size)
    ]
    for path, start in itertools.product(paths, paths[::7]):
        assert _relative(path, start) == posixpath.relpath(path, start), (path, start)
