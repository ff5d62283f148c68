"""A Flux cluster folder followed through what it applies, object by object: a Kustomization
whose folder holds only Flux objects (releases, their sources, further Kustomizations, a
tenant's accounts) is followed into them; any other is an app of its folder or source, a
HelmRelease a chart app; each app's dependencies named as the apps it depends on."""

from __future__ import annotations

from collections.abc import Iterable

from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.flux.common import (
    HELM,
    KUSTOMIZE,
    ROOT,
    SOURCE,
    SOURCES,
    Applied,
    Walk,
    is_flux,
)
from fleetgen.importer.flux.kustomizations import (
    added_fields,
    local_app,
    source_app,
    unmapped_fields,
)
from fleetgen.importer.flux.releases import release, values_maps
from fleetgen.importer.flux.tenancy import default_account, is_tenancy_kind, tenancy, tenant
from fleetgen.importer.repo import Doc, mapping, relative_path
from fleetgen.model.fields import to_dns_label

_AUTOMATION = (
    "fleetgen has no image automation: keep it in a folder of its own added as an app, and "
    "point its updates at fleet.py (Image tags)"
)
_NOTIFICATIONS = "keep it in a folder of its own, added as an app"
# Flux objects import does not map, and what to do instead.
_FLUX_KINDS = {
    "ArtifactGenerator": "fleetgen reads the repository's folders as they are: point the apps "
    "at the folders it packs (their paths in fleet.py)",
    "ExternalArtifact": "point the apps at the folders it holds",
    "Bucket": "fleetgen reads Git and OCI sources: move the manifests there",
    "ImageRepository": _AUTOMATION,
    "ImagePolicy": _AUTOMATION,
    "ImageUpdateAutomation": _AUTOMATION,
    "Alert": _NOTIFICATIONS,
    "Provider": _NOTIFICATIONS,
    "Receiver": _NOTIFICATIONS,
}


def follow(walk: Walk, folder: str) -> None:
    """Follow ``folder`` and everything it applies into instances."""
    inside = f"{folder}/{ROOT}/"
    _controller_patches(walk, f"{folder}/{ROOT}")
    docs = [d for d in walk.deployed(folder, None) if not d.file.startswith(inside)]
    _apply(walk, docs, None)
    made = [item if isinstance(item, Instance) else release(walk, item) for item in walk.found]
    mine = [instance for instance in made if instance is not None]
    tenancy(walk, mine)
    for instance in mine:
        instance.depends_on = _depends(walk, instance, {i.name for i in mine})
    walk.draft.instances += mine


def _controller_patches(walk: Walk, folder: str) -> None:
    """Patches of Flux's own controllers (bootstrap's kustomization.yaml): Flux's
    installation, which fleetgen leaves to bootstrap."""
    for name in ("kustomization.yaml", "kustomization.yml"):
        doc = walk.repo.kustomizations.get(f"{folder}/{name}")
        if doc is not None and doc.obj.get("patches"):
            walk.draft.findings.append(
                doc.finding(
                    "patches of Flux's own controllers (bootstrap's kustomization)",
                    "kept where they are: fleetgen leaves Flux's installation to flux "
                    "bootstrap, which keeps this file",
                    ("patches",),
                )
            )
            walk.draft.findings += default_account(doc)


def _apply(walk: Walk, docs: Iterable[Doc], parent: Doc | None) -> None:
    """Each object ``parent`` (None: the cluster folder) applies, by kind."""
    for doc in docs:
        if doc.is_(KUSTOMIZE, "Kustomization"):
            _kustomization(walk, doc, parent)
        elif doc.is_(HELM, "HelmRelease"):
            walk.found.append(Applied(doc, parent))
            walk.made(to_dns_label(doc.name, "app"), parent)
        elif any(doc.is_(SOURCE, kind) for kind in SOURCES):
            walk.sources.setdefault((doc.kind, doc.name), doc)
        elif is_tenancy_kind(doc):
            walk.tenancy.append((doc, walk.cluster))
        elif doc.kind == "ConfigMap" and doc.group == "" and parent is not None:
            walk.configmaps[(doc.namespace, doc.name)] = doc  # values of a release there
        else:
            walk.draft.findings.append(_loose(doc))


