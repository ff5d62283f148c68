"""ApplicationSets ``argocd/applicationsets/<app>.yaml``: one per (app, environment).

Each ApplicationSet has one cluster generator per group of clusters that share an overlay
layout (env layer or cluster layer) and an effective sync policy. A generator selects its group
by registration labels (``fleetgen.io/env`` and ``fleetgen.io/cluster In [...]``) and passes the
overlay path as ``values``, so the template reads no label that a registration may lack.
"""

from __future__ import annotations

import functools
import json
import posixpath
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fleetgen.emit.argocd.charts import (
    ChartParts,
    chart_generator_values,
    chart_parts,
    chart_source,
)
from fleetgen.emit.argocd.common import (
    API_VERSION,
    GENERATE_PATHS,
    RESOURCES_FINALIZER,
    go_text,
    go_tree,
    go_var,
    metadata,
    registration_labels,
)
from fleetgen.emit.common import APP_LABEL, CLUSTER_LABEL, ENV_LABEL, WAVE_LABEL
from fleetgen.model import (
    CREATE_NAMESPACE,
    App,
    ClusterVar,
    Environment,
    Fleet,
    IgnoreDifference,
    OciSource,
    RemoteSource,
    Selector,
)
from fleetgen.resolver.namespacing import namespace_metadata
from fleetgen.resolver.plan import EnvOverlay, Placement, Plan, remote_path
from fleetgen.write.output import OutputFile

NAME = "{{ .name }}"
SERVER = "{{ .server }}"
WAVE = '{{ index .metadata.labels "' + WAVE_LABEL + '" }}'
SOURCE_PATH = "{{ .values.sourcePath }}"  # an app from another source, per generator
NAMESPACE = "{{ .values.namespace }}"  # a destination namespace per generator
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


@dataclass(frozen=True, slots=True)
class _Group:
    """Clusters of one (app, env) that one cluster generator selects."""

    per_cluster: bool  # overlay is the cluster layer (path ends in the cluster name)
    overlay: str  # Go template of the repo-relative overlay path
    generate_paths: str  # Go template of the manifest-generate-paths annotation
    sync: str  # JSON of the Applications' spec.syncPolicy (key order as in `_sync_policy`)
    chart: ChartParts | None = None  # a chart app's version and values for these clusters
    source_path: str = ""  # another source: Go template of the directory these clusters read
    namespace: str | None = None  # the destination namespace of these clusters' Applications


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
                comment=_header(apps[name], [env for env, _ in placed], plain),
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


