"""Argo CD: cluster Secrets are clusters (their labels kept, their credentials never read), and
AppProjects projects; each Application, and each Application an ApplicationSet generates (its
list, cluster, git (directories and files), matrix and merge generators evaluated as the
controller does against the repository's clusters, folders and files), is an app instance on the
cluster it points at. An Application of Applications (a folder holding only Argo CD objects) is
followed into them.

One module a kind: `clusters`, `projects`, `applications` (their sources: `app_source`, a
chart's value files: `valuefiles`), `appsets` (their generators: `generators`, what git
generators read: `gitfiles`); `common` holds
what they share while reading."""

from __future__ import annotations

from fleetgen.importer.argocd.applications import application, is_parent
from fleetgen.importer.argocd.appsets import application_set
from fleetgen.importer.argocd.clusters import is_cluster_secret, register, store_credentials
from fleetgen.importer.argocd.clustervars import vars_of
from fleetgen.importer.argocd.common import ARGO, Reader
from fleetgen.importer.argocd.projects import project
from fleetgen.importer.argocd.standins import stand_ins
from fleetgen.importer.argocd.valuefiles import settle as settle_value_files
from fleetgen.importer.draft import Draft
from fleetgen.importer.repo import Repo

__all__ = ["recognise"]


def recognise(repo: Repo) -> Draft | None:
    """The fleet of an Argo CD repository, None when it has none of Argo CD's objects."""
    secrets = [doc for doc in repo.docs if is_cluster_secret(doc)]
    apps = [doc for doc in repo.docs if doc.is_(ARGO, "Application")]
    sets = [doc for doc in repo.docs if doc.is_(ARGO, "ApplicationSet")]
    if not (secrets or apps or sets):
        return None
    reader = Reader(repo, Draft("argocd"))
    found = {"cluster Secret": secrets, "Application": apps, "ApplicationSet": sets}
    reader.draft.read = {kind: len(docs) for kind, docs in found.items() if docs}
    for doc in secrets:
        register(reader, doc)
    for doc in repo.docs:
        if doc.is_(ARGO, "AppProject"):
            project(reader, doc)
    for doc in apps:
        if not is_parent(reader, doc):
            application(reader, doc, doc.obj)
    stand_ins(reader, sets)
    for doc in sets:
        application_set(reader, doc)
    _finish(reader)
    return reader.draft


def _finish(reader: Reader) -> None:
    """The fleet-wide settings what was found implies: the instances' value files (once this
    repository's URLs are known), this repository's URL, namespace creation, where credentials
    come from, the vars of the clusters another tool registers."""
    settle_value_files(reader)
    if reader.urls:
        reader.draft.repo = reader.urls.most_common(1)[0][0]
    reader.draft.create_namespaces = any(reader.namespaces_created)
    store_credentials(reader)
    vars_of(reader)
