"""Checks of each app: its project and namespace, its names and depends_on, its tenant
boundaries, and (by the modules they live in) its layers (`overrides`), its source or chart
(`sources`) and its base's contents (`contents`)."""

from __future__ import annotations

from fleetgen.model import App, Cluster, ClusterVar, Layer, Project
from fleetgen.model.apps import overrides_of
from fleetgen.resolver import namespacing
from fleetgen.resolver.contents import check_base
from fleetgen.resolver.context import (
    _check_placeholders,
    _check_reserved_labels,
    _Context,
    _duplicates,
)
from fleetgen.resolver.inputs import (
    check_label_values_files,
    check_layer_inputs,
    check_values_files,
)
from fleetgen.resolver.overrides import (
    check_layer_keys,
    check_layer_kinds,
    check_name_prefix,
    check_rollout_sync,
    layers_of,
)
from fleetgen.resolver.sources import check_chart, check_layer_paths, check_remote

APPLICATION_NAME_LIMIT = 53


def _check_app(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """Every check of ``app``, placed on the clusters ``placed``."""
    project = _check_project(ctx, app)
    check_layer_keys(ctx, app, placed)
    _check_names(ctx, app, placed)
    _check_source(ctx, app, placed)
    check_layer_kinds(ctx, app)
    check_layer_inputs(ctx, app)
    check_rollout_sync(ctx, app, placed)
    check_name_prefix(ctx, app, placed)
    if project is not None and project.service_account:
        _check_tenant_objects(ctx, app, project.name)
    elif project is not None and "cluster_resources" in project.model_fields_set:
        _check_cluster_resources(ctx, app, project)


def _check_project(ctx: _Context, app: App) -> Project | None:
    """The project of ``app``, which exists and allows the namespaces it and its layers set (None
    when it does not exist)."""
    project = ctx.projects.get(app.project)
    if project is None:
        ctx.report(
            app,
            f"app {app.name!r}: project {app.project!r} is not defined "
            f"(projects: {', '.join(ctx.projects) or 'none'})",
        )
    else:
        _check_namespace_allowed(ctx, app, app, app.namespace, project)
        if app.source is None and not ctx.plain(app):  # else `check_no_overlay`
            _check_layer_namespaces(ctx, app, project)
    return project


def _check_names(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """The names ``app`` makes or refers to: its Applications', its depends_on, its secrets', the
    placeholders of their remote keys, and the labels it and its layers set (none reserved)."""
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
    for layer in layers_of(app):
        _check_reserved_labels(ctx, layer, layer.common_labels, f"app {app.name!r}")


def _check_source(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """Where the manifests of ``app`` come from: another source, a base of this repository, or a
    chart (with its values files and a namespace for its release)."""
    if app.source is not None:
        check_remote(ctx, app, app.source)
    elif app.chart is None:
        check_layer_paths(ctx, app)
        check_base(ctx, app, placed)
    else:
        check_layer_paths(ctx, app)
        check_chart(ctx, app, app.chart)
        check_values_files(ctx, app, app.chart)
        check_label_values_files(ctx, app, placed)
        if app.namespace is None:
            ctx.report(
                app,
                f"app {app.name!r}: a chart app needs a namespace (its Helm release "
                "and the objects the chart leaves unplaced live there)",
            )


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