def _application_set(
    plan: Plan,
    app: App,
    env: Environment,
    env_overlay: EnvOverlay | None,
    placements: Sequence[Placement],
    labels: Callable[[str], dict[str, str]],
) -> dict[str, Any]:
    """``labels``: a cluster's name -> the labels of its registration."""
    groups: dict[_Group, list[str]] = {}  # group -> its clusters
    # Placements on the env overlay share its Settings: one group per policy object, whose
    # cluster list is looked up by the object.
    shared: dict[int, list[str]] = {}
    for placement in placements:
        if env_overlay is None:
            group = (
                _chart_group(plan, app, placement)
                if placement.chart is not None
                else _remote_group(plan, app, placement)
            )
        elif placement.overlay == env_overlay.path:
            memo = id(placement.settings.sync)
            if memo not in shared:
                shared[memo] = groups.setdefault(_group(plan, app, env_overlay, placement), [])
            shared[memo].append(placement.cluster)
            continue
        else:
            group = _group(plan, app, env_overlay, placement)
        groups.setdefault(group, []).append(placement.cluster)
    ordered = sorted(groups.items(), key=lambda item: (item[0].per_cluster, item[1]))
    syncs = {group.sync for group in groups}
    uniform = json.loads(syncs.pop()) if len(syncs) == 1 else None
    charts = [group.chart for group in groups if group.chart is not None]
    paths = {group.source_path for group in groups if group.source_path}
    source_path = paths.pop() if len(paths) == 1 else SOURCE_PATH if paths else ""
    # one namespace (App.namespace or a layer's) for all: the template's; else each generator's
    namespaces = {group.namespace for group in groups}
    per_generator = len(namespaces) > 1
    only = None if per_generator else namespaces.pop()
    destination = NAMESPACE if per_generator else go_text(only) if only is not None else None
    reads = [WAVE_LABEL] if env.rollout is not None else []
    _check_reads([name for _, names in ordered for name in names], reads, labels)
    spec: dict[str, Any] = {
        "goTemplate": True,
        "goTemplateOptions": ["missingkey=error"],
        "generators": [
            _generator(
                env,
                group,
                names,
                uniform is None,
                charts,
                app.targets if app.targets.runtime else None,
                source_path == SOURCE_PATH,
                per_generator,
            )
            for group, names in ordered
        ],
        "template": _template(
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


def _group(plan: Plan, app: App, env_overlay: EnvOverlay, placement: Placement) -> _Group:
    """The generator group of a placement: its path templates and its sync policy."""
    overlay = posixpath.join(plan.fleet.output_dir, placement.overlay)
    head, _, last = overlay.rpartition("/")
    per_cluster = placement.overlay != env_overlay.path and last == placement.cluster
    prefix, action = (head + "/", NAME) if per_cluster else (overlay, "")
    below = (
        []
        if placement.overlay == env_overlay.path
        else [posixpath.join(plan.fleet.output_dir, env_overlay.path)]
    )
    # Argo CD refreshes the Application on a commit touching any of these (util/app/path
    # GetAppRefreshPaths): the overlays, the base and what the layers add to the overlays.
    settings = placement.settings
    added = [*settings.resources, *settings.components]
    rest = "".join(f";/{path}" for path in [*below, env_overlay.base, *added])
    sync = json.dumps(_sync_policy(placement, app, plan.fleet))
    return _Group(
        per_cluster,
        go_text(prefix) + action,
        go_text("/" + prefix) + action + go_text(rest),
        sync,
        namespace=placement.namespace,
    )


def _chart_group(plan: Plan, app: App, placement: Placement) -> _Group:
    """The generator group of a chart app's placement: chart version, values, sync policy."""
    assert placement.chart is not None
    sync = _sync_policy(placement, app, plan.fleet)
    return _Group(
        False, "", "", json.dumps(sync), chart_parts(placement), namespace=placement.namespace
    )


def _remote_group(plan: Plan, app: App, placement: Placement) -> _Group:
    """The generator group of a placement of an app from another source: its sync policy and
    the directory it reads (``Overrides(path=...)``; with ``Selector(runtime=True)``, a
    ClusterVar there is read when the ApplicationSet runs: `go_var`)."""
    assert placement.remote is not None
    sync = _sync_policy(placement, app, plan.fleet)
    path = remote_path(app, placement.template) if placement.template else placement.remote.path
    source_path = go_var(path) if isinstance(path, ClusterVar) else go_text(path)
    return _Group(
        False, "", "", json.dumps(sync), source_path=source_path, namespace=placement.namespace
    )


def _sync_policy(placement: Placement, app: App, fleet: Fleet) -> dict[str, Any]:
    """An Application's ``spec.syncPolicy`` for the effective sync policy of ``placement``.

    ``CreateNamespace=true`` (``Fleet.create_namespaces``) whatever the sync options: Argo CD
    creates the destination namespace only when the sync operation's options hold exactly that
    entry (``appStateManager.SyncAppState``); automated syncs take them from ``syncOptions``.
    With it, ``managedNamespaceMetadata`` from the namespace's ``Project(namespace_metadata=...)``
    (applied only through that namespace modifier: controller ``syncNamespace``). Neither for an
    App(namespace=None): with no destination namespace there is nothing to create
    (gitops-engine ``syncContext`` runs the modifier only for a non-empty namespace). No
    ``managedNamespaceMetadata`` for a tenant's app (its project has a service_account): with it
    ``syncNamespace`` applies the Namespace on every sync, as the impersonated account
    (controller/sync.go sets the sync's rest config to impersonate it), which may not patch a
    Namespace, so every sync failed; the tenants' Namespace objects carry the metadata instead
    (`fleetgen.emit.argocd.tenants`).
    """
    sync, namespace = placement.settings.sync, placement.namespace
    policy: dict[str, Any] = {}
    if sync.automated:
        policy["automated"] = {"prune": sync.prune, "selfHeal": sync.self_heal}
        if sync.allow_empty:
            policy["automated"]["allowEmpty"] = True
    creates = fleet.create_namespaces and namespace is not None
    tenant = any(p.name == app.project and p.service_account for p in fleet.projects)
    managed = creates and not tenant
    meta = namespace_metadata(fleet).get(namespace or "") if managed else None
    if meta is not None and (meta.labels or meta.annotations):
        policy["managedNamespaceMetadata"] = {
            key: dict(sorted(value.items()))
            for key, value in (("labels", meta.labels), ("annotations", meta.annotations))
            if value
        }
    created = [f"{CREATE_NAMESPACE}=true"] if creates else []
    options = list(dict.fromkeys([*created, *sync.sync_options]))
    if app.ignore_differences and not any(
        option.startswith("RespectIgnoreDifferences=") for option in options
    ):
        options.append("RespectIgnoreDifferences=true")
    if options:
        policy["syncOptions"] = options
    if sync.retry is not None:
        retry = sync.retry
        policy["retry"] = {
            "limit": retry.limit,
            "backoff": {
                "duration": retry.backoff_duration,
                "factor": retry.backoff_factor,
                "maxDuration": retry.backoff_max_duration,
            },
        }
    return policy


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


def _generator(
    env: Environment,
    group: _Group,
    clusters: list[str],
    patch_sync: bool,
    charts: Sequence[ChartParts],
    runtime: Selector | None,
    source_paths: bool = False,
    namespaces: bool = False,
) -> dict[str, Any]:
    """``source_paths``: the groups read different directories of the app's source, so each
    generator passes its own (``values.sourcePath``); ``namespaces``: the groups' Applications
    go to different namespaces (``values.namespace``)."""
    values = (
        chart_generator_values(group.chart, charts)
        if group.chart is not None
        else {"overlay": group.overlay, "generatePaths": group.generate_paths}
        if group.overlay
        else {"sourcePath": group.source_path}
        if source_paths
        else {}
    )
    if patch_sync:
        values["syncPolicy"] = go_text(group.sync)
    if namespaces and group.namespace is not None:
        values["namespace"] = go_text(group.namespace)
    selector = (
        _runtime_selector(env, runtime)
        if runtime is not None
        else {
            "matchLabels": {ENV_LABEL: env.name},
            "matchExpressions": [
                {"key": CLUSTER_LABEL, "operator": "In", "values": sorted(clusters)}
            ],
        }
    )
    return {"clusters": {"selector": selector, **({"values": values} if values else {})}}


def _runtime_selector(env: Environment, targets: Selector) -> dict[str, Any]:
    """The app's own label selector, which the ApplicationSet controller evaluates against the
    registrations it finds when it runs (``Selector(runtime=True)``), within the environment."""
    expressions = [
        {
            "key": expr.key,
            "operator": expr.operator,
            **({"values": list(expr.values)} if expr.values else {}),
        }
        for expr in targets.match_expressions
    ]
    if targets.clusters is not None:
        expressions.append(
            {"key": CLUSTER_LABEL, "operator": "In", "values": sorted(targets.clusters)}
        )
    if targets.exclude:
        expressions.append(
            {"key": CLUSTER_LABEL, "operator": "NotIn", "values": sorted(targets.exclude)}
        )
    selector: dict[str, Any] = {
        "matchLabels": dict(sorted({**targets.match_labels, ENV_LABEL: env.name}.items()))
    }
    if expressions:
        selector["matchExpressions"] = expressions
    return selector


def _template(
    plan: Plan,
    app: App,
    env: Environment,
    sync: dict[str, Any] | None,
    charts: Sequence[ChartParts],
    cascade: bool,
    destination: str | None,
    source_path: str = "",
) -> dict[str, Any]:
    """The Application template; ``cascade``: its removal deletes the workloads (the
    resources finalizer); ``destination``: a Go template of its destination namespace (the one
    namespace, or `NAMESPACE` when its generators differ; None for App(namespace=None));
    ``source_path``: an app from another source: the directory its Applications read (a Go
    template: the one directory, or `SOURCE_PATH` when its generators differ)."""
    fleet = plan.fleet
    labels = {go_text(k): go_text(v) for k, v in app.labels.items()} | {
        APP_LABEL: go_text(app.name),
        ENV_LABEL: go_text(env.name),
        CLUSTER_LABEL: NAME,
    }
    if env.rollout is not None:
        labels[WAVE_LABEL] = WAVE
    annotations = {go_text(k): go_text(v) for k, v in app.annotations.items()}
    if app.source is None and source_path:  # a plain directory: every file in it
        annotations[GENERATE_PATHS] = "/" + source_path  # a Go template already
    elif app.chart is None and app.source is None:  # (none for another repository's webhooks)
        annotations[GENERATE_PATHS] = "{{ .values.generatePaths }}"
    elif app.chart is not None and app.chart.path is not None:  # refreshed on a chart push
        annotations[GENERATE_PATHS] = go_text("/" + posixpath.normpath(app.chart.path))
    meta: dict[str, Any] = {
        "name": go_text(f"{app.name}-") + NAME,
        "labels": dict(sorted(labels.items())),
        "annotations": dict(sorted(annotations.items())),
    }
    if cascade:
        meta["finalizers"] = [RESOURCES_FINALIZER]
    spec: dict[str, Any] = {
        "project": go_text(app.project),
        "source": chart_source(fleet, app, charts)
        if charts
        else remote_source(app, source_path, fleet)
        or {
            "repoURL": go_text(fleet.repo),
            "targetRevision": go_text(fleet.revision),
            "path": "{{ .values.overlay }}",
        },
        # No namespace for App(namespace=None): Argo CD then leaves objects where the manifests
        # put them (controller NormalizeTargetObjects defaults only to a non-empty one).
        "destination": {
            "server": SERVER,
            **({"namespace": destination} if destination is not None else {}),
        },
    }
    if app.ignore_differences:
        spec["ignoreDifferences"] = go_tree([_ignore(d) for d in app.ignore_differences])
    if sync:
        spec["syncPolicy"] = go_tree(sync)
    return {"metadata": meta, "spec": spec}


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


def remote_source(app: App, path: str, fleet: Fleet) -> dict[str, Any] | None:
    """The ``spec.source`` of an app without overlay (``path``: the Go template of the directory
    it reads), None for an app with overlays (``path`` empty).

    A Git repository by its https:// URL; an OCI artifact by its ``oci://`` URL, which is how
    Argo CD (>= 3.1) tells an OCI source from Git and Helm (``ApplicationSource.IsOCI``), with
    the tag or digest as ``targetRevision``. A plain directory of this repository as a directory
    source with ``recurse``: reposerver ``findManifests`` then reads every manifest file in every
    folder below it, as kustomize-controller's generated kustomization does
    (`fleetgen.inputs.plaindirs.ARGO_SUFFIXES`); ``directory`` makes the type explicit
    (``ApplicationSource.ExplicitType``), so no file in it turns it into another kind of app.
    """
    if not path:
        return None
    if app.source is None:
        return {
            "repoURL": go_text(fleet.repo),
            "targetRevision": go_text(fleet.revision),
            "path": path,
            "directory": {"recurse": True},
        }
    return {
        "repoURL": go_text(app.source.url),
        "targetRevision": go_text(app.source.target_revision),
        "path": path,
    }


def _ignore(difference: IgnoreDifference) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "group": difference.group,
        "kind": difference.kind,
        "name": difference.name,
        "namespace": difference.namespace,
        "jsonPointers": difference.json_pointers,
        "jqPathExpressions": difference.jq_path_expressions,
        "managedFieldsManagers": difference.managed_fields_managers,
    }
    return {key: value for key, value in entry.items() if value or key == "group"}


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
