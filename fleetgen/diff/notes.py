"""diff: the report's notes about what generated files do not show — changed bases and charts
not rendered, cluster renames Flux must bootstrap again, Helm uninstalls, clusters selected by
label at run time."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import replace

from fleetgen.diff.blast import ARGO_GROUP, HELM_GROUP, Change, Side, keeps_objects
from fleetgen.diff.rendercharts import changed_charts
from fleetgen.diff.report import Deletion


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


def stranded(deletions: list[Deletion], changes: list[Change]) -> tuple[list[Deletion], list[str]]:
    """The deletions with the Argo CD Applications of a cluster whose registration the same
    change removes marked ``orphaned``, and a note per such cluster.

    The root Application prunes the registration in the same sync as the ApplicationSets stop
    generating the cluster's Applications, and an Application's finalizer that finds no
    destination cluster drops the cascade (argo-cd controller/appcontroller.go
    ``finalizeApplicationDeletion``: ``GetDestinationCluster`` fails, ``UnSetCascadedDeletion``),
    so nothing on the cluster is deleted."""
    unregistered = {
        posixpath.splitext(posixpath.basename(c.obj.file))[0]
        for c in changes
        if c.op == "removed" and c.obj.file.startswith("argocd/clusters/")
    }
    kept, clusters = [], set()
    for deletion in deletions:
        obj = deletion.change.obj
        destination = obj.doc.get("spec", {}).get("destination", {}) if obj.doc else {}
        cluster = destination.get("name") if isinstance(destination, dict) else None
        if (
            deletion.workloads == "deleted"
            and (obj.key.group, obj.key.kind) == (ARGO_GROUP, "Application")
            and cluster in unregistered
        ):
            deletion = replace(deletion, workloads="orphaned")
            clusters.add(cluster)
        kept.append(deletion)
    notes = [
        f"cluster {cluster}: its registration is removed in the same change as its "
        "Applications, so Argo CD cannot reach it to delete their resources (the finalizer "
        "drops the cascade): the workloads are orphaned. To delete them, first remove the "
        "apps from the cluster and let Argo CD sync, then remove the cluster"
        for cluster in sorted(clusters)
    ]
    return kept, notes
