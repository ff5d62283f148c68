"""diff: the report's notes about what generated files do not show — changed bases and charts
not rendered, cluster renames Flux must bootstrap again, Helm uninstalls, clusters selected by
label at run time."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fleetgen.diff.blast import HELM_GROUP, Change, Side, keeps_objects
from fleetgen.diff.rendercharts import changed_charts


def _runtime_notes(base: Side, head: Side, apps: Iterable[str]) -> list[str]:
    """Apps selected by label at run time (``Selector(runtime=True)``): the clusters listed are
    the ones fleet.py declares; Argo CD may also apply the change to clusters registered by
    another tool that carry the labels."""
    runtime = {
        app.name
        for side in (base, head)
        if side.loaded is not None
        for app in side.loaded.fleet.apps
        if app.targets.runtime
    }
    return [
        f"app {name} selects clusters by label at run time (Selector(runtime=True)): this "
        "blast radius covers only the clusters fleet.py declares; Argo CD also applies the "
        "change to any other registered cluster carrying its labels"
        for name in sorted(runtime & set(apps))
    ]


def _notes(
    base: Side, head: Side, renamed: Mapping[str, Mapping[str, str]], bases: set[str], render: bool
) -> list[str]:
    notes = []
    if bases and not render:
        notes.append(
            f"the kustomize base of {', '.join(sorted(bases))} changed, which generated "
            "files do not show: run `fleetgen diff --render` to see what it deploys"
        )
    if not render:
        notes += [
            f"the chart of {app} ({path}) changed, which generated files do not show: run "
            "`fleetgen diff --render` to see what it deploys"
            for app, path in changed_charts(base, head).items()
        ]
    for old, new in sorted(renamed["cluster"].items()):
        on_flux = "flux" in {
            engine for (_, cluster), engine in base.facts.engine.items() if cluster == old
        }
        if on_flux and base.facts.flux_per_cluster and head.facts.flux_per_cluster:
            notes.append(
                f"cluster {old} renamed to {new}: its Flux is bootstrapped with "
                f"--path={base.shown(f'flux/clusters/{old}')}; bootstrap it again with "
                f"--path={head.shown(f'flux/clusters/{new}')}"
            )
    if any(renamed.values()):
        notes.append("Argo CD and Flux apply a rename as a deletion and a creation")
    return notes


def _uninstalls(changes: list[Change]) -> list[str]:
    """A note per removed HelmRelease (a Flux chart app removed or moved to Argo CD): what
    helm-controller's uninstall does to what the release installed."""
    notes = []
    for change in changes:
        key = change.obj.key
        if change.op != "removed" or (key.group, key.kind) != (HELM_GROUP, "HelmRelease"):
            continue
        on = ", ".join(sorted(change.where.clusters)) or key.namespace
        fate = (
            "Helm leaves the objects annotated helm.sh/resource-policy: keep by its "
            "post-renderer (cascade_delete=False; only objects rendered since the "
            "post-renderer was added carry it)"
            if keeps_objects(change.obj.doc)
            else "deleting every object the release installed"
        )
        notes.append(
            f"Flux chart app {change.where.app or key.name} leaves {on}: "
            f"helm-controller uninstalls release {key.name}, {fate}; CRDs from the "
            "chart's crds/ stay"
        )
    return notes
