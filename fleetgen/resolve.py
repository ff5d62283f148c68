"""resolve: check every cross-reference of a Fleet and compute its Plan. Pure: no I/O.

Every problem is collected before anything is reported, so a user fixes a spec in one pass.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from fleetgen import namespacing, scan
from fleetgen.confighash import config_hashes
from fleetgen.errors import Problem, SpecError, at, in_order
from fleetgen.fields import is_glob, repo_path
from fleetgen.k8s import image_matches, image_name
from fleetgen.model import (
    App,
    AppSecret,
    Cluster,
    Credentials,
    Engine,
    Environment,
    ExternalSecretRef,
    Fleet,
    GitSource,
    HelmChart,
    Layer,
    OciSource,
    Overrides,
    Selector,
    Spec,
    SyncPolicy,
)
from fleetgen.output import LABEL_PREFIX
from fleetgen.plan import (
    ChartSource,
    ClusterOverlay,
    EnvOverlay,
    Placement,
    Plan,
    Remote,
    SecretPlan,
    Settings,
    label_conflicts,
    label_layers,
    label_matches,
    merge_sync,
    remote_path,
)
from fleetgen.workspace import Base, Workspace

APPLICATION_NAME_LIMIT = 53
RESERVED_ENV_NAMES = frozenset({"clusters"})  # overlays/<app>/clusters/ holds cluster layers
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
PLACEHOLDERS = ("cluster", "env")  # what remote keys of credentials and AppSecrets may use
LISTED = 5  # names listed in one message
Engines = dict[str, dict[str, Engine]]  # app -> cluster -> the engine of that placement


class _Context:
    """The fleet, indexes by name, the settings every app of an environment starts from, and the
    problems found so far."""

    def __init__(self, fleet: Fleet, workspace: Workspace) -> None:
        self.fleet = fleet
        self.workspace = workspace
        self.problems: list[Problem] = []
        self.envs = {env.name: env for env in fleet.environments}
        self.clusters = {
            cluster.name: cluster for cluster in sorted(fleet.clusters, key=lambda c: c.name)
        }
        self.projects = {project.name: project for project in fleet.projects}
        self.apps = {app.name: app for app in sorted(fleet.apps, key=lambda a: a.name)}
        # the clusters an app may be placed on, in name order
        self.placeable = [c for c in self.clusters.values() if c.env in self.envs]
        self._shared: dict[tuple[str, bool], Settings] = {}
        self.scanned: set[int] = set()  # id() of each spec object the secret scan reported

    def shared_settings(self, env: Environment, chart: bool) -> Settings:
        """The fleet and ``env`` layers, which every app in ``env`` shares; a chart app (``chart``)
        takes no fleet or env common metadata (nothing would apply it to the chart's objects)."""
        key = (env.name, chart)
        if key not in self._shared:
            fleet = self.fleet
            fleet_layer = Layer(
                common_labels={} if chart else fleet.common_labels,
                common_annotations={} if chart else fleet.common_annotations,
                sync=fleet.sync,
            )
            env_layer = Layer(
                common_labels={} if chart else env.common_labels,
                common_annotations={} if chart else env.common_annotations,
                sync=env.sync,
            )
            self._shared[key] = (
                Settings(sync=SyncPolicy()).apply("fleet", fleet_layer).apply("env", env_layer)
            )
        return self._shared[key]

    def report(self, where: Spec, message: str) -> None:
        self.problems.append(at(where, message, self.fleet))


def resolve(fleet: Fleet, workspace: Workspace) -> Plan:
    """The Plan of ``fleet``; raises SpecError listing every problem."""
    ctx = _Context(fleet, workspace)
    _scan(ctx, fleet, "fleet")
    return _resolved(ctx)


def _scan(ctx: _Context, spec: Spec, path: str) -> None:
    """Report what the secret scan refuses in ``spec`` (at ``path`` of the fleet)."""
    for owner, message in scan.problems(spec, path):
        ctx.report(owner, message)
        ctx.scanned.add(id(owner))


def _resolved(ctx: _Context) -> Plan:
    """The Plan of the apps ``ctx`` resolves; raises SpecError listing every problem."""
    _check_names(ctx)
    credentials = _check_clusters(ctx)
    waves = _rollout_waves(ctx)
    placed = {app.name: _place(ctx, app) for app in ctx.apps.values()}
    for app in ctx.apps.values():
        _check_app(ctx, app, placed[app.name])
    _check_dependency_cycles(ctx)
    for meta, message in namespacing.metadata_problems(ctx.fleet):
        ctx.report(meta, message)
    engines = _engines(ctx, placed)
    _check_credentials(ctx, engines, credentials)
    _check_runtime_selectors(ctx, placed, engines)
    if ctx.problems:
        raise SpecError(in_order(ctx.problems))
    return _build_plan(ctx, placed, waves, credentials, engines)


def _duplicates(names: Iterable[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def _check_names(ctx: _Context) -> None:
    fleet = ctx.fleet
    for kind, items in (
        ("environment", fleet.environments),
        ("cluster", fleet.clusters),
        ("project", fleet.projects),
        ("app", fleet.apps),
    ):
        for name in _duplicates(item.name for item in items):
            for item in items:
                if item.name == name:
                    ctx.report(item, f"{kind} name {name!r} is used more than once")
    _check_reserved_labels(ctx, fleet, fleet.common_labels, "fleet")
    for env in fleet.environments:
        _check_reserved_labels(ctx, env, env.common_labels, f"environment {env.name!r}")
        if env.name in RESERVED_ENV_NAMES:
            ctx.report(
                env,
                f"environment name {env.name!r} is reserved (overlays/<app>/"
                f"{env.name}/ holds cluster layers); pick another name",
            )
    if fleet.flux.mode == "hub" and fleet.flux.hub not in ctx.clusters:
        ctx.report(
            fleet.flux,
            f"FluxOptions(mode='hub') needs hub= naming a cluster of the fleet "
            f"(got {fleet.flux.hub!r})",
        )


def _check_clusters(ctx: _Context) -> dict[str, Credentials | None]:
    fleet = ctx.fleet
    if isinstance(fleet.default_credentials, ExternalSecretRef):
        _check_placeholders(
            ctx, fleet.default_credentials, fleet.default_credentials.key, "default_credentials"
        )
    credentials: dict[str, Credentials | None] = {}
    for cluster in ctx.clusters.values():
        if cluster.env not in ctx.envs:
            ctx.report(
                cluster,
                f"cluster {cluster.name!r}: environment {cluster.env!r} is not "
                f"defined (environments: {', '.join(ctx.envs)})",
            )
        _check_reserved_labels(ctx, cluster, cluster.labels, f"cluster {cluster.name!r}")
        if isinstance(cluster.credentials, ExternalSecretRef):
            _check_placeholders(
                ctx,
                cluster.credentials,
                cluster.credentials.key,
                f"cluster {cluster.name!r} credentials",
            )
        unreached = _registered_elsewhere(cluster)
        if unreached and cluster.credentials is not None:
            ctx.report(
                cluster,
                f"cluster {cluster.name!r}: {unreached}, so fleetgen takes no "
                "credentials for it; remove credentials=",
            )
        chosen = None if unreached else cluster.credentials or fleet.default_credentials
        credentials[cluster.name] = _fill_credentials(cluster, chosen)
    return credentials


def _registered_elsewhere(cluster: Cluster) -> str:
    """Why fleetgen needs no credentials for ``cluster`` (empty when it does)."""
    if cluster.registration == "external":
        return "its Argo CD registration is external (another tool owns its cluster Secret)"
    if cluster.in_cluster:
        return (
            "it is the cluster Argo CD runs on (https://kubernetes.default.svc), which Argo CD "
            "reaches with its own ServiceAccount"
        )
    return ""


def _engines(ctx: _Context, placed: Mapping[str, list[Cluster]]) -> Engines:
    """App -> cluster -> the engine of that placement: the app's, else the cluster's, else its
    environment's, else the fleet's only engine. Reports engines the fleet does not list, clusters
    with placements no rule gives an engine (one problem per cluster) and apps whose placements in
    an environment with a rollout are on two engines."""
    fleet = ctx.fleet
    listed = sorted(set(fleet.engines))
    owners: list[tuple[str, Spec, Engine | None]] = [
        *((f"app {a.name!r}", a, a.engine) for a in ctx.apps.values()),
        *((f"cluster {c.name!r}", c, c.engine) for c in ctx.clusters.values()),
        *((f"environment {e.name!r}", e, e.engine) for e in ctx.envs.values()),
    ]
    for what, owner, engine in owners:
        if engine is not None and engine not in listed:
            ctx.report(
                owner,
                f"{what}: engine {engine!r} is not listed in "
                f"Fleet(engines={listed!r}); add it there or pick one of those",
            )
    only = listed[0] if len(listed) == 1 else None
    # what a cluster's placements run on unless their app says
    default = {c.name: c.engine or ctx.envs[c.env].engine or only for c in ctx.placeable}
    engines: Engines = {}
    open_apps: dict[str, list[str]] = {}
    for app in ctx.apps.values():
        if app.engine is not None:
            engines[app.name] = {cluster.name: app.engine for cluster in placed[app.name]}
            continue
        on = engines[app.name] = {}
        for cluster in placed[app.name]:
            engine = default[cluster.name]
            if engine is None:
                open_apps.setdefault(cluster.name, []).append(app.name)
            else:
                on[cluster.name] = engine
    for name, apps in open_apps.items():
        cluster = ctx.clusters[name]
        ctx.report(
            cluster,
            f"cluster {name!r} (env {cluster.env}): "
            f"{_few('app', 'apps', apps)} {'has' if len(apps) == 1 else 'have'} "
            f"no engine, and the fleet lists {' and '.join(listed)}: set "
            "Cluster(engine=...), Environment(engine=...) or App(engine=...)",
        )
    _check_rollout_engines(ctx, placed, engines, default)
    return engines


def _few(one: str, many: str, names: list[str]) -> str:
    """``names`` after the word that fits their number."""
    return f"{one if len(names) == 1 else many} {_listed(names)}"


def _listed(names: list[str]) -> str:
    """At most LISTED of ``names``, and how many more there are."""
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(names[:LISTED]) + more


def _check_rollout_engines(
    ctx: _Context,
    placed: Mapping[str, list[Cluster]],
    engines: Engines,
    default: Mapping[str, Engine | None],
) -> None:
    """An app's placements in an environment with a rollout are all on one engine: a rollout gate
    orders clusters within one engine only. Only an app without an engine of its own can split:
    its clusters' engines (``default``) are its engines."""
    mixed = {
        env.name
        for env in ctx.envs.values()  # rollout environments on two engines
        if env.rollout is not None
        and len({default[c.name] for c in ctx.placeable if c.env == env.name} - {None}) > 1
    }
    for app in ctx.apps.values():
        if app.engine is not None or not mixed:
            continue
        on = engines[app.name]
        by_env: dict[str, dict[str, list[str]]] = {}  # env -> engine -> cluster names
        for cluster in placed[app.name]:
            engine = on.get(cluster.name)
            if cluster.env in mixed and engine is not None:
                by_env.setdefault(cluster.env, {}).setdefault(engine, []).append(cluster.name)
        for env_name, by_engine in by_env.items():
            if len(by_engine) > 1:
                split = " and ".join(
                    f"{engine} ({_listed(names)})" for engine, names in sorted(by_engine.items())
                )
                ctx.report(
                    app,
                    f"app {app.name!r}: environment {env_name!r} rolls out in waves, "
                    f"but the app's clusters there are on {split}; no gate orders "
                    "clusters across engines: put them on one engine (App(engine=...) "
                    "or the clusters' engine)",
                )


def _check_credentials(
    ctx: _Context, engines: Engines, credentials: Mapping[str, Credentials | None]
) -> None:
    """Clusters an engine must reach from outside have credentials: those with an Argo CD
    placement, and the spokes of a Flux hub."""
    hub = ctx.fleet.flux.hub if ctx.fleet.flux.mode == "hub" else None
    used: set[tuple[str, Engine]] = set().union(*(on.items() for on in engines.values()))
    spokes = {
        cluster for cluster, engine in used if engine == "flux" and hub not in (None, cluster)
    }
    reached = spokes | {
        cluster
        for cluster, engine in used
        if engine == "argocd" and not _registered_elsewhere(ctx.clusters[cluster])
    }
    for name in sorted(spokes):
        unreached = _registered_elsewhere(ctx.clusters[name])
        if unreached:
            ctx.report(
                ctx.clusters[name],
                f"cluster {name!r}: {unreached}, but the Flux hub "
                f"{hub} reaches its spokes with credentials; give it "
                "a registration by fleetgen and credentials",
            )
    for name in sorted(reached):
        if credentials[name] is None and not _registered_elsewhere(ctx.clusters[name]):
            ctx.report(
                ctx.clusters[name],
                f"cluster {name!r} has no credentials: set "
                "Cluster(credentials=...) or "
                "Fleet(default_credentials=...)",
            )


def _check_runtime_selectors(
    ctx: _Context, placed: Mapping[str, list[Cluster]], engines: Engines
) -> None:
    """``Selector(runtime=True)``: Argo CD placements only, among external clusters, no cluster
    layers (a layer pins a cluster by name), and only labels some cluster declares."""
    declared = {key for cluster in ctx.clusters.values() for key in cluster.labels}
    for app in ctx.apps.values():
        targets = app.targets
        if not targets.runtime:
            continue
        flux = sorted(c.name for c in placed[app.name] if engines[app.name].get(c.name) == "flux")
        if flux:
            ctx.report(
                targets,
                f"app {app.name!r}: Selector(runtime=True) is evaluated by Argo "
                "CD's ApplicationSet controller; the app's placements on "
                f"{_few('cluster', 'clusters', flux)} are on Flux",
            )
        if placed[app.name] and not any(c.registration == "external" for c in placed[app.name]):
            ctx.report(
                targets,
                f"app {app.name!r}: Selector(runtime=True) selects clusters "
                "registered by another tool at run time, and the app runs on no "
                "Cluster(registration='external'); drop runtime=True (the "
                "clusters fleetgen registers are selected by name)",
            )
        if app.per_cluster:
            ctx.report(
                targets,
                f"app {app.name!r}: Selector(runtime=True) cannot give a "
                "cluster its own layer (per_cluster pins clusters by name); move "
                "the settings to per_env or drop runtime=True",
            )
        keys = [*targets.match_labels, *(expr.key for expr in targets.match_expressions)]
        for key in sorted(set(keys) - declared):
            ctx.report(
                targets,
                f"app {app.name!r}: its runtime selector reads label {key!r}, "
                "which no cluster of the fleet declares; declare it in "
                "Cluster(labels=...) where it is set",
            )


def _check_reserved_labels(ctx: _Context, where: Spec, labels: Iterable[str], what: str) -> None:
    for key in labels:
        if key.startswith(LABEL_PREFIX):
            ctx.report(
                where,
                f"{what}: label {key!r} uses the prefix "
                f"{LABEL_PREFIX!r}, which fleetgen sets itself",
            )


def _fill_credentials(cluster: Cluster, credentials: Credentials | None) -> Credentials | None:
    if not isinstance(credentials, ExternalSecretRef):
        return credentials
    key = _fill(credentials.key, {"cluster": cluster.name, "env": cluster.env})
    return credentials.model_copy(update={"key": key})


def _check_placeholders(ctx: _Context, where: Spec, text: str, what: str) -> None:
    for name in _PLACEHOLDER.findall(text):
        if name not in PLACEHOLDERS:
            known = ", ".join("{" + known + "}" for known in PLACEHOLDERS)
            ctx.report(
                where, f"{what}: unknown placeholder {{{name}}} in {text!r} (known: {known})"
            )


def _fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with its ``{cluster}``/``{env}`` placeholders replaced from ``values``."""
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), text)


def _rollout_waves(ctx: _Context) -> dict[str, tuple[tuple[str, ...], ...]]:
    waves: dict[str, tuple[tuple[str, ...], ...]] = {}
    for env in ctx.envs.values():
        if env.rollout is None:
            continue
        if not merge_sync(ctx.fleet.sync, env.sync, "env", {}).automated:
            ctx.report(
                env,
                f"environment {env.name!r} has a rollout but its sync is not "
                "automated; a rollout syncs wave by wave once merged, so set "
                "SyncPolicy(automated=True)",
            )
        remaining = [c for c in ctx.clusters.values() if c.env == env.name]
        steps: list[tuple[str, ...]] = []
        for number, step in enumerate(env.rollout.steps, 1):
            matched = [c for c in remaining if _labels_match(step.match_labels, c.labels)]
            if not matched and step.match_labels:  # an empty catch-all step is fine
                ctx.report(
                    step,
                    f"environment {env.name!r}: rollout step {number} matches no "
                    "cluster that an earlier step has not taken",
                )
            steps.append(tuple(c.name for c in matched))
            taken = {c.name for c in matched}
            remaining = [c for c in remaining if c.name not in taken]
        if remaining:
            ctx.report(
                env.rollout,
                f"environment {env.name!r}: clusters "
                f"{', '.join(c.name for c in remaining)} match no rollout "
                "step; end the rollout with Step() to take the rest",
            )
        waves[env.name] = tuple(steps)
    return waves


def _labels_match(wanted: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in wanted.items())


def selects(selector: Selector, cluster: Cluster) -> bool:
    """Whether ``selector`` places an app on ``cluster`` (Kubernetes label-selector semantics)."""
    if selector.envs is not None and cluster.env not in selector.envs:
        return False
    if selector.clusters is not None and cluster.name not in selector.clusters:
        return False
    if cluster.name in selector.exclude or not _labels_match(selector.match_labels, cluster.labels):
        return False
    for expr in selector.match_expressions:
        value = cluster.labels.get(expr.key)
        if expr.operator == "In" and value not in expr.values:
            return False
        if expr.operator == "NotIn" and value is not None and value in expr.values:
            return False
        if expr.operator == "Exists" and value is None:
            return False
        if expr.operator == "DoesNotExist" and value is not None:
            return False
    return True


def _selects_all(selector: Selector) -> bool:
    """Whether ``selector`` sets no condition (`selects` every cluster)."""
    return (
        selector.envs is None
        and selector.clusters is None
        and not selector.exclude
        and not selector.match_labels
        and not selector.match_expressions
    )


def _place(ctx: _Context, app: App) -> list[Cluster]:
    targets = app.targets
    for env in targets.envs or []:
        if env not in ctx.envs:
            ctx.report(targets, f"app {app.name!r}: targets.envs names unknown environment {env!r}")
    for field_name in ("clusters", "exclude"):
        for name in getattr(targets, field_name) or []:
            if name not in ctx.clusters:
                ctx.report(
                    targets,
                    f"app {app.name!r}: targets.{field_name} names unknown cluster {name!r}",
                )
    if _selects_all(targets):
        placed = list(ctx.placeable)
    else:
        placed = [c for c in ctx.placeable if selects(targets, c)]
    if not placed:
        ctx.report(targets, f"app {app.name!r}: its targets select no cluster")
    return placed


def _check_app(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    project = ctx.projects.get(app.project)
    if project is None:
        ctx.report(
            app,
            f"app {app.name!r}: project {app.project!r} is not defined "
            f"(projects: {', '.join(ctx.projects) or 'none'})",
        )
    elif app.namespace is not None and not namespacing.allowed(
        app.namespace,
        [ns for same in ctx.fleet.projects if same.name == project.name for ns in same.namespaces],
    ):
        # (a project name given twice is reported once as such, not as namespaces refused)
        ctx.report(
            app,
            f"app {app.name!r}: namespace {app.namespace!r} is not allowed by "
            f"project {project.name!r} (add it to Project(namespaces=[...]))",
        )
    placed_envs = {c.env for c in placed} if app.per_env else set()
    for env in app.per_env:
        if env not in placed_envs:
            ctx.report(
                app.per_env[env],
                f"app {app.name!r}: per_env key {env!r} is not an "
                f"environment the app runs in "
                f"({', '.join(sorted(placed_envs)) or 'none'})",
            )
    for selection, overrides in app.per_label.items():
        if not any(label_matches(selection, c.labels) for c in placed):
            ctx.report(
                overrides,
                f"app {app.name!r}: per_label key {selection!r} matches no cluster the app runs on",
            )
    for conflicting, message in label_conflicts(app, placed):
        ctx.report(conflicting, message)
    placed_names = {c.name for c in placed} if app.per_cluster else set()
    for name in app.per_cluster:
        if name not in placed_names:
            ctx.report(
                app.per_cluster[name],
                f"app {app.name!r}: per_cluster key {name!r} is not a cluster the app runs on",
            )
    room = APPLICATION_NAME_LIMIT - len(app.name) - 1  # for the cluster in "<app>-<cluster>"
    for cluster in placed:
        if len(cluster.name) > room:
            application = f"{app.name}-{cluster.name}"
            ctx.report(
                app,
                f"app {app.name!r}: generated Application name {application!r} is "
                f"{len(application)} characters (limit {APPLICATION_NAME_LIMIT}); "
                "shorten the app or cluster name",
            )
    for dependency in app.depends_on:
        if dependency not in ctx.apps or dependency == app.name:
            ctx.report(
                app,
                f"app {app.name!r}: depends_on names "
                f"{'itself' if dependency == app.name else repr(dependency)}, "
                "which is not another app of the fleet",
            )
    for name in _duplicates(secret.name for secret in app.secrets):
        ctx.report(app, f"app {app.name!r}: secret name {name!r} is used more than once")
    for secret in app.secrets:
        for remote in secret.data.values():
            _check_placeholders(ctx, secret, remote, f"app {app.name!r} secret {secret.name!r}")
    _check_reserved_labels(ctx, app, app.labels, f"app {app.name!r}")
    for layer in _layers_of(app):
        _check_reserved_labels(ctx, layer, layer.common_labels, f"app {app.name!r}")
    if app.source is not None:
        _check_remote(ctx, app, app.source)
    elif app.chart is None:
        _check_base(ctx, app)
    else:
        _check_chart(ctx, app, app.chart)
        if app.namespace is None:
            ctx.report(
                app,
                f"app {app.name!r}: a chart app needs a namespace (its Helm release "
                "and the objects the chart leaves unplaced live there)",
            )
    _check_layer_kinds(ctx, app)
    _check_rollout_sync(ctx, app, placed)


# Layer fields that only a kustomize base can take (a chart app sets them through `values`).
KUSTOMIZE_FIELDS = (
    "images",
    "replicas",
    "config",
    "patches",
    "common_labels",
    "common_annotations",
)


def _check_layer_kinds(ctx: _Context, app: App) -> None:
    """Kustomize settings on a chart app, chart settings on a kustomize app."""
    for layer in _layers_of(app):
        if app.chart is None:
            chart_fields = [
                name for name in ("values", "chart_version") if getattr(layer, name, None)
            ]
            if chart_fields:
                ctx.report(
                    layer,
                    f"app {app.name!r}: {' and '.join(chart_fields)} apply to "
                    "chart apps (App(chart=HelmChart(...))); a kustomize base takes "
                    "images, replicas, config and patches",
                )
            continue
        for name in KUSTOMIZE_FIELDS:
            if getattr(layer, name):
                ctx.report(
                    layer,
                    f"app {app.name!r}: {name} is for kustomize bases; a chart "
                    f"app sets this through values={{...}} (the chart's values)",
                )
        if app.chart.path is not None and isinstance(layer, Overrides) and layer.chart_version:
            ctx.report(
                layer,
                f"app {app.name!r}: chart_version pins a chart from a "
                f"repository; the chart at {app.chart.path!r} is the one in this "
                "revision of the repository (its Chart.yaml's version)",
            )
    if app.chart is not None and app.secrets:
        ctx.report(
            app,
            f"app {app.name!r}: secrets= is for kustomize bases; a chart app "
            "refers to its Secrets through values={...} (e.g. an existingSecret "
            "value) and gets them from another app",
        )


def _check_remote(ctx: _Context, app: App, source: GitSource | OciSource) -> None:
    """An app from another source: an https:// Git URL without credentials, a path inside the
    source, and no setting that needs an overlay (its manifests are not in this repository)."""
    if isinstance(source, GitSource):
        authority = source.url.partition("://")[2].split("/")[0]
        if not source.url.startswith("https://"):
            ctx.report(
                source,
                f"app {app.name!r}: an app's Git source is read by both engines "
                "over https:// (credentials are the engines' own repository "
                "settings); use an https:// URL",
            )
        elif "@" in authority and id(source) not in ctx.scanned:  # else reported once already
            ctx.report(
                source,
                f"app {app.name!r}: credentials do not belong in a Git URL (the "
                "URL is not repeated here because it holds a credential); give "
                "them to the engines as repository credentials",
            )
    if app.namespace is not None:
        ctx.report(
            app,
            f"app {app.name!r}: an app from another source (source=) has no overlay "
            "to rewrite namespaces with: give namespace=None (its manifests say where "
            "each object goes; its project's namespaces bound where they may)",
        )
    project = ctx.projects.get(app.project)
    if (
        project is not None
        and project.service_account
        and any(is_glob(namespace) for namespace in project.namespaces)
    ):
        ctx.report(
            app,
            f"app {app.name!r}: project {project.name!r} binds its ServiceAccount in "
            "the namespaces an app from another source may use, which must be "
            "named, not patterns: list them in Project(namespaces=[...])",
        )
    path = remote_path(app)
    if path.startswith("..") or posixpath.isabs(path):
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} must be inside its source "
            "(relative to the source's root)",
        )
    for layer in _layers_of(app):
        for name in KUSTOMIZE_FIELDS:
            if getattr(layer, name):
                ctx.report(
                    layer,
                    f"app {app.name!r}: {name} needs an overlay, which an app "
                    "from another source (source=) has not: its manifests are "
                    "not in this repository; set it in that source instead",
                )
    if app.secrets:
        ctx.report(
            app,
            f"app {app.name!r}: secrets= needs an overlay, which an app from "
            "another source (source=) has not; ship the ExternalSecret in that "
            "source instead",
        )


def _check_chart(ctx: _Context, app: App, chart: HelmChart) -> None:
    if chart.path is None:
        return
    path = repo_path(chart.path)
    if posixpath.isabs(path) or path.startswith(".."):
        ctx.report(
            chart,
            f"app {app.name!r}: chart path {chart.path!r} must be inside the "
            "repository (relative to the directory holding fleet.py)",
        )
        return
    found = ctx.workspace.charts.get(path)
    if found is None or (found.name is None and not found.problems):
        ctx.report(
            chart,
            f"app {app.name!r}: chart path {chart.path!r} has no Chart.yaml "
            "(create the chart there or fix the path)",
        )
        return
    for problem in found.problems:
        ctx.report(chart, f"app {app.name!r}: chart {path}: {problem}")


def _check_base(ctx: _Context, app: App) -> None:
    assert app.path is not None
    path = repo_path(app.path)
    if posixpath.isabs(path) or path.startswith(".."):
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} must be inside the repository "
            "(relative to the directory holding fleet.py)",
        )
        return
    base = ctx.workspace.bases.get(path)
    if base is None or base.kustomization is None:
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} has no kustomization.yaml "
            "(create the base there or fix the path)",
        )
        return
    for problem in base.problems:
        ctx.report(app, f"app {app.name!r}: base {path}: {problem}")
    for message in namespacing.base_problems(app, base, ctx.projects.get(app.project)):
        ctx.report(app, message)
    if not base.complete:
        return
    workloads = {name for kind, name in base.resources if kind in WORKLOAD_KINDS}
    known = ", ".join(sorted(workloads)) or "none"
    for layer in _layers_of(app):
        for name in layer.replicas:
            if name not in workloads:
                ctx.report(
                    layer,
                    f"app {app.name!r}: replicas for {name!r}, but the base has no "
                    f"workload of that name ({known})",
                )
    if base.images is not None:
        _check_images(ctx, app, base.images)


def _check_images(ctx: _Context, app: App, images: frozenset[str]) -> None:
    """Every Image names an image of the base, as kustomize matches them (``k8s.image_matches``)."""
    known = ", ".join(sorted({image_name(reference) for reference in images})) or "none"
    for layer in _layers_of(app):
        for image in layer.images:
            if not any(image_matches(reference, image.name) for reference in images):
                ctx.report(
                    image,
                    f"app {app.name!r}: Image(name={image.name!r}) matches no image "
                    f"of the base, so it would change nothing (images of the "
                    f"base: {known})",
                )


def _layers_of(app: App) -> list[Layer]:
    return [app, *app.per_env.values(), *app.per_label.values(), *app.per_cluster.values()]


def _turns_automated_off(layer: Layer) -> bool:
    sync = layer.sync
    return sync is not None and "automated" in sync.model_fields_set and not sync.automated


def _check_rollout_sync(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """A layer may not turn automated sync off where the environment rolls out in waves."""
    if not any(_turns_automated_off(layer) for layer in _layers_of(app)):
        return
    layers: dict[int, tuple[Layer, str]] = {}
    for cluster in placed:
        if ctx.envs[cluster.env].rollout is not None:
            candidates: list[Layer | None] = [
                app,
                app.per_env.get(cluster.env),
                *(layer for _, layer in label_layers(app, cluster.labels)),
                app.per_cluster.get(cluster.name),
            ]
            for candidate in candidates:
                if candidate is not None:
                    layers.setdefault(id(candidate), (candidate, cluster.env))
    for layer, env_name in layers.values():
        if _turns_automated_off(layer):
            ctx.report(
                layer,
                f"app {app.name!r}: environment {env_name!r} has a rollout, which "
                "needs automated sync; remove automated=False",
            )


def _check_dependency_cycles(ctx: _Context) -> None:
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for dependency in ctx.apps[name].depends_on:
            if dependency not in ctx.apps or dependency == name:
                continue
            if state.get(dependency) == 1:
                cycle = [*trail[trail.index(dependency) :], dependency]
                ctx.report(ctx.apps[name], f"depends_on cycle: {' -> '.join(cycle)}")
            elif dependency not in state:
                visit(dependency, [*trail, dependency])
        state[name] = 2

    for name in ctx.apps:
        if name not in state:
            visit(name, [name])


def _env_settings(ctx: _Context, app: App, env: Environment) -> Settings:
    """Fleet, env, app and per_env layers (`_Context.shared_settings`)."""
    chart = app.chart is not None or app.source is not None
    return (
        ctx.shared_settings(env, chart)
        .apply("app", app)
        .apply("per_env", app.per_env.get(env.name))
    )


def _settings_by_env(ctx: _Context, app: App, clusters: Iterable[Cluster]) -> dict[str, Settings]:
    """Env name -> `_env_settings` of ``app`` there, for the environments of ``clusters``."""
    return {name: _env_settings(ctx, app, ctx.envs[name]) for name in {c.env for c in clusters}}


def _secret_plans(
    secrets: Iterable[AppSecret], values: Mapping[str, str]
) -> tuple[SecretPlan, ...]:
    plans = []
    for secret in secrets:
        data = {}
        for key, remote in secret.data.items():
            path, _, prop = _fill(remote, values).partition("#")
            data[key] = (path, prop or None)
        plans.append(SecretPlan(secret, data))
    return tuple(plans)


def _per_cluster_secrets(app: App) -> tuple[list[AppSecret], list[AppSecret]]:
    by_cluster = [s for s in app.secrets if any("{cluster}" in v for v in s.data.values())]
    return [s for s in app.secrets if s not in by_cluster], by_cluster


def _cluster_layers(app: App, cluster: Cluster) -> tuple[tuple[str, Layer], ...]:
    """The layers deeper than per_env that reach ``cluster``: per_label, then per_cluster."""
    own = app.per_cluster.get(cluster.name)
    return (*label_layers(app, cluster.labels), *((("per_cluster", own),) if own else ()))


def _chart_placements(
    ctx: _Context,
    app: App,
    chart: HelmChart,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
) -> list[Placement]:
    """A chart app's placements: no overlays; the chart and the layered values per cluster."""
    found = []
    by_env = _settings_by_env(ctx, app, clusters)
    for cluster in clusters:
        settings = by_env[cluster.env]
        for name, layer in _cluster_layers(app, cluster):
            settings = settings.apply(name, layer)
        if chart.path is not None:
            local = ctx.workspace.charts[repo_path(chart.path)]
            assert local.name is not None and local.version is not None
            source = ChartSource(local.name, local.version, path=local.path)
        else:
            assert chart.repo and chart.name and chart.version
            source = ChartSource(chart.name, settings.chart_version or chart.version, chart.repo)
        found.append(
            Placement(
                app=app.name,
                cluster=cluster.name,
                env=cluster.env,
                overlay="",
                settings=settings,
                engine=engines[app.name][cluster.name],
                wave=wave_of.get(cluster.name),
                chart=source,
            )
        )
    return found


def _remote_placements(
    ctx: _Context,
    app: App,
    source: GitSource | OciSource,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    engines: Engines,
) -> list[Placement]:
    """An app from another source: no overlay; its sync settings layered per cluster."""
    remote = Remote(source, remote_path(app))
    by_env = _settings_by_env(ctx, app, clusters)
    return [
        Placement(
            app=app.name,
            cluster=cluster.name,
            env=cluster.env,
            overlay="",
            settings=by_env[cluster.env].apply("per_cluster", app.per_cluster.get(cluster.name)),
            engine=engines[app.name][cluster.name],
            wave=wave_of.get(cluster.name),
            remote=remote,
        )
        for cluster in clusters
    ]


def _overlay_placements(
    ctx: _Context,
    app: App,
    clusters: list[Cluster],
    wave_of: Mapping[str, int],
    on: Mapping[str, Engine],
) -> tuple[list[Placement], list[EnvOverlay], list[ClusterOverlay]]:
    """A kustomize app's placements (``on``: cluster -> engine), env overlays and cluster
    overlays."""
    assert app.path is not None
    placements: list[Placement] = []
    env_overlays: list[EnvOverlay] = []
    cluster_overlays: list[ClusterOverlay] = []
    env_secrets, cluster_secrets = _per_cluster_secrets(app)
    base = ctx.workspace.bases[repo_path(app.path)]
    by_env: dict[str, EnvOverlay] = {}
    envs_here = {c.env for c in clusters}
    for env in ctx.envs.values():
        if env.name not in envs_here:
            continue
        env_settings = _env_settings(ctx, app, env)
        by_env[env.name] = EnvOverlay(
            app=app.name,
            env=env.name,
            path=f"overlays/{app.name}/{env.name}",
            base=base.path,
            namespace=app.namespace,
            settings=env_settings,
            base_configmaps=base.configmaps,
            secrets=_secret_plans(env_secrets, {"env": env.name}),
            config_hashes=config_hashes(base, env_settings.config),
        )
        env_overlays.append(by_env[env.name])
    # without per_label layers or {cluster} secrets, only per_cluster keys get overlays of their own
    every = bool(app.per_label or cluster_secrets)
    for cluster in clusters:
        env_overlay = by_env[cluster.env]
        own = (
            _cluster_overlay(app, cluster, env_overlay, base, cluster_secrets)
            if every or cluster.name in app.per_cluster
            else None
        )
        if own is not None:
            cluster_overlays.append(own)
        overlay = own or env_overlay
        # (app, cluster, env, overlay, settings, engine, wave) by position: the hottest line of
        # resolve, where keywords would cost a dict per placement (type.__call__ passes them so)
        placements.append(
            Placement(
                app.name,
                cluster.name,
                cluster.env,
                overlay.path,
                overlay.settings,
                on[cluster.name],
                wave_of.get(cluster.name),
            )
        )
    return placements, env_overlays, cluster_overlays


def _cluster_overlay(
    app: App,
    cluster: Cluster,
    env_overlay: EnvOverlay,
    base: Base,
    cluster_secrets: list[AppSecret],
) -> ClusterOverlay | None:
    """The overlay of ``app`` on ``cluster`` when layers or secrets of its own reach it."""
    layers = _cluster_layers(app, cluster)
    if not layers and not cluster_secrets:
        return None
    settings = env_overlay.settings
    for name, layer in layers:
        settings = settings.apply(name, layer)
    hashes = config_hashes(base, settings.config)
    return ClusterOverlay(
        app=app.name,
        cluster=cluster.name,
        env_overlay=env_overlay,
        path=f"overlays/{app.name}/clusters/{cluster.name}",
        layers=layers,
        settings=settings,
        secrets=_secret_plans(cluster_secrets, {"env": cluster.env, "cluster": cluster.name}),
        config_hashes={
            workload: value
            for workload, value in hashes.items()
            if env_overlay.config_hashes.get(workload) != value
        },
    )


def _build_plan(
    ctx: _Context,
    placed: Mapping[str, list[Cluster]],
    waves: Mapping[str, tuple[tuple[str, ...], ...]],
    credentials: Mapping[str, Credentials | None],
    engines: Engines,
) -> Plan:
    wave_of = {
        cluster: number
        for steps in waves.values()
        for number, clusters in enumerate(steps, 1)
        for cluster in clusters
    }
    placements: list[Placement] = []
    env_overlays: list[EnvOverlay] = []
    cluster_overlays: list[ClusterOverlay] = []
    for app in ctx.apps.values():
        if app.source is not None:
            placements += _remote_placements(
                ctx, app, app.source, placed[app.name], wave_of, engines
            )
        elif app.chart is not None:
            placements += _chart_placements(ctx, app, app.chart, placed[app.name], wave_of, engines)
        else:
            found, envs, clusters = _overlay_placements(
                ctx, app, placed[app.name], wave_of, engines[app.name]
            )
            placements += found
            env_overlays += envs
            cluster_overlays += clusters
    unplaced = {
        app.name: ctx.workspace.bases[repo_path(app.path)]
        for app in ctx.apps.values()
        if app.namespace is None and app.path is not None and app.source is None
    }
    # An app from another source may put objects in any namespace its project allows (globs).
    remote = {
        app.name: frozenset(ctx.projects[app.project].namespaces)
        for app in ctx.apps.values()
        if app.source is not None and app.project in ctx.projects
    }
    return Plan(
        fleet=ctx.fleet,
        placements=tuple(placements),
        env_overlays=tuple(env_overlays),
        manifest_namespaces={
            **{name: base.namespaces | base.namespace_objects for name, base in unplaced.items()},
            **remote,
        },
        namespace_objects={name: base.namespace_objects for name, base in unplaced.items()},
        cluster_overlays=tuple(cluster_overlays),
        waves=waves,
        credentials=credentials,
    )
