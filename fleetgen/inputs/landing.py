"""Where the output files land relative to the repository (`Landing`), and the relative paths
the overlays reach the bases by. Kept apart from the Plan: the no-op build's proof reads it
without importing the rest of the pipeline."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fleetgen.model import Fleet


@dataclass(frozen=True, slots=True)
class Landing:
    """Where the output files land, relative to the repository root: the root and the output
    folder as paths below the nearest folder holding both ("" for that folder itself).

    The fleet's own ``output_dir`` is ``Landing("", output_dir)``; ``build --out`` may put the
    files elsewhere (``/tmp/out`` for ``/work/repo/fleet.py``: ``Landing("work/repo",
    "tmp/out")``). Only the overlays' relative paths to the bases depend on it: what the
    controllers read in Git keeps ``output_dir``.
    """

    root: str
    output: str

    @classmethod
    def of(cls, fleet: Fleet) -> Landing:
        """The fleet's own ``output_dir``."""
        return cls("", fleet.output_dir)

    @classmethod
    def between(cls, root: PurePath, output: PurePath) -> Landing:
        """The output folder ``output`` of the repository ``root`` (both absolute, resolved)."""
        common = PurePath(os.path.commonpath([root, output]))
        return cls(_below(root, common), _below(output, common))

    def to(self, path: str, start: str) -> str:
        """The repo-relative ``path`` relative to the output-relative folder ``start`` (both
        normalized)."""
        return relative(posixpath.join(self.root, path), posixpath.join(self.output, start))


def _below(path: PurePath, folder: PurePath) -> str:
    found = path.relative_to(folder).as_posix()
    return "" if found == "." else found


def relative(path: str, start: str) -> str:
    """``posixpath.relpath(path, start)`` for two normalized relative paths (no ``.``, ``..`` or
    empty parts), as Plan paths are, without making both absolute through the working
    directory first as ``relpath`` does."""
    parts, start_parts = path.split("/"), start.split("/")
    common = 0
    for part, start_part in zip(parts, start_parts, strict=False):
        if part != start_part:
            break
        common += 1
    return "/".join([".."] * (len(start_parts) - common) + parts[common:]) or "."
