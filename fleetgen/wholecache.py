"""What a compile keeps of the whole Plan under its apps' interfaces (`fleetgen.interface`), so
that a build after edits that leave every interface as it was resolves only the apps edited.

An entry ``whole/<key>`` is keyed by the code, the inputs the apps share (the fleet without
apps), each app's interface key in spec order (`unitcache.Keys.interfaces`) and the kinds of
the units' Argo CD documents (the bootstrap lists them). It holds what the compile computed from
the whole Plan as `interface.project` leaves it: the files made of it but the fleet map (which
shows each app's own rows: `fleetmap.emit_rows` makes it again each build), the comment of each
shared Flux file, the warnings, the number of placements and the placements ``diff`` reads.
Every build that resolves the whole fleet stores it; a build whose compile is new but whose
whole key is not (`output`) resolves only the apps whose units are not stored
(`resolve.resolve_apps`) and reads the rest back. Any doubt — an entry that cannot be read back
as written, an app that fails to resolve alone — sends the build down the full path.
"""

from __future__ import annotations

import hashlib
import marshal
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from fleetgen.buildcache import serialize
from fleetgen.cache import Cache, code_identity
from fleetgen.emit import fleetmap, names, units
from fleetgen.errors import Problem, SpecError
from fleetgen.load import Loaded
from fleetgen.resolve import resolve_apps
from fleetgen.unitcache import Keys, Output, Whole, kinds_and_rows, stored_indexes, units_of

WHOLE = "whole"
# Lookups of whole parts by outcome ("hit", "miss"), for tests and debugging.
LOOKUPS: Counter[str] = Counter()


@dataclass(frozen=True, slots=True)
class Stored:
    """What a compile keeps of the whole Plan (see the module docstring)."""

    files: Mapping[str, tuple[str, bytes]]  # path -> (emitter, `serialize`), but the fleet map
    comments: Mapping[str, str]
    warnings: list[Problem]
    placements: int
    dumped: bytes  # the placements ``diff`` reads, as `Placements.dump` wrote them


def key(keys: Keys, kinds: Iterable[tuple[str, str]]) -> str:
    """The key of the whole part of a compile of ``keys`` whose units' Argo CD documents have
    the ``kinds``."""
    return hashlib.sha256(
        marshal.dumps((code_identity(), keys.shared, list(keys.interfaces.items()), list(kinds)), 2)
    ).hexdigest()


def save(
    cache: Cache, entry: str, whole: Whole, warnings: list[Problem], placements: int, dumped: bytes
) -> None:
    """Store the whole part of a compile under ``entry`` (the fleet map aside); nothing when a
    file cannot be serialized."""
    files = {
        path: (emitter, data)
        for path, (emitter, data) in whole.files.items()
        if emitter != "fleetmap"
    }
    if any(data is None for _, data in files.values()):
        return
    cache.put_bytes(
        WHOLE,
        entry,
        marshal.dumps(
            (
                files,
                dict(whole.comments),
                [(w.message, w.file, w.line) for w in warnings],
                placements,
                dumped,
            ),
            2,
        ),
    )


def load(cache: Cache, entry: str) -> Stored | None:
    """The whole part stored under ``entry``; None when absent or not as `save` writes it."""
    stored = cache.get_bytes(WHOLE, entry)
    if stored is None:
        return None
    try:
        files, comments, warnings, placements, dumped = marshal.loads(stored)
        problems = [Problem(message, file, line) for message, file, line in warnings]
    except (ValueError, TypeError, EOFError):
        return None
    valid = (
        isinstance(files, dict)
        and isinstance(comments, dict)
        and isinstance(placements, int)
        and isinstance(dumped, bytes)
    )
    return Stored(files, comments, problems, placements, dumped) if valid else None


def output(
    cache: Cache, loaded: Loaded, keys: Keys, left_out: Collection[str] = (), rendered: bool = True
) -> tuple[Output, Stored] | None:
    """The output of ``loaded`` (but the emitters ``left_out``) of its units and the stored
    whole part whose key its apps' interfaces give, resolving only the apps whose units are not
    stored (those computed keep the texts of their objects when ``rendered``: `unitcache.store`);
    None (the caller compiles the whole fleet) when there is no such whole part, the fleet's
    output is not made of units, an app fails to resolve alone, or an app name is given
    twice."""
    fleet, workspace = loaded.fleet, loaded.workspace
    stored_units = stored_indexes(cache, keys)
    missing = [app for app, index in stored_units.items() if index is None]
    if len(keys.apps) != len(fleet.apps) or len(missing) == len(fleet.apps):
        return None  # a name given twice; no unit stored (a first build, or all changed)
    try:
        plan = resolve_apps(fleet, workspace, missing)
    except SpecError:
        return None
    if not units.supported(plan):
        return None

    def make(app: str) -> units.Unit:
        """The unit of ``app``: of those resolved above, or of an app whose stored data turns
        out damaged when read (resolved alone now)."""
        return units.Units(plan if app in missing else resolve_apps(fleet, workspace, [app])).of(
            app
        )

    made, indexes = units_of(cache, keys, make, rendered, stored_units)
    kinds, rows = kinds_and_rows(indexes)
    stored = load(cache, key(keys, kinds))
    LOOKUPS["miss" if stored is None else "hit"] += 1
    if stored is None:
        return None
    shared = replace(
        plan,
        fleet=fleet,
        placements=(),
        env_overlays=(),
        cluster_overlays=(),
        manifest_namespaces={},
        namespace_objects={},
    )  # no app's part
    emitters = [name for name in names(shared) if name not in left_out]
    fleet_map = fleetmap.emit_rows(shared, rows) if "fleetmap" in emitters else []
    whole = Whole(
        {**stored.files, **{file.path: ("fleetmap", serialize(file)) for file in fleet_map}},
        {file.path: file for file in fleet_map},
        stored.comments,
    )
    return Output(keys, emitters, made, indexes, whole), stored
