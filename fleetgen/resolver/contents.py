"""Checks of what an app's kustomize base or plain directory holds: its problems, secret
material and remote entries, its namespaces, and the workloads, ConfigMaps and images its layers
name."""

from __future__ import annotations

from fleetgen.inputs.bases import Base
from fleetgen.manifests.k8s import image_matches, image_name
from fleetgen.model import App, Cluster
from fleetgen.model.fields import repo_path
from fleetgen.resolver import namespacing
from fleetgen.resolver.context import _Context
from fleetgen.resolver.inputs import check_secrets, report_in_base
from fleetgen.resolver.layering import cluster_layers
from fleetgen.resolver.overrides import layers_of
from fleetgen.resolver.sources import check_named_namespaces, check_no_overlay, in_repo
from fleetgen.rules import remotebase

WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})


def check_base(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """The base (or plain directory) of a kustomize app: inside the repository and there, its
    problems, secret material, remote entries and namespaces, and what its layers name in it;
    for an app without a base, that its layers add something on every cluster it runs on."""
    if app.base_path is None:
        _check_layered_only(ctx, app, placed)
        _check_named(ctx, app, ctx.layer_bases(app))
        return
    path = in_repo(ctx, app, app, "path", app.base_path)
    if path is None:
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
            check_named_namespaces(ctx, app, "the remote resources of its base (namespace=None)")
    _check_named(ctx, app, [base, *ctx.layer_bases(app)])


def _check_layered_only(ctx: _Context, app: App, placed: list[Cluster]) -> None:
    """An app without a base deploys what its layers add: each cluster it runs on gets a
    layer's resources (its per_env, a per_label or its per_cluster layer)."""
    bare = [
        cluster.name
        for cluster in placed
        if not any(
            layer.resources
            for layer in (
                app.per_env.get(cluster.env),
                *(o for _, o in cluster_layers(app, cluster)),
            )
            if layer is not None
        )
    ]
    if bare:
        ctx.report(
            app,
            f"app {app.name!r} has no path= and no layer adds resources on "
            f"{', '.join(repr(name) for name in bare)}, so it would deploy nothing there: add "
            "Overrides(resources=[...]) for them, or narrow its targets",
        )


def _check_named(ctx: _Context, app: App, inputs: list[Base]) -> None:
    """The workloads and images the layers of ``app`` name are in what its overlays hold
    (``inputs``: its base and what its layers add), when fleetgen can see all of it."""
    if not all(found.complete for found in inputs):
        return
    workloads = {
        name for found in inputs for kind, name in found.resources if kind in WORKLOAD_KINDS
    }
    known = ", ".join(sorted(workloads)) or "none"
    for layer in layers_of(app):
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
    check_no_overlay(
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
    for layer in layers_of(app):
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
    for layer in layers_of(app):
        for image in layer.images:
            if not any(image_matches(reference, image.name) for reference in images):
                ctx.report(
                    image,
                    f"app {app.name!r}: Image(name={image.name!r}) matches no image "
                    f"of the base, so it would change nothing (images of the "
                    f"base: {known})",
                )