def _kustomization(walk: Walk, doc: Doc, parent: Doc | None) -> None:
    """A Kustomization: followed into its folder, or an app of its folder or source."""
    if doc.name == ROOT:
        return
    ref = mapping(doc.spec.get("sourceRef"))
    path = relative_path(str(doc.spec.get("path", "") or "."))
    if path is None:
        walk.draft.findings.append(
            doc.finding(
                f"Kustomization {doc.name!r}: path leaves the repository",
                "point it inside the repository",
                ("spec", "path"),
            )
        )
        return
    if ref.get("kind") == "GitRepository" and ref.get("name") == ROOT:
        added = added_fields(doc.spec)
        deployed = walk.deployed(path, doc, added)
        if _only_flux(deployed) and (walk.repo.has_kustomization(path) or not added):
            walk.draft.findings += unmapped_fields(doc)
            walk.parent_of[doc.name] = parent
            _apply(walk, deployed, doc)
            return
        instance: Instance | None = local_app(walk, doc, path, deployed)
    else:
        instance = source_app(walk, doc, path, ref)
    if instance is not None:
        _found(walk, instance, doc, parent)


def _found(walk: Walk, instance: Instance, doc: Doc, parent: Doc | None) -> None:
    """The app of a Kustomization ``parent`` applies: made by both, depending on what they
    depend on, a tenant's if it runs as a ServiceAccount."""
    walk.produced.setdefault(doc.name, []).append(instance.name)
    walk.made(instance.name, parent)
    instance.depends_on += walk.inherited(parent)
    tenant(walk, instance, doc)
    walk.found.append(instance)


def _depends(walk: Walk, instance: Instance, names: set[str]) -> list[str]:
    """The instances an instance's dependsOn names (a Kustomization: what it made)."""
    found: list[str] = []
    for name in instance.depends_on:
        label = to_dns_label(name, "app")
        made = walk.produced.get(name) or ([label] if label in names else [])
        if not made:
            what = f"dependsOn {name!r}: nothing of that name is applied on {walk.cluster!r}"
            walk.draft.findings.append(instance.origin.finding(what, "add depends_on by hand"))
        found += [m for m in made if m != instance.name]
    return sorted(set(found))


def _only_flux(docs: list[Doc]) -> bool:
    """Whether a folder holds only what import follows (Flux objects, the ConfigMaps of their
    values, a tenant's accounts) and at least one Kustomization or HelmRelease."""
    values = {ref for doc in docs if doc.is_(HELM, "HelmRelease") for ref in values_maps(doc)}
    followed = (
        is_flux(doc)
        or any(doc.is_(SOURCE, kind) for kind in SOURCES)
        or is_tenancy_kind(doc)
        or (doc.group, doc.kind, doc.namespace, doc.name) in values
        for doc in docs
    )
    return all(followed) and any(is_flux(doc) and doc.name != ROOT for doc in docs)


def _loose(doc: Doc) -> Finding:
    """The finding of an object a cluster folder applies that import does not follow."""
    if doc.group.endswith("toolkit.fluxcd.io") or doc.group.endswith("extensions.fluxcd.io"):
        todo = _FLUX_KINDS.get(doc.kind, "add it by hand, or keep it in an app's folder")
        return doc.finding(f"Flux {doc.kind} {doc.name!r} not mapped", todo)
    return doc.finding(
        f"{doc.kind} {doc.name!r} applied from the cluster folder itself",
        "fleetgen applies apps, not loose objects: move it into a folder of its own and add "
        "that folder as an app",
    )
