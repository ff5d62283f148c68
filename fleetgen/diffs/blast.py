"""Blast radius: which clusters, apps, environments and projects a generated object reaches.

Attribution uses the object's place in the output layout (DESIGN.md §5) and the Plans of both
refs: an overlay file reaches every placement built from it (directly, or through a cluster
layer on top of an env overlay); in an Argo CD instance's folder (``argocd/``, or an
environment's own ``argocd-<env>/``), ``clusters/<c>.yaml`` is cluster ``c``,
``projects/<p>.yaml`` project ``p``, ``applicationsets/<a>.yaml`` app ``a``, in the
environment its ApplicationSet ``<a>-<env>`` is for, and every Argo CD cluster of that pair unless
only the generators or the rollout strategy changed (those change membership and order, which the
derived Applications report); ``flux/clusters/<c>/`` cluster ``c``, with a Flux Kustomization
attributed to the app it is named after or whose overlay it applies, and a Namespace to the
apps placed there in it; in Flux hub mode, an object in a namespace named after a spoke (or the
Namespace named after it) acts on that spoke, as does ``flux/spokes/<spoke>/``.
``fleetgen.io/{cluster,app,env,project}`` labels, where an emitter sets them, add to this.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from fleetgen.diffs.facts import (
    ARGO_GROUP,
    Application,
    Change,
    Context,
    Facts,
    Op,
    Pair,
    Side,
    Source,
    Where,
)
from fleetgen.diffs.objects import Field, Obj
from fleetgen.inputs.reading import KUSTOMIZATION_FILES
from fleetgen.manifests.k8s import kustomize_config
from fleetgen.model import Fleet
from fleetgen.resolver.placements import Placements
from fleetgen.rules.argocd import RESOURCES_FINALIZER
from fleetgen.rules.flux import PRUNE_DISABLED, keeps_objects
from fleetgen.util.layout import argocd_part, is_argocd_directory
from fleetgen.write.output import LABEL_PREFIX, OutputFile

FLUX_GROUP = "kustomize.toolkit.fluxcd.io"
HELM_GROUP = "helm.toolkit.fluxcd.io"
_MEMBERSHIP_FIELDS = ("spec.generators", "spec.strategy")


def engine_of(file: str) -> str | None:
    """The engine that applies an output-relative file, None for overlays and the rest."""
    top = file.split("/", 1)[0]
    return "argocd" if is_argocd_directory(top) else "flux" if top == "flux" else None


def applied_by(obj: Obj) -> str | None:
    """The engine that applies ``obj`` to a cluster: ``engine_of`` its file, but None for
    kustomize's own files (a kustomization or Component, which the controller builds and
    never applies: kustomize-controller's ``generate`` reads it (fluxcd/pkg
    ``KustomizeGenerator.WriteFile``), its ``build`` (``kustomize.SecureBuild``) returns only
    the objects it lists)."""
    own = posixpath.basename(obj.file) in KUSTOMIZATION_FILES
    if own or (isinstance(obj.doc, dict) and kustomize_config(obj.doc)):
        return None
    return engine_of(obj.file)


def attribute(obj: Obj, fields: Sequence[Field], ctx: Context) -> Where:
    """What ``obj`` reaches, given which of its fields changed (see the module docstring)."""
    parts = obj.file.split("/")
    stem = posixpath.splitext(parts[-1])[0]
    clusters, apps, envs, projects = _labelled(obj.doc)
    argocd = argocd_part(obj.file)
    if parts[0] == "overlays":
        pairs = ctx.users(posixpath.dirname(obj.file))
        apps |= {app for app, _ in pairs} or set(parts[1:2])
        clusters |= {cluster for _, cluster in pairs}
    elif argocd == "clusters":
        clusters.add(stem)
    elif argocd == "projects":
        projects.add(stem)
    elif argocd == "applicationsets":
        apps.add(stem)
        if obj.key.kind == "ApplicationSet":
            clusters |= _application_set_clusters(obj, stem, fields, ctx, envs)
    elif argocd is None and obj.key.scope != obj.file:  # flux/clusters/<c>/, flux/spokes/<s>/
        cluster = _flux_target(obj, ctx)
        clusters.add(cluster)
        apps |= _flux_apps(obj, cluster, ctx)
    if obj.key.group == ARGO_GROUP and obj.key.kind == "Application":
        clusters |= _destination(obj.doc, ctx)
    return ctx.complete(clusters, apps, envs, projects)


def _labelled(doc: Any) -> tuple[set[str], set[str], set[str], set[str]]:
    labels = _get(doc, "metadata", "labels") or {}
    found: tuple[set[str], set[str], set[str], set[str]] = (set(), set(), set(), set())
    for target, name in zip(found, ("cluster", "app", "env", "project"), strict=True):
        value = labels.get(LABEL_PREFIX + name) if isinstance(labels, dict) else None
        if isinstance(value, str):
            target.add(value)
    return found


def _application_set_clusters(
    obj: Obj, app: str, fields: Sequence[Field], ctx: Context, envs: set[str]
) -> set[str]:
    """Clusters an ApplicationSet change reaches; records its environment in ``envs``."""
    known = {env for facts in ctx.sides for env in facts.env_clusters}
    env = next((e for e in sorted(known) if obj.key.name == f"{app}-{e}"), None)
    if env is not None:
        envs.add(env)
    broad = any(not f.path.startswith(_MEMBERSHIP_FIELDS) for f in fields)
    return ctx.clusters_of(app, env, "argocd") if broad else set()


def _flux_target(obj: Obj, ctx: Context) -> str:
    """The cluster a Flux-applied object acts on: its directory's, unless it sits in (hub mode)
    or is the namespace named after another cluster of the fleet."""
    key, known = obj.key, {c for facts in ctx.sides for c in facts.cluster_env}
    if key.namespace in known:
        return key.namespace
    if key.group == "" and key.kind == "Namespace" and key.name in known:
        return key.name
    return key.scope


def _flux_apps(obj: Obj, cluster: str, ctx: Context) -> set[str]:
    key = obj.key
    if key.group == FLUX_GROUP and key.kind == "Kustomization":
        placed = ctx.apps_on(cluster)
        if key.name in placed:
            return {key.name}
        path = _get(obj.doc, "spec", "path")
        if isinstance(path, str) and "overlays/" in path:
            overlay = path[path.index("overlays/") :].rstrip("/")
            return {app for app, c in ctx.users(overlay) if c == cluster}
    if key.group == "" and key.kind == "Namespace":
        return ctx.apps_on(cluster, key.name)
    return set()


def _destination(doc: Any, ctx: Context) -> set[str]:
    cluster = ctx.cluster_named(
        _get(doc, "spec", "destination", "name"), _get(doc, "spec", "destination", "server")
    )
    return {cluster} if cluster is not None else set()


def _get(doc: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def workloads(obj: Obj, cascade_delete: bool, application_sets: Mapping[str, Any]) -> str | None:
    """``deleted``, ``orphaned``, ``kept-prune-disabled`` or ``kept-suspended``: what deleting
    ``obj`` does to the workloads it manages.

    An object Flux applies annotated ``kustomize.toolkit.fluxcd.io/prune: disabled`` (a hub's
    spoke Namespace in orphan mode, a HelmRelease moving to a wrapper) is not deleted at all,
    nor what it holds (``kept-prune-disabled``): kustomize-controller's ``deleteObjects``, which
    both pruning and a Kustomization's finalizer go through, passes that annotation to
    fluxcd/pkg ``ResourceManager.DeleteAll`` as an exclusion. Otherwise read from the object
    where it says (Flux ``deletionPolicy``/``prune``, a HelmRelease's keep post-renderer, the
    owning ApplicationSet's ``preserveResourcesOnDeletion``, an Application of its own's resources
    finalizer: argo-cd ``finalizeApplicationDeletion`` deletes only when ``CascadedDeletion()``),
    else from the fleet's ``cascade_delete``. None for objects
    that manage no workloads. A suspended Flux object (a manual environment) deletes nothing,
    whatever it says (``kept-suspended``): kustomize-controller's
    ``finalizerShouldDeleteResources`` deletes nothing for a suspended Kustomization, and
    helm-controller's ``reconcileDelete`` uninstalls a HelmRelease only if it is not suspended
    (v1.7 and v1.4, Flux 2.7). `fleetgen.diffs.notes` marks the deletions that cannot complete
    (``stuck``) or reach nothing (``orphaned``) because of what the same change removes.
    """
    key, doc = obj.key, obj.doc
    annotations = _get(doc, "metadata", "annotations")
    if (
        engine_of(obj.file) == "flux"
        and isinstance(annotations, dict)
        and PRUNE_DISABLED.items() <= annotations.items()
    ):
        return "kept-prune-disabled"
    if key.group in (HELM_GROUP, FLUX_GROUP) and _get(doc, "spec", "suspend") is True:
        return "kept-suspended"
    if key.group == HELM_GROUP and key.kind == "HelmRelease":
        return "orphaned" if keeps_objects(doc) else "deleted"
    if key.group == FLUX_GROUP and key.kind == "Kustomization":
        policy = _get(doc, "spec", "deletionPolicy")
        if policy in ("Orphan", "Delete"):
            return "orphaned" if policy == "Orphan" else "deleted"
        prune = _get(doc, "spec", "prune")
        return "deleted" if (prune if isinstance(prune, bool) else cascade_delete) else "orphaned"
    if key.group == "" and key.kind == "Namespace" and engine_of(obj.file) == "flux":
        return "deleted"
    if key.group == ARGO_GROUP and key.kind in ("Application", "ApplicationSet"):
        owner = key.name if key.kind == "ApplicationSet" else _owner(doc)
        if owner is None:  # an Application of its own: only its finalizer deletes
            finalizers = _get(doc, "metadata", "finalizers") or ()
            return "deleted" if RESOURCES_FINALIZER in finalizers else "orphaned"
        preserve = _get(
            application_sets.get(owner or ""), "spec", "syncPolicy", "preserveResourcesOnDeletion"
        )
        cascade = not preserve if isinstance(preserve, bool) else cascade_delete
        return "deleted" if cascade else "orphaned"
    return None


def _owner(doc: Any) -> str | None:
    owners = _get(doc, "metadata", "ownerReferences") or []
    names = [
        o.get("name") for o in owners if isinstance(o, dict) and o.get("kind") == "ApplicationSet"
    ]
    return names[0] if names and isinstance(names[0], str) else None


def derived_applications(
    fleet: Fleet, placements: Placements, files: Mapping[str, OutputFile]
) -> dict[tuple[str, str], Application]:
    """The Applications the ApplicationSets generate at sync time, derived from the placements.

    They exist in no file, so the diff derives them: one per Argo CD placement whose app has an
    ``applicationsets/<app>.yaml`` in its environment's Argo CD instance (``argocd/``, or the
    environment's own), named ``<app>-<cluster>``, in the instance's namespace, with what the
    Plan fixes (owner, project, source, destination): an overlay's path in this repository, or
    for an app without overlay (a chart, another source) the fields its ApplicationSet's
    template gives every Application alike.
    """
    apps = {app.name: app for app in fleet.apps}
    instances = {env: i for i in fleet.argocd_instances for env in i.envs}
    servers = {cluster.name: cluster.server for cluster in fleet.clusters}
    templates: dict[str, AppSource] = {}  # ApplicationSet -> its template's fixed source fields
    derived = {}
    for app_name, cluster, env, overlay, engine, destination, _ in placements.rows:
        instance = instances[env]
        file = f"{instance.directory}/applicationsets/{app_name}.yaml"
        if engine != "argocd" or file not in files:
            continue
        app, name, namespace = apps[app_name], f"{app_name}-{cluster}", instance.options.namespace
        owner = f"{app_name}-{env}"
        if overlay:
            source: AppSource = (
                ("repoURL", fleet.repo),
                ("targetRevision", fleet.revision),
                ("path", f"{fleet.output_dir}/{overlay}"),
            )
        elif owner in templates:
            source = templates[owner]
        else:
            source = templates[owner] = _template_source(files[file], owner)
        derived[namespace, name] = Application(
            namespace,
            name,
            owner,
            app.project,
            source,
            cluster,
            servers[cluster],
            destination,
            file,
        )
    return derived


AppSource = tuple[tuple[str, str], ...]  # an Application's spec.source, field by field
_SOURCE_FIELDS = ("repoURL", "chart", "targetRevision", "path")


def _template_source(file: OutputFile, owner: str) -> AppSource:
    """The fields of ApplicationSet ``owner``'s template source that are the same for every
    Application it generates (those without a Go template action)."""
    for document in file.documents:
        if isinstance(document, dict) and (document.get("metadata") or {}).get("name") == owner:
            spec = ((document.get("spec") or {}).get("template") or {}).get("spec") or {}
            source: dict[str, Any] = spec.get("source") or next(iter(spec.get("sources") or ()), {})
            return tuple(
                (key, value)
                for key in _SOURCE_FIELDS
                if isinstance(value := source.get(key), str) and "{{" not in value
            )
    return ()


def entity_renames(base: Facts, head: Facts) -> dict[str, dict[str, str]]:
    """Spec names that changed while the thing stayed: kind -> {old: new}.

    A cluster is the same when its server is; an app when its base path is; a project when its
    namespaces are; an environment when its clusters are (after cluster renames).
    """
    clusters = _pair(base.server, head.server)
    old_envs = {
        env: frozenset(clusters.get(c, c) for c in names)
        for env, names in base.env_clusters.items()
        if names
    }
    return {
        "cluster": clusters,
        "app": _pair(base.app_path, head.app_path),
        "project": _pair(base.project_namespaces, head.project_namespaces),
        "environment": _pair(old_envs, {e: n for e, n in head.env_clusters.items() if n}),
    }


def _pair(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, str]:
    """Names that left ``old`` and arrived in ``new`` with the same, unshared, value."""
    gone: dict[Any, list[str]] = {}
    came: dict[Any, list[str]] = {}
    for name, value in old.items():
        if name not in new:
            gone.setdefault(value, []).append(name)
    for name, value in new.items():
        if name not in old:
            came.setdefault(value, []).append(name)
    return {
        olds[0]: came[value][0]
        for value, olds in gone.items()
        if len(olds) == 1 and len(came.get(value, ())) == 1
    }


__all__ = [
    "ARGO_GROUP",
    "FLUX_GROUP",
    "HELM_GROUP",
    "Application",
    "Change",
    "Context",
    "Facts",
    "Op",
    "Pair",
    "Side",
    "Source",
    "Where",
    "applied_by",
    "attribute",
    "derived_applications",
    "engine_of",
    "entity_renames",
    "keeps_objects",
    "workloads",
]
