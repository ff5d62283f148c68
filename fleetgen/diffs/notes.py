"""diff: the report's notes about what generated files do not show — changed bases and charts
not rendered, cluster renames whose Flux root must move, Helm uninstalls, clusters selected by
label at run time."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.diffs.blast import ARGO_GROUP, FLUX_GROUP, HELM_GROUP, Change, Side, keeps_objects
from fleetgen.diffs.objects import Obj
from fleetgen.diffs.render import plain
from fleetgen.diffs.rendercharts import changed_charts
from fleetgen.diffs.report import Deletion
from fleetgen.inputs.record import done_when
from fleetgen.manifests.k8s import kustomize_config
from fleetgen.rules.argoproject import destination_permitted
from fleetgen.rules.flux import gate_name
from fleetgen.util.layout import argocd_part


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
    plain_apps = {app for app in bases if plain(head, app)}
    for what, apps in (("kustomize base", bases - plain_apps), ("plain directory", plain_apps)):
        if apps and not render:
            notes.append(
                f"the {what} of {', '.join(sorted(apps))} changed, which generated files do "
                "not show: run `fleetgen diff --render` to see what it deploys"
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
            was, now = base.shown(f"flux/clusters/{old}"), head.shown(f"flux/clusters/{new}")
            notes.append(
                f"cluster {old} renamed to {new}: its Flux is bootstrapped with --path={was}, "
                "which flux bootstrap refuses to change (the root Kustomization is there with "
                f"another path); move it in Git: commit {now}/flux-system/ (a copy of {was}'s) "
                f"with the path in gotk-sync.yaml set to {now} there and in {was}'s (the root "
                f"applies its new path itself), then, once Flux applied it, remove {was}"
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
        if c.op == "removed" and argocd_part(c.obj.file) == "clusters"
    }

    def cluster(spec: Mapping[str, Any], _: Obj) -> str | None:
        name = str((spec.get("destination") or {}).get("name") or "")
        return name if name in unregistered else None

    kept, clusters = _orphaning(deletions, cluster)
    return kept, [
        f"cluster {name}: its registration is removed in the same change as its "
        "Applications, so Argo CD cannot reach it to delete their resources (the finalizer "
        "drops the cascade): the workloads are orphaned. To delete them, first remove the "
        "apps from the cluster and let Argo CD sync, then remove the cluster"
        for name in clusters
    ]


def narrowed(deletions: list[Deletion], head: Side) -> tuple[list[Deletion], list[str]]:
    """The deletions with the Argo CD Applications whose destination their project no longer
    permits at ``head`` marked ``orphaned``, and a note per such project.

    The narrowed AppProject syncs first (wave -1), before the ApplicationSets stop generating
    the Application, and the Application's finalizer deletes only the live objects its project
    permits (argo-cd controller/appcontroller.go ``finalizeApplicationDeletion`` →
    ``getPermittedAppLiveObjects``): nothing is deleted."""

    def locked_out(spec: Mapping[str, Any], app: Obj) -> str | None:
        name = str(spec.get("project") or "")
        destination = spec.get("destination") or {}
        project = _project(head, name, app.file)
        permitted = project is None or destination_permitted(
            project,
            str(destination.get("name") or ""),
            str(destination.get("server") or ""),
            str(destination.get("namespace") or ""),
        )
        return None if permitted else name

    kept, projects = _orphaning(deletions, locked_out)
    return kept, [
        f"project {name}: it no longer permits where its removed Applications deploy, and Argo CD "
        "applies the narrowed AppProject before it removes them, whose finalizers then delete "
        "only what the project permits: the workloads are orphaned. To delete them, remove the "
        "apps first and let Argo CD sync, then narrow the project"
        for name in projects
    ]


def draining_notes(base: Side, head: Side, deleting: bool) -> list[str]:
    """A note per removal that starts or stops draining (`fleetgen.settle.draining`), and per
    HelmRelease move that starts or ends (`fleetgen.settle.moves`): what fleetgen keeps for the
    controllers and how to confirm it is done, or what goes; the order of events only where a
    removed Application or Kustomization deletes its workloads (``deleting``)."""
    before, after, drains = base.record.pending, head.record.pending, head.record.draining
    notes = [
        f"{name} moves, step by step: fleetgen keeps {after[name]}; once {done_when(name)}, "
        f"run `fleetgen build --drained {name}` and commit{_unchecked_gate(head, name)}"
        for name in sorted(after.keys() - before.keys())
        if name in head.record.moving
    ]
    notes += [
        f"{name} drains: fleetgen keeps {after[name]} (annotated "
        f"fleetgen.io/draining) while the controllers "
        f"{'prune' if drains[name].kinds_only() else 'delete its placements'}; once "
        f"{done_when(name, drains[name])}, run `fleetgen build --drained {name}` and commit"
        for name in sorted(after.keys() - before.keys())
        if name in drains
    ]
    if deleting and any(
        not drains[n].kinds_only() for n in after.keys() - before.keys() if n in drains
    ):
        notes.append(
            "order of events: this change's sync applies the kept objects (AppProjects first, "
            "wave -1) and stops generating the removed placements (ApplicationSets, wave 0; "
            "the cluster's Kustomizations); each removed Application's or Kustomization's "
            "finalizer then deletes its workloads through what is kept; what is kept goes "
            "only with a later `fleetgen build --drained`"
        )
    notes += [
        f"{name} finished moving: its own Kustomization applies it, no longer annotated"
        if name in base.record.moving
        else f"{name} no longer drains: what was kept for its deletion goes now"
        for name in sorted(before.keys() - after.keys())
    ]
    return notes


def tenant_prunes(changes: list[Change]) -> list[str]:
    """Notes on what Argo CD does with the tenants' objects that leave ``tenants/<cluster>/``
    and with a removed Application ``<cluster>.tenants``. Its automated sync prunes what leaves
    its folder but skips what carries ``Prune=false``, as the tenants' Namespaces do
    (gitops-engine ``syncContext.pruneObject`` → ``isPruningDisabled``); it has no resources
    finalizer, so its removal deletes nothing (argo-cd ``finalizeApplicationDeletion`` deletes
    only when ``CascadedDeletion()``)."""
    removed = sorted(
        (c.obj for c in changes if c.op == "removed" and c.source != "rendered"), key=named
    )
    gone = {
        o.key.name.removesuffix(_TENANTS)
        for o in removed
        if o.key.kind == "Application" and o.key.name.endswith(_TENANTS)
    }
    left: dict[str, list[str]] = defaultdict(list)  # cluster -> the accounts and bindings
    stay: dict[str, list[str]] = defaultdict(list)  # cluster -> the Namespaces
    for obj in removed:
        top, _, cluster = posixpath.dirname(obj.file).partition("/")
        if top == "tenants" and not kustomize_config(obj.doc):
            (stay if obj.key.kind == "Namespace" else left)[cluster].append(named(obj))
    notes = []
    for cluster in sorted({*left, *stay, *gone}):
        application = f"Application {cluster}{_TENANTS}"
        if left[cluster] and cluster in gone:
            notes.append(
                f"{', '.join(left[cluster])} on {cluster}: orphaned: {application} goes with "
                "them and, without a resources finalizer, deletes nothing"
            )
        elif left[cluster]:
            notes.append(
                f"{', '.join(left[cluster])} on {cluster}: deleted, pruned by {application} "
                f"(its automated sync prunes what leaves tenants/{cluster}/)"
            )
        elif cluster in gone:
            notes.append(
                f"{application} goes and deletes nothing (no resources finalizer): what it "
                "applied was pruned before, its Namespaces stay"
            )
        if stay[cluster]:
            notes.append(
                f"{', '.join(stay[cluster])} on {cluster}: stay (Prune=false: Argo CD's prune "
                "and a removed Application without finalizer leave them)"
            )
    return notes


_TENANTS = ".tenants"


def _unchecked_gate(side: Side, name: str) -> str:
    """What the first step of move ``name`` (``release/<cluster>/<app>``) cannot hold: the root
    applies the HelmRelease then, and with ``source_per_namespace`` a spoke's gate reads the
    spoke's GitRepository, the root another, so kustomize-controller's ``checkDependencies``
    compares no revision (`fleetgen.settle.moves`); "" elsewhere."""
    fleet = side.loaded.fleet if side.loaded is not None else None
    _, cluster, app = name.split("/")
    if fleet is None or not fleet.flux.source_per_namespace or cluster == fleet.flux.hub:
        return ""
    if not any(app in other.depends_on for other in fleet.apps):
        return ""
    return (
        f"; until then its gate {gate_name(app)} on {cluster} reads the spoke's GitRepository "
        "and the root another, so it checks only that the root is Ready: on an upgrade in this "
        f"step, the apps that depend on {app} may apply before its HelmRelease is upgraded"
    )


def instance_moves(deletions: list[Deletion], changes: list[Change]) -> list[str]:
    """A note per cluster whose Applications leave one Argo CD instance for another under the
    same names: what the leaving instance's removal does and that the other adopts the
    workloads. Both track them by Application name (argo-cd util/argo ``GetAppName``), so the
    arriving Application's first sync applies over the live objects; the leaving one deletes
    them only with its resources finalizer (``finalizeApplicationDeletion``), which a build
    refuses here (`fleetgen.settle.handover`) until an orphaning sync dropped it
    (``createOrUpdateInCluster`` copies the template's finalizers)."""
    arriving = {
        (c.obj.key.name, c.where.cluster): _instance(c)
        for c in changes
        if c.op == "added" and c.source == "derived"
    }
    moving: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for deletion in deletions:
        change = deletion.change
        leaves = _instance(change)
        arrives = arriving.get((change.obj.key.name, change.where.cluster))
        if change.source == "derived" and arrives not in (None, leaves):
            where = (str(change.where.cluster), leaves, str(arrives), deletion.workloads or "")
            moving[where].append(change.obj.key.name)
    return [
        f"Applications {', '.join(sorted(names))} on {cluster} change Argo CD instance "
        f"({leaves} → {arrives}): both track the workloads by Application name; "
        + (
            f"the {leaves} instance removes its Applications, whose resources finalizer "
            f"deletes the workloads, including what the {arrives} instance's have just "
            "adopted: orphan them first (docs/draining.md)"
            if fate == "deleted"
            else f"the {leaves} instance removes its Applications, deleting nothing "
            f"(workloads {fate}), and the {arrives} instance's adopt them on their first sync"
        )
        for (cluster, leaves, arrives, fate), names in sorted(moving.items())
    ]


def _instance(change: Change) -> str:
    """The folder of the Argo CD instance whose ApplicationSet generates a derived Application,
    as the report shows it (``output/argocd-prod/``)."""
    return change.file.removesuffix(change.obj.file.partition("/")[2])


def named(obj: Obj) -> str:
    """``Kind namespace/name`` of an object, as the notes name it."""
    return f"{obj.key.kind} {'/'.join(filter(None, (obj.key.namespace, obj.key.name)))}"


def stuck(deletions: list[Deletion], changes: list[Change]) -> tuple[list[Deletion], list[str]]:
    """The deletions whose finalizer cannot finish because the same change removes what it
    needs, marked ``stuck``, and a note per cause (what fleetgen's draining keeps, when the
    output before the change recorded it: `fleetgen.settle.draining`).

    - An Argo CD Application whose AppProject goes: argo-cd ``finalizeApplicationDeletion``
      fails at ``getAppProj`` and is retried until the project is back.
    - A Flux Kustomization applied through a kubeConfig (a hub spoke) whose kubeconfig or
      namespace goes: kustomize-controller ``finalize`` cannot get a client
      (``impersonation.GetClient``) and is retried forever; the namespace stays Terminating."""
    removed = {
        (c.obj.key.group, c.obj.key.kind, c.obj.key.namespace, c.obj.key.name)
        for c in changes
        if c.op == "removed"
    }

    def projectless(spec: Mapping[str, Any], app: Obj) -> str | None:
        project = str(spec.get("project") or "")
        gone = (ARGO_GROUP, "AppProject", app.key.namespace, project) in removed
        return f"project {project}" if gone else None

    def unreachable(spec: Mapping[str, Any], kustomization: Obj) -> str | None:
        namespace = kustomization.key.namespace
        config = spec.get("kubeConfig") or {}
        ref = config.get("secretRef") or config.get("configMapRef") or {}
        name = str(ref.get("name") or "")
        gone = ("", "Namespace", "", namespace) in removed or any(
            key[2:] == (namespace, name) and key[1] in ("Secret", "ExternalSecret", "ConfigMap")
            for key in removed
        )
        return f"namespace {namespace} (its kubeconfig)" if name and gone else None

    kept, projects = _orphaning(deletions, projectless, "stuck")
    kept, spokes = _orphaning(kept, unreachable, "stuck", (FLUX_GROUP, "Kustomization"))
    return kept, [
        f"{cause}: removed in the same change as what is deleted through it, so the "
        "controller's finalizer cannot finish and retries forever (stuck). Remove the apps "
        "first and let the controllers delete them, then the rest — or build with "
        "cascade_delete=True from an output that records it, and fleetgen keeps it draining"
        for cause in [*projects, *spokes]
    ]


def _orphaning(
    deletions: list[Deletion],
    cause: Callable[..., str | None],
    fate: str = "orphaned",
    kind: tuple[str, str] = (ARGO_GROUP, "Application"),
) -> tuple[list[Deletion], list[str]]:
    """The deletions with every removed object of ``kind`` said to delete its workloads, for
    which ``cause`` (given its spec and the object) names why its finalizer cannot, marked
    ``fate``; and the causes named, sorted."""
    kept, causes = [], set()
    for deletion in deletions:
        obj = deletion.change.obj
        spec = obj.doc.get("spec") if isinstance(obj.doc, dict) else None
        if (
            deletion.workloads == "deleted"
            and (obj.key.group, obj.key.kind) == kind
            and isinstance(spec, dict)
            and (named := cause(spec, obj)) is not None
        ):
            deletion = replace(deletion, workloads=fate)
            causes.add(named)
        kept.append(deletion)
    return kept, sorted(causes)


def _project(side: Side, name: str, beside: str) -> Mapping[str, Any] | None:
    """The spec of the AppProject ``name`` as ``side`` emits it in the Argo CD instance of the
    file ``beside`` (None: not emitted)."""
    instance = beside.partition("/")[0]
    file = side.files.get(f"{instance}/projects/{name}.yaml")
    for doc in file.documents if file is not None else ():
        if isinstance(doc, dict) and doc.get("kind") == "AppProject":
            spec = doc.get("spec")
            return spec if isinstance(spec, dict) else None
    return None
