"""The cluster generators of an ApplicationSet, and the parameters they pass its template.

An (app, environment)'s clusters fall into groups that share an overlay layout (env layer or
cluster layer) and an effective sync policy (for a chart app also its version and values; for an
app from another source the directory it reads; and the destination namespace). One cluster
generator selects each group by registration labels (``fleetgen.io/env`` and ``fleetgen.io/cluster
In [...]``) and passes the overlay path as ``values``, so the template reads no label that a
registration may lack.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fleetgen.emit.argocd.charts import ChartParts, chart_generator_values, chart_parts
from fleetgen.emit.argocd.common import go_text, go_var
from fleetgen.emit.common import selects_by_vars
from fleetgen.model import CREATE_NAMESPACE, App, ClusterVar, Environment, Fleet, Selector
from fleetgen.model.fields import VAR_PREFIX
from fleetgen.resolver.namespacing import namespace_metadata
from fleetgen.resolver.plan import EnvOverlay, Placement, Plan, remote_path
from fleetgen.write.output import CLUSTER_LABEL, ENV_LABEL

# What a cluster generator passes the template: the registration's name and server, and values.
NAME = "{{ .name }}"
SERVER = "{{ .server }}"
SOURCE_PATH = "{{ .values.sourcePath }}"  # an app from another source, per generator
NAMESPACE = "{{ .values.namespace }}"  # a destination namespace per generator


@dataclass(frozen=True, slots=True)
class Group:
    """Clusters of one (app, env) that one cluster generator selects."""

    per_cluster: bool  # overlay is the cluster layer (path ends in the cluster name)
    overlay: str  # Go template of the repo-relative overlay path
    generate_paths: str  # Go template of the manifest-generate-paths annotation
    sync: str  # JSON of the Applications' spec.syncPolicy (key order as in `_sync_policy`)
    chart: ChartParts | None = None  # a chart app's version and values for these clusters
    source_path: str = ""  # another source: Go template of the directory these clusters read
    namespace: str | None = None  # the destination namespace of these clusters' Applications


def groups(
    plan: Plan, app: App, env_overlay: EnvOverlay | None, placements: Sequence[Placement]
) -> list[tuple[Group, list[str]]]:
    """The groups of ``placements`` (an app's in one environment, whose env layer is
    ``env_overlay``) with their clusters, in generator order: groups off a cluster layer first,
    then by their clusters."""
    found: dict[Group, list[str]] = {}  # group -> its clusters
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
                shared[memo] = found.setdefault(_group(plan, app, env_overlay, placement), [])
            shared[memo].append(placement.cluster)
            continue
        else:
            group = _group(plan, app, env_overlay, placement)
        found.setdefault(group, []).append(placement.cluster)
    return sorted(found.items(), key=lambda item: (item[0].per_cluster, item[1]))


def _group(plan: Plan, app: App, env_overlay: EnvOverlay, placement: Placement) -> Group:
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
    base = [] if env_overlay.base is None else [env_overlay.base]
    rest = "".join(f";/{path}" for path in [*below, *base, *added])
    sync = json.dumps(_sync_policy(placement, app, plan.fleet))
    return Group(
        per_cluster,
        go_text(prefix) + action,
        go_text("/" + prefix) + action + go_text(rest),
        sync,
        namespace=placement.namespace,
    )


def _chart_group(plan: Plan, app: App, placement: Placement) -> Group:
    """The generator group of a chart app's placement: chart version, values, sync policy."""
    assert placement.chart is not None
    sync = _sync_policy(placement, app, plan.fleet)
    return Group(
        False, "", "", json.dumps(sync), chart_parts(placement), namespace=placement.namespace
    )


def _remote_group(plan: Plan, app: App, placement: Placement) -> Group:
    """The generator group of a placement of an app from another source: its sync policy and
    the directory it reads (``Overrides(path=...)``; with ``Selector(runtime=True)``, a
    ClusterVar there is read when the ApplicationSet runs: `go_var`)."""
    assert placement.remote is not None
    sync = _sync_policy(placement, app, plan.fleet)
    path = remote_path(app, placement.template) if placement.template else placement.remote.path
    source_path = go_var(path) if isinstance(path, ClusterVar) else go_text(path)
    return Group(
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
    else:
        policy["automated"] = {"enabled": False}
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


def generator(
    env: Environment,
    group: Group,
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


def var_selector(plan: Plan, placements: Sequence[Placement]) -> dict[str, Any]:
    """The post selector of a generator selecting clusters at run time: the cluster Secrets it
    passes on carry the annotation of every `ClusterVar` its ``placements`` read, so one
    missing an annotation is not selected, and `go_var`'s ``fail`` (which stops the whole
    ApplicationSet) is not reached. Empty before Argo CD 3.4, whose post selector never
    matches annotations.

    ``ApplicationSetGenerator.selector`` filters each generator's parameters by a label
    selector over them flattened (``Transform``): the cluster generator's annotations are
    ``metadata.annotations.<key>`` there (``getClusterParameters``), and v3.4.0's
    ``normalizeMapForFlatten`` flattens a goTemplate set's ``map[string]string`` into such keys.
    """
    if not selects_by_vars(plan.fleet.argocd):
        return {}
    names = sorted({n for p in placements if p.template for n in p.template.var_names()})
    required = [
        {"key": f"metadata.annotations.{VAR_PREFIX}{name}", "operator": "Exists"} for name in names
    ]
    return {"selector": {"matchExpressions": required}} if required else {}
