"""resolve: check every cross-reference of a Fleet and compute its Plan. Pure: no I/O.

Every problem is collected before anything is reported, so a user fixes a spec in one pass.
`run` drives the checks of `clusters` and `apps` over a `context`, then `build` makes the Plan.
"""

from fleetgen.resolver.run import resolve

__all__ = ["resolve"]
