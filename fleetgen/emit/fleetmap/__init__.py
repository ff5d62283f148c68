"""The fleet map ``README.md``: apps × clusters by environment with each placement's engine, rollout
waves, image and chart versions per environment, each cluster's credential kind, how each engine
is bootstrapped, project boundaries, and the versions matrix of ``fleetgen versions``.

Engine-neutral and rendered from ``templates/fleetmap.md.j2``, so a reviewer sees on the Git host
where everything runs without reading the generated YAML. In two parts, so that a build reuses
what an unchanged app shows: `rows.app_rows`, one app's rows as plain data, and
`readme.emit_rows`, which folds every app's rows with the fleet's shared data: the tables of
`tables` (environments, charts, images, projects), what `clusters` says of each cluster and how
each engine starts and which release it needs (`engines`). ``check``, ``warnings`` and ``emit``
are in `readme`.
"""

from fleetgen.emit.fleetmap.readme import check, emit, warnings

__all__ = ["check", "emit", "warnings"]
