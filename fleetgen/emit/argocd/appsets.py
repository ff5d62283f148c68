"""ApplicationSets ``argocd/applicationsets/<app>.yaml``: one per (app, environment).

Here the files, their headers and each ApplicationSet around its cluster generators
(`fleetgen.emit.argocd.generators`) and the template of the Applications they generate
(`fleetgen.emit.argocd.application`): the sync policy in the template when every generator's
clusters share one (else each generator passes its own), and RollingSync over rollout waves.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from fleetgen.emit.argocd.application import template
from fleetgen.emit.argocd.common import go_text, metadata
from fleetgen.emit.argocd.generators import (
    NAMESPACE,
    SOURCE_PATH,
    generator,
    groups,
    var_selector,
)
from fleetgen.emit.common import registration_labels
from fleetgen.model import App, Environment, OciSource, RemoteSource
from fleetgen.model.fields import VAR_PREFIX
from fleetgen.resolver.plan import EnvOverlay, Placement, Plan
from fleetgen.rules.argocd import API_VERSION
from fleetgen.write.output import APP_LABEL, ENV_LABEL, WAVE_LABEL, OutputFile

SYNC_PATCH = "spec:\n  syncPolicy: {{ .values.syncPolicy }}\n"
DEPENDS_ON_NOTE = (
    "Argo CD syncs Applications independently (sync waves do not order generated apps)"
)
# Per-resource sync option: the root Application applies ApplicationSets server-side, since a
# generator list for many clusters outgrows client-side apply's last-applied annotation (256 KiB).
SERVER_SIDE = {"argocd.argoproj.io/sync-options": "ServerSideApply=true"}
SELF_HEAL_NOTE = (
    "RollingSync turns automated sync off on the generated Applications and syncs\n"
    "them itself, wave by wave, when Git changes: self_heal has no effect there."
)
PROGRESSIVE_NOTE = (
    "Progressive sync (strategy RollingSync) needs the ApplicationSet controller flag\n"
    "--enable-progressive-syncs (argocd-cmd-params-cm:\n"
    'applicationsetcontroller.enable.progressive.syncs: "true"); without it Argo CD\n'
    "ignores the strategy and syncs every cluster at once."
)


Labels = Callable[[str], dict[str, str]]  # a cluster's name -> the labels of its registration


def registration_labeller(plan: Plan) -> Labels:
    """`registration_labels` by cluster name, each computed once (they depend on the cluster and
    the rollout waves, not on an app: one labeller serves every app)."""
    clusters = {cluster.name: cluster for cluster in plan.fleet.clusters}
    return functools.cache(lambda cluster: registration_labels(plan, clusters[cluster]))


def application_sets(plan: Plan) -> list[OutputFile]:
    """One file per app holding its ApplicationSets, in the fleet's environment order."""
    by_app: defaultdict[str, defaultdict[str, list[Placement]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for placement in plan.placements:
        by_app[placement.app][placement.env].append(placement)
    apps = {app.name: app for app in plan.fleet.apps}
    envs = {env.name: env for env in plan.fleet.environments}
    overlays = {(o.app, o.env): o for o in plan.env_overlays}
    labels = registration_labeller(plan)
    files = []
    for name in sorted(by_app):
        placed = [(envs[env], by_app[name][env]) for env in envs if env in by_app[name]]
        docs = tuple(
            _application_set(plan, apps[name], env, overlays.get((name, env.name)), ps, labels)
            for env, ps in placed
        )
        remote = placed[0][1][0].remote
        plain = remote.path if remote is not None and remote.source is None else ""
        files.append(
            OutputFile(
                f"argocd/applicationsets/{name}.yaml",
                docs,
                comment=_header(apps[name], [env for env, _ in placed], plain)
                + _vars_note(plan, [p for _, ps in placed for p in ps]),
            )
        )
    return files


def _header(app: App, envs: Sequence[Environment], plain: str = "") -> str:
    """``plain``: the directory of an app that reads a plain directory of this repository."""
    names = ", ".join(env.name for env in envs)
    text = (
        f"ApplicationSets of app {app.name}, one per environment ({names}); each generates\n"
        f"an Application {app.name}-<cluster> for every cluster the app is placed on."
    )
    rolling = [env.name for env in envs if env.rollout is not None]
    if rolling:
        text += (
            f"\nRolling out in waves: {', '.join(rolling)}.\n{PROGRESSIVE_NOTE}\n{SELF_HEAL_NOTE}"
        )
    if app.targets.runtime:
        text += (
            "\nClusters are selected by label when the ApplicationSet runs\n"
            "(Selector(runtime=True)): clusters registered later are included, so\n"
            "`fleetgen diff` knows only the clusters fleet.py declares."
        )
    if app.source is not None:
        text += "\n" + remote_note(app.source)
    elif plain:
        text += (
            f"\nManifests of the plain directory {plain} (no kustomization.yaml, no overlay),\n"
            "read as they are: a directory source with recurse."
        )
    if app.depends_on:
        text += (
            f"\nThis app depends_on {', '.join(app.depends_on)}, which only Flux honours:\n"
            f"{DEPENDS_ON_NOTE}."
        )
    return text


def _vars_note(plan: Plan, placements: Sequence[Placement]) -> str:
    """What the cluster Secrets an app selecting clusters at run time reads its vars from must
    carry, and what a Secret lacking one does: passed over (`var_selector`), or before Argo CD
    3.4 a failed generation (`go_var`'s ``fail``), after which the ApplicationSet controller's
    ``Reconcile`` returns before it creates, updates or deletes any Application of the set."""
    names = sorted({n for p in placements if p.template for n in p.template.var_names()})
    if not names:
        return ""
    keys = ", ".join(VAR_PREFIX + name for name in names)
    if var_selector(plan, placements):
        return (
            f"\nEach cluster Secret selected must carry the annotations\n{keys};\n"
            "a generator selector passes over one that lacks any."
        )
    return (
        f"\nEach cluster Secret selected must carry the annotations\n{keys}:\n"
        "one that lacks any fails the generation, and the ApplicationSet then creates,\n"
        "updates and deletes no Application of that environment, on any cluster, until\n"
        "it is fixed; its ErrorOccurred condition shows the root Application Degraded\n"
        "(Argo CD >= 3.4, ArgoOptions(min_version), passes over it instead)."
    )


def remote_note(source: RemoteSource) -> str:
    """What an app from another source needs from Argo CD, for its file's header."""
    if isinstance(source, OciSource):
        return (
            f"Manifests from the OCI artifact {source.url} (no overlay). Argo CD reads the\n"
            "layer media types in reposerver.oci.layer.media.types; an artifact pushed by\n"
            "`flux push artifact` (application/vnd.cncf.flux.content.v1.tar+gzip) needs it\n"
            "added there."
        )
    return (
        f"Manifests from {source.url} (no overlay); a private repository needs\n"
        "repository credentials in Argo CD (a Secret labelled\n"
        "argocd.argoproj.io/secret-type: repository or repo-creds)."
    )


def _application_set(
    plan: Plan,
    app: App,
    env: Environment,
    env_overlay: EnvOverlay | None,
    placements: Sequence[Placement],
    labels: Callable[[str], dict[str, str]],
) -> dict[str, Any]:
    """``labels``: a cluster's name -> the labels of its registration."""
    ordered = groups(plan, app, env_overlay, placements)
    syncs = {group.sync for group, _ in ordered}
    uniform = json.loads(syncs.pop()) if len(syncs) == 1 else None
    charts = [group.chart for group, _ in ordered if group.chart is not None]
    paths = {group.source_path for group, _ in ordered if group.source_path}
    source_path = paths.pop() if len(paths) == 1 else SOURCE_PATH if paths else ""
    # one namespace (App.namespace or a layer's) for all: the template's; else each generator's
    namespaces = {group.namespace for group, _ in ordered}
    per_generator = len(namespaces) > 1
    only = None if per_generator else namespaces.pop()
    destination = NAMESPACE if per_generator else go_text(only) if only is not None else None
    placed = {placement.cluster: placement for placement in placements}
    reads = [WAVE_LABEL] if env.rollout is not None else []
    _check_reads([name for _, names in ordered for name in names], reads, labels)
    spec: dict[str, Any] = {
        "goTemplate": True,
        "goTemplateOptions": ["missingkey=error"],
        "generators": [
            generator(
                env,
                group,
                names,
                uniform is None,
                charts,
                app.targets if app.targets.runtime else None,
                source_path == SOURCE_PATH,
                per_generator,
            )
            | (var_selector(plan, [placed[n] for n in names]) if app.targets.runtime else {})
            for group, names in ordered
        ],
        "template": template(
            plan,
            app,
            env,
            uniform,
            charts,
            placements[0].cascade_delete,
            destination,
            source_path,
        ),
    }
    if uniform is None:
        spec["templatePatch"] = SYNC_PATCH
    if env.rollout is not None:
        spec["strategy"] = _rolling_sync(plan, env, {p.cluster for p in placements})
    spec["syncPolicy"] = {"preserveResourcesOnDeletion": not placements[0].cascade_delete}
    return {
        "apiVersion": API_VERSION,
        "kind": "ApplicationSet",
        "metadata": metadata(
            f"{app.name}-{env.name}",
            plan.fleet.argocd.namespace,
            labels={APP_LABEL: app.name, ENV_LABEL: env.name},
            annotations=SERVER_SIDE,
        ),
        "spec": spec,
    }


def _check_reads(
    clusters: Sequence[str], reads: Sequence[str], labels: Callable[[str], dict[str, str]]
) -> None:
    """Every registration label the template reads exists on every selected registration."""
    for name in clusters if reads else ():
        missing = [key for key in reads if key not in labels(name)]
        if missing:
            raise RuntimeError(
                f"fleetgen bug: the registration of cluster {name!r} lacks "
                f"label(s) {sorted(missing)} that its ApplicationSet reads"
            )


def _rolling_sync(plan: Plan, env: Environment, placed: set[str]) -> dict[str, Any]:
    """RollingSync steps over the Application wave label; steps without this app are left out."""
    assert env.rollout is not None
    steps = [
        {
            "matchExpressions": [{"key": WAVE_LABEL, "operator": "In", "values": [str(number)]}],
            "maxUpdate": step.max_update,
        }
        for number, (clusters, step) in enumerate(
            zip(plan.waves[env.name], env.rollout.steps, strict=True), 1
        )
        if placed & set(clusters)
    ]
    return {"type": "RollingSync", "rollingSync": {"steps": steps}}
