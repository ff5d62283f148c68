"""Flux's cluster folders: the path of each ``flux-system`` Kustomization bootstrap wrote, or a
``clusters/NAME/`` folder of Flux objects; and the repository bootstrap's GitRepository reads."""

from __future__ import annotations

from fleetgen.importer.flux.common import KUSTOMIZE, ROOT, SOURCE, is_flux
from fleetgen.importer.repo import Doc, Repo, relative_path, strings


def cluster_folders(repo: Repo) -> dict[str, Doc]:
    """Cluster folder -> what shows it is one: the ``flux-system`` Kustomization bootstrap wrote
    (its path), the kustomization of a ``NAME/flux-system/`` folder that lists bootstrap's
    ``gotk-sync.yaml`` (committed before bootstrap writes it), or the first Flux object of a
    ``clusters/NAME/`` folder that no Kustomization outside it applies (a hub's per-spoke
    folders are that hub's)."""
    found: dict[str, Doc] = {}
    for doc in repo.docs:
        if _is_root(doc) and (folder := relative_path(str(doc.spec.get("path", "")))):
            found.setdefault(folder, doc)
    for file, doc in repo.kustomizations.items():  # bootstrap's, its gotk-sync.yaml yet to come
        folder, _, name = file.rpartition(f"/{ROOT}/")
        if name.startswith("kustomization.") and "gotk-sync.yaml" in strings(
            doc.obj.get("resources")
        ):
            found.setdefault(folder, doc)
    applied = [
        (doc.file, path)
        for doc in repo.docs
        if doc.is_(KUSTOMIZE, "Kustomization") and not _is_root(doc)
        if (path := relative_path(str(doc.spec.get("path", "") or ".")))
    ]
    for doc in repo.docs:
        parts = doc.file.split("/")
        if parts[0] == "clusters" and len(parts) > 2 and is_flux(doc):
            folder = "/".join(parts[:2])
            taken = [*found, *(path for file, path in applied if not _under(file, folder))]
            if not any(_under(folder, f) or _under(f, folder) for f in taken):
                found[folder] = doc
    return dict(sorted(found.items()))


def _under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it."""
    return path == folder or path.startswith(folder + "/")


def fleet_repo(repo: Repo) -> str | None:
    """The URL of the ``flux-system`` GitRepository: the repository Flux reads."""
    roots = (d for d in repo.docs if d.is_(SOURCE, "GitRepository") and d.name == ROOT)
    return next((str(d.spec.get("url")) for d in roots if d.spec.get("url")), None)


def flux_namespace(origin: Doc) -> str:
    """The namespace Flux runs in on a cluster: its ``flux-system`` Kustomization's, else
    bootstrap's default."""
    return (origin.namespace if _is_root(origin) else "") or ROOT


def _is_root(doc: Doc) -> bool:
    return doc.is_(KUSTOMIZE, "Kustomization") and doc.name == ROOT
