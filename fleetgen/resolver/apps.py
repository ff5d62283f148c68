"""Checks of each app: its project and namespace, its layers' keys and kinds, its kustomize base,
chart or remote source, its images and depends_on."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from fleetgen.inputs.bases import Base
from fleetgen.manifests.k8s import image_matches, image_name
from fleetgen.model import (
    App,
    Cluster,
    ClusterVar,
    GitSource,
    HelmChart,
    Layer,
    OciSource,
    Overrides,
    Project,
)
from fleetgen.model.apps import overrides_of
from fleetgen.model.fields import is_glob, repo_path
from fleetgen.resolver import namespacing
from fleetgen.resolver.context import (
    _check_placeholders,
    _check_reserved_labels,
    _Context,
    _duplicates,
)
from fleetgen.resolver.inputs import (
    check_label_values_files,
    check_layer_inputs,
    check_secrets,
    check_values_files,
    report_in_base,
)
from fleetgen.resolver.layering import cluster_layers, label_conflicts, label_layers, label_matches
from fleetgen.resolver.plan import remote_path
from fleetgen.rules import remotebase

APPLICATION_NAME_LIMIT = 53
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})


def _check_app(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    project = ctx.projects.get(app.project)
    if project is None:
        ctx.report(
            app,
            f"app {app.name!r}: project {app.project!r} is not defined "
            f"(projects: {', '.join(ctx.projects) or 'none'})",
        )
    else:
        _check_namespace_allowed(ctx, app, app, app.namespace, project)
        if app.source is None and not ctx.plain(app):  # else `_check_no_overlay`
            _check_layer_namespaces(ctx, app, project)
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
        _check_layer_paths(ctx, app)
        _check_base(ctx, app)
    else:
        _check_layer_paths(ctx, app)
        _check_chart(ctx, app, app.chart)
        check_values_files(ctx, app, app.chart)
        check_label_values_files(ctx, app, placed)
        if app.namespace is None:
            ctx.report(
                app,
                f"app {app.name!r}: a chart app needs a namespace (its Helm release "
                "and the objects the chart leaves unplaced live there)",
            )
    _check_layer_kinds(ctx, app)
    check_layer_inputs(ctx, app)
    _check_rollout_sync(ctx, app, placed)
    _check_name_prefix(ctx, app, placed)
    if project is not None and project.service_account:
        _check_tenant_objects(ctx, app, project.name)
    elif project is not None and "cluster_resources" in project.model_fields_set:
        _check_cluster_resources(ctx, app, project)


def _check_cluster_resources(ctx: _Context, app: App, project: Project) -> None:
    """``Project(cluster_resources=...)`` written in the spec is a boundary: a base of one of its
    apps that ships another cluster-scoped kind (Namespace aside, permitted by name) would be
    refused at sync by Argo CD, while Flux applies it."""
    missing = sorted(ctx.cluster_kinds(app) - {*project.cluster_resources, ("", "Namespace")})
    if missing:
        ctx.report(
            app,
            f"app {app.name!r}: its base ships cluster-scoped "
            f"{', '.join(repr(kind) for kind in missing)}, which project {project.name!r} does "
            "not permit: add it to Project(cluster_resources=[...]) or remove it from the base",
        )


def _check_tenant_objects(ctx: _Context, app: App, project: str) -> None:
    """A tenant's app (its project has a service_account) ships no cluster-scoped object: the
    engines apply it as that ServiceAccount, which fleetgen binds to ClusterRole admin in the
    app's namespaces only, so the API server refuses it a Namespace, a ClusterRole... (Argo CD:
    controller/sync.go impersonates it for the whole sync; Flux: the Kustomization's
    serviceAccountName)."""
    shipped = ctx.cluster_kinds(app)
    if not shipped:
        return
    kinds = ", ".join(f"{group}/{kind}" if group else kind for group, kind in sorted(shipped))
    ctx.report(
        app,
        f"app {app.name!r}: its base ships cluster-scoped objects ({kinds}), which the "
        f"ServiceAccount of tenant project {project!r} may not create (it is admin in the app's "
        "namespaces only): move them to an app of a project without service_account",
    )


def check_tenant_projects(ctx: _Context) -> None:
    """A tenant project permits no cluster-scoped kind: its apps are applied as an account
    that cannot create any (`_check_tenant_objects`)."""
    for project in ctx.fleet.projects:
        if project.service_account and project.cluster_resources:
            ctx.report(
                project,
                f"project {project.name!r}: cluster_resources cannot be created by its apps, "
                f"which are applied as ServiceAccount {project.service_account!r}, admin in "
                "their namespaces only: remove cluster_resources or service_account",
            )


# Layer fields that only an overlay can apply: a kustomize base's (an app from another source has
# none); name_prefix is an Overrides field only.
KUSTOMIZE_FIELDS = (
    "images",
    "replicas",
    "config",
    "patches",
    "common_labels",
    "common_annotations",
    "name_prefix",
)
# Those a chart app sets through `values`; its images and patches post-render what the chart
# renders (Flux: HelmRelease postRenderers; Argo CD refuses them: `fleetgen.emit.argocd.checks`).
VALUES_FIELDS = tuple(name for name in KUSTOMIZE_FIELDS if name not in ("images", "patches"))


def _check_namespace_allowed(
    ctx: _Context, app: App, where: Layer, namespace: str | None, project: Project
) -> None:
    """``namespace`` (set at ``where``) is one ``project`` allows."""
    # (a project name given twice is reported once as such, not as namespaces refused)
    same = [ns for p in ctx.fleet.projects if p.name == project.name for ns in p.namespaces]
    if namespace is not None and not namespacing.allowed(namespace, same):
        ctx.report(
            where,
            f"app {app.name!r}: namespace {namespace!r} is not allowed by "
            f"project {project.name!r} (add it to Project(namespaces=[...]))",
        )


def _check_layer_namespaces(ctx: _Context, app: App, project: Project) -> None:
    """``Overrides(namespace=...)``: layers of an app with a namespace of its own (not a
    tenant's), allowed by its project; a chart app's release goes there."""
    why = (
        "with App(namespace=None) its manifests say where each object goes"
        if app.namespace is None
        else f"project {project.name!r} binds its ServiceAccount in App.namespace"
        if project.service_account
        else None
    )
    for layer in overrides_of(app):
        if layer.namespace is None:
            continue
        if why is not None:
            ctx.report(layer, f"app {app.name!r}: namespace cannot be set here: {why}")
        elif not isinstance(layer.namespace, ClusterVar):  # a var's values: `VarResolver`
            _check_namespace_allowed(ctx, app, layer, layer.namespace, project)


def _check_layer_kinds(ctx: _Context, app: App) -> None:
    """Kustomize settings on a chart app, chart settings on a kustomize app."""
    for layer in _layers_of(app):
        if app.chart is None:
            chart_fields = [
                name
                for name in ("values", "values_files", "chart_version")
                if getattr(layer, name, None)
            ]
            if chart_fields:
                ctx.report(
                    layer,
                    f"app {app.name!r}: {' and '.join(chart_fields)} apply to "
                    "chart apps (App(chart=HelmChart(...))); a kustomize base takes "
                    "images, replicas, config and patches",
                )
            continue
        for name in VALUES_FIELDS:
            if getattr(layer, name, None):
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
    _check_named_namespaces(ctx, app, "an app from another source")
    if _outside(remote_path(app)):
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} must be inside its source "
            "(relative to the source's root)",
        )
    for layer in _layers_of(app):
        if isinstance(layer, Overrides) and layer.path is not None and _outside(layer.path):
            ctx.report(
                layer,
                f"app {app.name!r}: Overrides(path={layer.path!r}) must be inside its "
                "source (relative to the source's root)",
            )
    _check_no_overlay(
        ctx,
        app,
        "an app from another source (source=)",
        "its manifests are not in this repository; set it in that source instead",
        "ship the ExternalSecret in that source instead",
    )


def _check_no_overlay(
    ctx: _Context, app: App, which: str, fix: str, secrets_fix: str | None = None
) -> None:
    """No layer of an app without overlay (``which`` names what it is) sets what only an overlay
    applies (`KUSTOMIZE_FIELDS`), and it has no ``secrets=``; ``fix`` and ``secrets_fix`` (by
    default ``fix``) say what to do instead."""
    for layer in _layers_of(app):
        # an Overrides' namespace (App.namespace is where an app without overlay goes)
        own = ("namespace",) if isinstance(layer, Overrides) else ()
        for name in (*KUSTOMIZE_FIELDS, *own):
            if getattr(layer, name, None):
                ctx.report(
                    layer,
                    f"app {app.name!r}: {name} needs an overlay, which {which} has not: {fix}",
                )
    if app.secrets:
        ctx.report(
            app,
            f"app {app.name!r}: secrets= needs an overlay, which {which} has not; "
            f"{secrets_fix or fix}",
        )


def _check_named_namespaces(ctx: _Context, app: App, what: str) -> None:
    """``app`` may put objects in any namespace its project allows (fleetgen cannot read its
    manifests): a tenant project binds its ServiceAccount in each, so they must be named."""
    project = ctx.projects.get(app.project)
    if (
        project is not None
        and project.service_account
        and any(is_glob(namespace) for namespace in project.namespaces)
    ):
        ctx.report(
            app,
            f"app {app.name!r}: project {project.name!r} binds its ServiceAccount in "
            f"the namespaces {what} may use, which must be named, not patterns: list them "
            "in Project(namespaces=[...])",
        )


def _outside(path: str | ClusterVar) -> bool:
    """Whether a source path leaves its source (a var's values are checked per cluster:
    `fleetgen.resolver.vars.VarResolver`)."""
    if isinstance(path, ClusterVar):
        return False
    normal = repo_path(path)
    return normal.startswith("..") or posixpath.isabs(normal)


def _check_layer_paths(ctx: _Context, app: App) -> None:
    """``Overrides(path=...)`` chooses the directory an app from another source reads; an app
    of this repository has one base (or chart) for all its placements."""
    kind = (
        "a chart app's chart"
        if app.chart is not None
        else "a plain directory app's directory"
        if ctx.plain(app)
        else "a kustomize app's base"
    )
    for layer in _layers_of(app):
        if isinstance(layer, Overrides) and layer.path is not None:
            ctx.report(
                layer,
                f"app {app.name!r}: Overrides(path={layer.path!r}) chooses the directory "
                "of an app from another source (App(source=GitSource(...) or "
                f"OciSource(...))); {kind} is the same in every layer: drop path= here, "
                "or set what differs with the layer's other fields",
            )


def check_release_names(ctx: _Context, placed: Mapping[str, Sequence[Cluster]]) -> None:
    """Two chart apps that release under one name into one namespace on a cluster: Helm keeps
    one release of a name per namespace (its storage: Secret sh.helm.release.v1.NAME.vN)."""
    seen: dict[tuple[str, str, str], str] = {}  # (cluster, namespace, release) -> app
    for app in ctx.apps.values():
        release = app.release_name
        if release is None or app.namespace is None or app.chart is None:
            continue
        clashes: set[str] = set()
        for cluster in placed.get(app.name, ()):
            other = seen.setdefault((cluster.name, app.namespace, release), app.name)
            if other != app.name:
                clashes.add(other)
        for other in sorted(clashes):
            ctx.report(
                app.chart,
                f"apps {other!r} and {app.name!r} both install Helm release {release!r} into "
                f"namespace {app.namespace!r} on a cluster they share; Helm keeps one release "
                "of a name per namespace: set another HelmChart(release_name=...)",
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
    assert app.base_path is not None
    path = repo_path(app.base_path)
    if posixpath.isabs(path) or path.startswith(".."):
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} must be inside the repository "
            "(relative to the directory holding fleet.py)",
        )
        return
    base = ctx.workspace.bases.get(path)
    if base is None or (base.kustomization is None and not base.plain):
        ctx.report(
            app,
            f"app {app.name!r}: path {app.path!r} has neither a kustomization.yaml nor "
            "manifests (create the base or the directory of manifests there, or fix the path)",
        )
        return
    for problem in base.problems:
        ctx.report(
            app, f"app {app.name!r}: {'directory' if base.plain else 'base'} {path}: {problem}"
        )
    check_secrets(ctx, app, base)
    _check_remote_refs(ctx, app, base)
    rewrite = "Flux's targetNamespace" if base.plain else "the overlay's namespace rewrite"
    project = ctx.projects.get(app.project)
    for message in namespacing.base_problems(app, base, project, rewrite=rewrite):
        ctx.report(app, message)
    if base.plain:
        _check_plain(ctx, app, base)
        return
    if base.remotes:
        _check_remote_config(ctx, app, base)
        if app.namespace is None:
            _check_named_namespaces(ctx, app, "the remote resources of its base (namespace=None)")
    inputs = [base, *ctx.layer_bases(app)]  # what an overlay of the app may hold
    if not all(found.complete for found in inputs):
        return
    workloads = {
        name for found in inputs for kind, name in found.resources if kind in WORKLOAD_KINDS
    }
    known = ", ".join(sorted(workloads)) or "none"
    for layer in _layers_of(app):
        for name in layer.replicas:
            if name not in workloads:
                ctx.report(
                    layer,
                    f"app {app.name!r}: replicas for {name!r}, but the base has no "
                    f"workload of that name ({known})",
                )
    images = [found.images for found in inputs]
    if all(known is not None for known in images):
        _check_images(ctx, app, frozenset().union(*(known for known in images if known)))


def _check_plain(ctx: _Context, app: App, base: Base) -> None:
    """A plain directory has no overlay; with ``App(namespace=X)`` both engines put its objects
    in X only if what Flux's ``targetNamespace`` rewrites (every namespace, `NamespaceField`)
    already says X: Argo CD's destination namespace only fills the namespace of namespaced
    objects that have none (controller/state.go ``NormalizeTargetObjects``)."""
    _check_no_overlay(
        ctx,
        app,
        f"a plain directory ({base.path}, no kustomization.yaml)",
        "add a kustomization.yaml there to make it a base",
    )
    output = repo_path(ctx.fleet.output_dir)
    if base.path == "." or output == base.path or output.startswith(base.path + "/"):
        ctx.report(
            app,
            f"app {app.name!r}: the plain directory {base.path!r} holds fleetgen's output "
            f"({output}), which both engines would then apply as its manifests: give the app "
            "a directory of its own",
        )
    if app.namespace is None:
        return
    for found in base.namespace_fields:
        if found.value != app.namespace:
            says = f"says {found.value!r}" if found.value is not None else "is not set"
            ctx.report(
                app,
                f"app {app.name!r}: {found.file}:{found.line}: {found.object}: {found.field} "
                f"{says}, which Flux's targetNamespace sets to {app.namespace!r} while Argo CD "
                f"leaves it: write {app.namespace!r} there, or set App(namespace=None)",
            )


def _check_remote_refs(ctx: _Context, app: App, base: Base) -> None:
    """A remote base or component (`remotebase`) is pinned, or the same base would build other
    manifests tomorrow: a problem at the line that lists it (its URL is not repeated: it may
    hold a credential)."""
    for remote in base.remotes:
        why = remotebase.unpinned(remote.url)
        if why is not None:
            report_in_base(
                ctx,
                remote.file,
                remote.line,
                f"app {app.name!r}: the remote resource on this line {why}; {remotebase.PIN_HINT}",
            )


def _check_remote_config(ctx: _Context, app: App, base: Base) -> None:
    """``config=`` for a ConfigMap the base's own files do not define: kustomize's
    configMapGenerator must merge into it if a remote base ships it and create it if not (each
    fails on the other), and fleetgen does not read remote bases."""
    where = ", ".join(f"{remote.file}:{remote.line}" for remote in base.remotes)
    for layer in _layers_of(app):
        for name in sorted(set(layer.config) - base.configmaps):
            ctx.report(
                layer,
                f"app {app.name!r}: config for ConfigMap {name!r}, which the base's own files "
                f"do not define: its remote bases ({where}) may, but fleetgen does not read "
                "them, and kustomize merges into a ConfigMap they ship but creates one they do "
                "not (each fails on the other); declare it in the base, a configMapGenerator "
                f"entry {{name: {name}, behavior: merge}} for theirs, or one without behavior "
                "for a new one",
            )


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
    return [app, *overrides_of(app)]


def _check_name_prefix(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """A per_label or per_cluster name_prefix is written in the cluster overlay, which kustomize
    builds on the env overlay: where the env overlay has a prefix, the cluster's would be put in
    front of it, so it may only repeat it."""
    reported: set[int] = set()
    for cluster in placed:
        env_layer = app.per_env.get(cluster.env)
        above = env_layer.name_prefix if env_layer is not None else None
        deeper = [layer for _, layer in cluster_layers(app, cluster) if layer.name_prefix]
        if above is None or not deeper or deeper[-1].name_prefix == above:
            continue
        layer = deeper[-1]
        if id(layer) not in reported:
            reported.add(id(layer))
            ctx.report(
                layer,
                f"app {app.name!r}: name_prefix {layer.name_prefix!r} (cluster "
                f"{cluster.name!r}) would be put in front of the prefix {above!r} of "
                f"per_env[{cluster.env!r}] (kustomize prefixes at each overlay, and a cluster "
                "overlay builds on its env overlay): set the prefix in per_env only, or in "
                "per_label/per_cluster only",
            )


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
