"""Where an app's objects go: a base's Namespace objects under the overlay's namespace rewrite,
the namespaces an ``App(namespace=None)`` base uses, and namespace metadata declarations.
Pure: `resolve` reports what these return.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from fleetgen.inputs.bases import Base
from fleetgen.model import App, Fleet, NamespaceMeta, Project


def allowed(namespace: str, patterns: Iterable[str]) -> bool:
    """Whether ``namespace`` matches one of a project's namespace ``patterns`` (globs)."""
    return any(fnmatch.fnmatchcase(namespace, pattern) for pattern in patterns)


def base_problems(
    app: App,
    base: Base,
    project: Project | None,
    what: str = "its base",
    rewrite: str = "the overlay's namespace rewrite",
) -> list[str]:
    """Namespace objects of the base under the namespace ``rewrite`` (the overlay's; a plain
    directory's is Flux's targetNamespace), which renames each to the app's namespace
    (kustomize's namespace transformer; two collide in an ID conflict); and for
    App(namespace=None), namespaces the project does not allow. ``what`` names the base in the
    messages (a directory a layer adds is checked alike)."""
    shipped = sorted(base.namespace_objects)
    if app.namespace is not None and len(shipped) > 1:
        return [
            f"app {app.name!r}: {what} ships {len(shipped)} Namespace objects "
            f"({', '.join(shipped)}), which {rewrite} to "
            f"{app.namespace!r} would all rename to {app.namespace!r} (kustomize: ID "
            "conflict); set App(namespace=None) to keep the base's namespaces"
        ]
    if app.namespace is not None and shipped:
        return [
            f"app {app.name!r}: {what} ships Namespace {shipped[0]!r}, which "
            f"{rewrite} turns into the app's own namespace "
            f"{app.namespace!r}, which fleetgen already creates; remove it from the "
            "base, or set App(namespace=None) to keep the base's namespaces"
        ]
    if app.namespace is None and project is not None:
        refused = sorted(
            ns
            for ns in base.namespaces | base.namespace_objects
            if not allowed(ns, project.namespaces)
        )
        if refused:
            return [
                f"app {app.name!r}: {what} puts objects in namespace(s) "
                f"{', '.join(refused)}, which project {project.name!r} does not allow (add "
                "them to Project(namespaces=[...]))"
            ]
    return []


def metadata_problems(fleet: Fleet) -> list[tuple[NamespaceMeta, str]]:
    """Namespace metadata: declared once per namespace, by a project that allows it, on a fleet
    whose engines create the namespaces that carry it."""
    found: list[tuple[NamespaceMeta, str]] = []
    declared: dict[str, str] = {}
    for project in fleet.projects:
        for namespace, meta in project.namespace_metadata.items():
            other = declared.setdefault(namespace, project.name)
            where = f"project {project.name!r}: namespace_metadata for {namespace!r}"
            if other != project.name:
                found.append(
                    (
                        meta,
                        f"{where} is also declared by project {other!r}; declare "
                        "it once, on the project that owns the namespace",
                    )
                )
            if not allowed(namespace, project.namespaces):
                found.append(
                    (
                        meta,
                        f"{where}, a namespace the project does not allow (add it "
                        "to Project(namespaces=[...]))",
                    )
                )
            if not fleet.create_namespaces:
                found.append(
                    (
                        meta,
                        f"{where}: Fleet(create_namespaces=False) leaves namespaces "
                        "to another tool, so nothing would carry these labels and "
                        "annotations; set them there",
                    )
                )
    return found


def namespace_metadata(fleet: Fleet) -> dict[str, NamespaceMeta]:
    """Namespace -> the labels and annotations its project declares (`resolve` refuses two
    declarations of one namespace)."""
    return {
        name: meta
        for project in fleet.projects
        for name, meta in project.namespace_metadata.items()
    }
