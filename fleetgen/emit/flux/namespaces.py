"""The Namespaces of the Flux output: app namespaces per cluster, with the labels and
annotations their project declares, kept on removal unless ``cascade_delete``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from fleetgen.emit.common import namespace_object, tenants
from fleetgen.model import Fleet, NamespaceMeta
from fleetgen.resolver.namespacing import namespace_metadata
from fleetgen.resolver.plan import Plan
from fleetgen.rules.flux import PRUNE_DISABLED
from fleetgen.write.output import OutputFile


def namespace(name: str, meta: NamespaceMeta | None, cascade_delete: bool) -> dict[str, Any]:
    """A Namespace with the labels and annotations its project declares (``meta``); kept when it
    leaves the spec unless ``cascade_delete`` (pruning a Namespace deletes everything in it, which
    ``deletionPolicy: Orphan`` promised to keep)."""
    return namespace_object(name, meta, {} if cascade_delete else PRUNE_DISABLED)


def app_namespaces(plan: Plan) -> dict[str, set[str]]:
    """cluster -> the namespaces of the apps placed on it (none for an App(namespace=None),
    whose manifests ship their own Namespaces), and those its tenants' RoleBindings are in: a
    tenant's account cannot create a Namespace (cluster-scoped), so one whose apps all name no
    namespace (sources of their own) needs fleetgen's."""
    found: dict[str, set[str]] = defaultdict(set)
    for placement in plan.placements:
        here = found[placement.cluster]  # listed even with no namespace
        if placement.namespace is not None:
            here.add(placement.namespace)
    for cluster, by_project in tenants(plan).items():
        for names in by_project.values():
            found[cluster] |= names
    return dict(found)


def created(fleet: Fleet, names: Iterable[str]) -> set[str]:
    """The app namespaces of ``names`` that Flux creates: all, unless
    ``Fleet(create_namespaces=False)`` (namespaces provisioned elsewhere)."""
    return set(names) if fleet.create_namespaces else set()


class NamespaceFiles:
    """Files of Namespaces; each Namespace object is built once, however many files hold it."""

    def __init__(self, fleet: Fleet) -> None:
        self._declared = namespace_metadata(fleet)
        self._cascade_delete = fleet.cascades_everywhere  # a namespace may hold any app
        self._built: dict[str, dict[str, Any]] = {}

    def file(self, path: str, names: Iterable[str], comment: str) -> list[OutputFile]:
        """A file with a Namespace for each of ``names`` (sorted), or none for no names."""
        docs = tuple(self._namespace(name) for name in sorted(set(names)))
        return [OutputFile(path, docs, comment=comment)] if docs else []

    def _namespace(self, name: str) -> dict[str, Any]:
        found = self._built.get(name)
        if found is None:
            found = self._built[name] = namespace(
                name, self._declared.get(name), self._cascade_delete
            )
        return found
