"""What following a Flux cluster folder keeps while the object kinds are read: the cluster, the
sources applied beside its objects, which Kustomization made what, and what it found in the order
applied; the API groups and names the kinds share.

Flux objects are named within their namespace (a hub keeps one namespace per spoke, each with
Kustomizations of the same names), so what the walk keeps of them is keyed by ``(namespace,
name)``, and a ``dependsOn`` entry is kept as ``namespace/name`` (its namespace defaults to the
object's own) until the instances it names are known."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fleetgen.importer.draft import Draft, Instance, Packed
from fleetgen.importer.repo import Doc, Repo, Unreadable, mappings

KUSTOMIZE = "kustomize.toolkit.fluxcd.io"
HELM = "helm.toolkit.fluxcd.io"
SOURCE = "source.toolkit.fluxcd.io"
GENERATORS = "source.extensions.fluxcd.io"  # source-watcher's ArtifactGenerator
ROOT = "flux-system"
SOURCES = ("GitRepository", "OCIRepository", "HelmRepository")

Key = tuple[str, str]  # namespace, name


def is_flux(doc: Doc) -> bool:
    """Whether ``doc`` is a Flux Kustomization or HelmRelease."""
    return doc.is_(KUSTOMIZE, "Kustomization") or doc.is_(HELM, "HelmRelease")


def key(doc: Doc) -> Key:
    """The namespace and name of ``doc``."""
    return (doc.namespace, doc.name)


def dependencies(doc: Doc) -> list[str]:
    """``namespace/name`` of each ``dependsOn`` entry of ``doc`` (its namespace by default)."""
    return [
        f"{item.get('namespace') or doc.namespace}/{item['name']}"
        for item in mappings(doc.spec.get("dependsOn"))
        if item.get("name")
    ]


@dataclass(slots=True)
class Applied:
    """An object a cluster applies and the Kustomization that applies it (None: the root)."""

    doc: Doc
    parent: Doc | None


@dataclass(slots=True)
class Pending:
    """A Kustomization whose folder holds only accounts, their bindings and Namespaces: a
    tenant's accounts if a Flux object runs as one of them, else an app (`walk.settle`)."""

    doc: Doc
    parent: Doc | None
    path: str
    built: list[Doc]  # as kustomize builds it
    deployed: list[Doc]  # as Flux applies it (substituted)
    cluster: str


@dataclass(slots=True)
class Walk:
    """One cluster folder followed through what it applies."""

    repo: Repo
    draft: Draft
    cluster: str
    namespace: str = ROOT  # the Flux namespace: the flux-system Kustomization's
    sources: dict[tuple[str, str, str], Doc] = field(default_factory=dict)  # kind, ns, name
    produced: dict[Key, list[str]] = field(default_factory=dict)  # Kustomization -> instances
    found: list[Instance | Applied] = field(default_factory=list)  # in the order applied
    parent_of: dict[Key, Doc | None] = field(default_factory=dict)  # followed Kustomizations
    tenancy: list[tuple[Doc, str]] = field(default_factory=list)  # and the cluster it is on
    runs_as: list[tuple[Instance, Doc]] = field(default_factory=list)  # serviceAccountName
    named: dict[Key, Doc] = field(default_factory=dict)  # account -> the first object naming it
    configmaps: dict[Key, Doc] = field(default_factory=dict)  # releases' values
    pending: list[Pending] = field(default_factory=list)
    loose: list[Doc] = field(default_factory=list)  # applied objects import does not follow
    notices: list[Doc] = field(default_factory=list)  # Alerts, Providers and their Secrets
    spokes: dict[str, Key] = field(default_factory=dict)  # spoke -> its kubeconfig Secret
    generators: dict[Key, Doc] = field(default_factory=dict)  # artifact -> its ArtifactGenerator
    packed: dict[Key, Packed] = field(default_factory=dict)  # Kustomization -> its artifact's

    def deployed(
        self, folder: str, by: Doc | None, added: Mapping[str, Any] | None = None
    ) -> list[Doc]:
        """What ``folder`` deploys (with a Kustomization's ``added`` fields); nothing (a
        finding at ``by``) when kustomize fails."""
        try:
            return self.repo.deployed(folder, added)
        except Unreadable as error:
            where = by or Doc(folder, 0, {})
            self.draft.findings.append(
                where.finding(f"kustomize cannot build {folder} ({error})", "fix it, rerun import")
            )
            return []

    def source(self, kind: str, name: str, namespace: str) -> Doc | None:
        """The source of ``kind``, ``name`` and ``namespace``: applied beside, else of that
        kind and name anywhere in the repository, in that namespace (or none, which the
        Kustomization applying it may set)."""
        return self.sources.get((kind, namespace, name)) or next(
            (
                d
                for d in self.repo.docs
                if d.is_(SOURCE, kind) and d.name == name and d.namespace in ("", namespace)
            ),
            None,
        )

    def is_root(self, ref: Mapping[str, Any], doc: Doc) -> bool:
        """Whether the ``sourceRef`` ``ref`` of ``doc`` names bootstrap's GitRepository (this
        repository): ``flux-system`` in the Flux namespace, the object's own by default."""
        namespace = str(ref.get("namespace") or doc.namespace)
        kind, name = ref.get("kind"), ref.get("name")
        return kind == "GitRepository" and name == ROOT and namespace in ("", self.namespace)

    def applies(self, doc: Doc) -> None:
        """``doc``, a Kustomization or HelmRelease, is applied: the account it runs as (if it
        names one) is named, whether or not it becomes an app."""
        account = doc.spec.get("serviceAccountName")
        if account:
            self.named.setdefault((doc.namespace, str(account)), doc)

    def made(self, name: str, parent: Doc | None) -> None:
        """``name`` is made by each followed Kustomization from ``parent`` up: what depends on
        them depends on it."""
        while parent is not None:
            self.produced.setdefault(key(parent), []).append(name)
            parent = self.parent_of.get(key(parent))

    def inherited(self, parent: Doc | None) -> list[str]:
        """The dependsOn of each followed Kustomization from ``parent`` up."""
        found: list[str] = []
        while parent is not None:
            found += dependencies(parent)
            parent = self.parent_of.get(key(parent))
        return found
