"""Per-app units: what one app compiles to by itself, and the fold of every app's into the output.

Most of the output is per app: the files an app alone writes (its overlays, its ApplicationSets)
and its objects in each cluster's Flux ``kustomizations.yaml``, which it shares with the other
apps placed there. The rest (cluster registrations, AppProjects, Namespaces, tenants, the
bootstrap, the fleet map) is computed from the whole Plan. A `Unit` is computed from `Plan.only`,
so nothing of another app can reach it: it is a function of the app, its base or chart and the
fleet without its apps, which is what `fleetgen.unitcache` keys it by to reuse it across builds.

`emit_each` is the one way the output of a fleet is made, whether its units were computed now or
read back, so a rebuild from cached units cannot differ from a cold build. A Flux hub
(`FluxOptions(mode="hub")`) orders its rollout across apps: its fleets are emitted whole.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fleetgen.buildcache import Emitted
from fleetgen.emit import argocd, fleetmap, flux, overlays
from fleetgen.emit.argocd.appsets import Labels, application_sets, registration_labeller
from fleetgen.emit.fleetmap import AppRows
from fleetgen.emit.flux.objects import Order
from fleetgen.output import OutputFile
from fleetgen.plan import Plan

Docs = Sequence[tuple[Order, Any]]  # objects of a shared file, each with its order there


@dataclass(frozen=True, slots=True)
class Unit:
    """What one app compiles to by itself.

    Attributes:
        files: (emitter, file) of each file only this app writes.
        docs: path of each Flux ``kustomizations.yaml`` it is in -> its objects there.
        kinds: (group, kind) of its Argo CD documents (the bootstrap project whitelists them).
        rows: its rows of the fleet map.
    """

    files: tuple[tuple[str, OutputFile], ...]
    docs: Mapping[str, Docs]
    kinds: tuple[tuple[str, str], ...]
    rows: AppRows


def supported(plan: Plan) -> bool:
    """Whether the Plan's output is made of per-app units (not for a Flux hub)."""
    return plan.fleet.flux.mode != "hub"


class Units:
    """Computes the unit of each app of one Plan (sharing what apps have in common). A unit is
    always whole, every emitter's part of it, whichever files a caller wants: the cache keeps
    it under its app's key alone (`fleetgen.unitcache`)."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._labels: Labels = registration_labeller(plan)
        self._columns = fleetmap.Columns.of(plan)
        self._homes = flux.homes(plan)

    def of(self, app: str) -> Unit:
        """The unit of ``app``."""
        one, engines = self._plan.only(app), self._plan.fleet.engines
        files = [("overlays", file) for file in overlays.emit(one)]
        appsets = application_sets(one.on("argocd"), self._labels) if "argocd" in engines else []
        files += [("argocd", file) for file in appsets]
        docs = flux.app_docs(one.on("flux"), self._homes) if "flux" in engines else {}
        return Unit(
            tuple(files),
            docs,
            tuple(sorted(argocd.kinds(appsets))),
            fleetmap.app_rows(one, self._columns),
        )


def emit_each(
    plan: Plan, units: Mapping[str, Unit], names: Collection[str], whole: Plan
) -> Emitted:
    """The files of the Plan by emitter (those ``names`` names, in registry order), made of the
    ``units`` of all its apps and the whole Plan (``whole``: as `fleetgen.interface.project`
    leaves it, what the files of the whole Plan may read)."""
    kinds = {kind for unit in units.values() for kind in unit.kinds}
    rows = {app: unit.rows for app, unit in units.items()}
    files = [
        *((emitter, file) for unit in units.values() for emitter, file in unit.files),
        *shared_files(whole, names, kinds, rows),
    ]
    if "flux" in names:
        files += [
            ("flux", file) for file in flux.kustomizations(whole, shared_docs(units.values()))
        ]
    return [(name, [file for emitter, file in files if emitter == name]) for name in names]


def shared_files(
    plan: Plan,
    names: Collection[str],
    kinds: Iterable[tuple[str, str]],
    rows: Mapping[str, AppRows],
) -> list[tuple[str, OutputFile]]:
    """(emitter, file) of each file made from the whole Plan and the units' summaries (of the
    emitters ``names`` names): the fleet map (``rows``: every app's); Argo CD registrations,
    AppProjects, tenants and the bootstrap (``kinds``: of the units' Argo CD documents); Flux
    Namespaces, sources and tenants."""
    files = (
        [("fleetmap", file) for file in fleetmap.emit_rows(plan, rows)]
        if "fleetmap" in names
        else []
    )
    if "argocd" in names:
        files += [("argocd", file) for file in argocd.shared(plan.on("argocd"), kinds)]
    if "flux" in names:
        files += [("flux", file) for file in flux.cluster_files(plan.on("flux"))]
    return files


def shared_docs(units: Iterable[Unit]) -> dict[str, list[tuple[Order, Any]]]:
    """Path -> the objects of every unit in that shared file, units in the order given (app
    name order, as the Plan's placements: their sort then keeps the Plan's order of equals)."""
    found: dict[str, list[tuple[Order, Any]]] = {}
    for unit in units:
        for path, docs in unit.docs.items():
            found.setdefault(path, []).extend(docs)
    return found
