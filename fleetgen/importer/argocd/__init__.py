"""Argo CD: cluster Secrets are clusters (their labels kept, their credentials never read), and
AppProjects projects; each Application, and each Application an ApplicationSet generates (its
list, cluster, git (directories and files), matrix and merge generators evaluated as the
controller does against the repository's clusters, folders and files), is an app instance on the
cluster it points at. An Application of Applications (a folder holding only Argo CD objects) is
followed into them.

One module a kind: `clusters`, `projects`, `applications` (their sources: `app_source`, a
chart's value files: `valuefiles`), `appsets` (their generators: `generators`, what git
generators read: `gitfiles`, their templates: `rendering`); `thisrepo` compares what sources
name of this repository with the fleet's revision and URL; `common` holds what they share
while reading."""

from __future__ import annotations

from fleetgen.importer.argocd.applications import application, is_parent
from fleetgen.importer.argocd.appsets import application_set
from fleetgen.importer.argocd.clusters import is_cluster_secret, register, store_credentials
from fleetgen.importer.argocd.clustervars import vars_of
from fleetgen.importer.argocd.common import ARGO, ARGO_NAMESPACE, Reader
from fleetgen.importer.argocd.projects import boundaries, project
from fleetgen.importer.argocd.standins import stand_ins
from fleetgen.importer.argocd.subscriptions import global_subscriptions
from fleetgen.importer.argocd.thisrepo import differences, fleet_revision
from fleetgen.importer.argocd.valuefiles import settle as settle_value_files
from fleetgen.importer.draft import Draft
from fleetgen.importer.findings import Finding
from fleetgen.importer.repo import Doc, Repo
from fleetgen.scaffold import remote

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
        else:
            reader.draft.findings.append(
                doc.finding(
                    f"Application {doc.name!r} not mapped (an app of apps: the Applications "
                    "it holds are imported, and fleetgen writes its own root Application)",
                    "check that fleetgen's bootstrap.yaml (synced automatically, pruning) does "
                    "what its syncPolicy did",
                )
            )
    stand_ins(reader, sets)
    for doc in sets:
        application_set(reader, doc)
    _finish(reader)
    projects = [doc for doc in repo.docs if doc.is_(ARGO, "AppProject")]
    reader.draft.findings += _namespaces([*secrets, *apps, *sets, *projects])
    return reader.draft


def _namespaces(docs: list[Doc]) -> list[Finding]:
    """A finding for each Argo CD object in another namespace than the one fleetgen writes
    them in (``ArgoOptions.namespace``)."""
    found = []
    for doc in docs:
        if doc.namespace not in ("", ARGO_NAMESPACE):
            found.append(
                doc.finding(
                    f"{doc.kind} {doc.name!r}: in namespace {doc.namespace!r}, where fleetgen "
                    f"writes Argo CD's objects in {ARGO_NAMESPACE!r}",
                    f"set Fleet(argocd=ArgoOptions(namespace={doc.namespace!r})) if Argo CD "
                    "runs there",
                    ("metadata", "namespace"),
                )
            )
    return found


def _finish(reader: Reader) -> None:
    """The fleet-wide settings what was found implies: this repository's revision, the
    instances' value files (once this repository's URLs are known), its URL (and what reads
    another), namespace creation, where credentials come from, the vars of the clusters another
    tool registers, the boundaries of projects."""
    url = remote.origin(reader.repo.root).url
    fleet_revision(reader)
    settle_value_files(reader, url)
    if reader.urls:
        reader.draft.repo = reader.urls.most_common(1)[0][0]
    differences(reader, url)
    reader.draft.create_namespaces = any(made for _, _, made in reader.namespaces_created)
    for origin, app, made in reader.namespaces_created:
        if reader.draft.create_namespaces and not made:
            reader.draft.findings.append(
                origin.finding(
                    f"{app}: no syncOption CreateNamespace=true, which other Applications here "
                    "have",
                    "fleetgen creates every app's namespace (Fleet(create_namespaces=True)): "
                    "check that is fine for this one",
                )
            )
    store_credentials(reader)
    vars_of(reader)
    boundaries(reader)
    global_subscriptions(reader)
