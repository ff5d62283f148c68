"""resolve: check every cross-reference of a Fleet and compute its Plan. Pure: no I/O.

Every problem is collected before anything is reported, so a user fixes a spec in one pass.
`run` drives the checks of `clusters` and `apps` (with `overrides`, `sources` and `contents`)
over a `context`, then `build` makes the Plan (`plan`, its settings layered by `layering`).
"""

from fleetgen.resolver.run import resolve

__all__ = ["resolve"]
