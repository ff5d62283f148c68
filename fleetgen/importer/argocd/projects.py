"""Argo CD's AppProjects as projects: their namespaces (from destinations), repositories,
cluster-scoped kinds, roles and sync windows; the built-in ``default`` renamed. An Application
the original does not permit (``AppProject.IsSourcePermitted``, ``isDestinationMatched``) is a
finding, and so are the servers it permits beyond the clusters of its apps, the only ones
fleetgen's AppProject permits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleetgen.importer.argocd.common import Cluster, Path, Reader, not_written, spec_call
from fleetgen.importer.draft import DEFAULT_PROJECT
from fleetgen.importer.findings import unmapped
from fleetgen.importer.repo import Doc, at, mappings, strings
from fleetgen.model.fields import to_dns_label
from fleetgen.rules.argoproject import destination_permitted, source_permitted

BUILT_IN = "default"  # Argo CD's own AppProject
_PROJECT_MAPPED: dict[str, tuple[str, ...]] = {
    "description": (),
    "sourceRepos": (),
    "destinations": (),
    "clusterResourceWhitelist": (),
    "namespaceResourceBlacklist": (),
    "roles": (),
    "syncWindows": (),
}
_PROJECT_TODO: dict[str, str] = {}
_DESTINATION_TODO = (
    "fleetgen's AppProject permits each app's namespaces on the clusters it is placed on: "
    "check the app belongs to the project"
)
_SOURCE_TODO = (
    "fleetgen refuses it too (Project(source_repos=...)): add the repository there, or move "
    "the app to another project"
)
# The fields of an Argo CD list entry a spec class carries: (its key, the class's field).
_ROLE_KEYS = (
    ("name", "name"),
    ("description", "description"),
    ("policies", "policies"),
    ("groups", "groups"),
)
_WINDOW_KEYS = (
    ("kind", "kind"),
    ("schedule", "schedule"),
    ("duration", "duration"),
    ("applications", "applications"),
    ("clusters", "clusters"),
    ("namespaces", "namespaces"),
    ("manualSync", "manual_sync"),
    ("timeZone", "time_zone"),
)


def project(reader: Reader, doc: Doc) -> None:
    """An AppProject: its namespaces (from destinations), repositories, cluster-scoped kinds,
    roles and sync windows."""
    spec = doc.spec
    fields: dict[str, Any] = {"name": project_name(reader, doc, doc.name)}
    if spec.get("description"):
        fields["description"] = str(spec["description"])
    namespaces = sorted(
        {str(d.get("namespace")) for d in mappings(spec.get("destinations")) if d.get("namespace")}
    )
    if namespaces:
        fields["namespaces"] = namespaces
    repos = [r for r in strings(spec.get("sourceRepos")) if r != "*"]
    if repos:
        fields["source_repos"] = repos
    kinds = _kinds(spec.get("clusterResourceWhitelist"))
    patterns = [f"{group}/{kind}" for group, kind in kinds if "*" in group + kind]
    if patterns:
        reader.draft.findings.append(
            doc.finding(
                f"AppProject {doc.name!r}: spec.clusterResourceWhitelist permits cluster-scoped "
                f"kinds by pattern ({', '.join(map(repr, patterns))})",
                "fleetgen derives the project's cluster-scoped kinds from its bases; list "
                "a chart's in Project(cluster_resources=...)",
                ("spec", "clusterResourceWhitelist"),
            )
        )
    elif kinds:
        fields["cluster_resources"] = kinds
    denied = _kinds(spec.get("namespaceResourceBlacklist"))
    if denied:
        fields["namespace_resources_deny"] = denied
    roles = [spec_call("Role", role, _ROLE_KEYS) for role in mappings(spec.get("roles"))]
    if roles:
        fields["roles"] = roles
    windows = [
        spec_call("SyncWindow", window, _WINDOW_KEYS)
        for window in mappings(spec.get("syncWindows"))
    ]
    if windows:
        fields["sync_windows"] = windows
    reader.draft.findings += [*unmapped(doc, _PROJECT_MAPPED, _PROJECT_TODO), *not_written(doc)]
    reader.draft.projects[fields["name"]] = fields
    reader.appprojects[doc.name] = doc


def project_name(reader: Reader, where: Doc, name: str) -> str:
    """A project's name in fleet.py: Argo CD's built-in ``default`` (which fleetgen never
    writes) becomes ``apps``, said once."""
    if name != BUILT_IN:
        return _fleet_name(name)
    if not reader.renamed:
        reader.renamed = True
        reader.draft.findings.append(
            where.finding(
                "AppProject 'default' (Argo CD's built-in project) is renamed 'apps'",
                "fleetgen writes the AppProject of each project: its apps move to 'apps' "
                "(rename it in fleet.py at will)",
            )
        )
    return DEFAULT_PROJECT


def _fleet_name(name: str) -> str:
    """An AppProject's name as a project of fleet.py (the built-in one's: ``apps``)."""
    return DEFAULT_PROJECT if name == BUILT_IN else to_dns_label(name, DEFAULT_PROJECT)


def _kinds(value: Any) -> list[tuple[str, str]]:
    """(group, kind) of each entry of an AppProject's resource list."""
    return [(str(k.get("group", "")), str(k.get("kind"))) for k in mappings(value)]


def permits(
    reader: Reader,
    origin: Doc,
    app: str,
    project: str,
    cluster: Cluster,
    spec: Mapping[str, Any],
    sources: list[tuple[Path, Mapping[str, Any]]],
) -> None:
    """A finding for what of an Application (``app`` on ``cluster``, in the AppProject named
    ``project``, with its ``spec`` and ``sources``) that AppProject, if the repository holds
    it, does not permit: its destination (a cluster of the repository), each source's
    repository. Argo CD refuses to sync it; fleetgen's AppProject permits it."""
    found = reader.appprojects.get(project)
    if found is None:
        return  # the built-in project, or one not in the repository: permits what it does
    top = ("spec", "template", "spec") if origin.kind == "ApplicationSet" else ("spec",)
    namespace = str(at(spec, "destination", "namespace") or "")
    refused: list[tuple[str, Path, str]] = []
    here = cluster.listed and not cluster.external  # a cluster of the repository
    server = cluster.draft.server
    if here and not destination_permitted(found.spec, cluster.name, server, namespace):
        shown = f"its destination (cluster {cluster.draft.name!r}, namespace {namespace!r})"
        refused.append((shown, (*top, "destination"), _DESTINATION_TODO))
    for where, source in sources:
        url = str(source.get("repoURL", ""))
        if not source_permitted(found.spec, url):
            refused.append((f"its source {url}", (*top, *where, "repoURL"), _SOURCE_TODO))
    for what, where, todo in refused:
        reader.draft.findings.append(
            origin.finding(
                f"{app}: AppProject {project!r} does not permit {what}: Argo CD refuses to sync it",
                todo,
                where,
            )
        )


def boundaries(reader: Reader) -> None:
    """A finding for each AppProject whose destinations permit servers (or cluster names) other
    than those of the clusters its apps are placed on, which fleetgen's AppProject permits."""
    placed: dict[str, set[str]] = {}
    for instance in reader.draft.instances:
        placed.setdefault(instance.project, set()).add(instance.cluster)
    for name, doc in reader.appprojects.items():
        on = placed.get(_fleet_name(name), set())
        clusters = [c for c in reader.clusters.values() if c.draft.name in on]
        servers = {c.draft.server for c in clusters}
        names = {c.name for c in clusters}
        beyond = [
            _shown(d)
            for d in mappings(doc.spec.get("destinations"))
            if str(d.get("server") or "").rstrip("/") not in servers
            and str(d.get("name") or "") not in names
        ]
        if beyond:
            reader.draft.findings.append(
                doc.finding(
                    f"AppProject {doc.name!r}: spec.destinations permit servers fleetgen's "
                    f"AppProject does not ({', '.join(dict.fromkeys(beyond))})",
                    "fleetgen's permits the clusters its apps are placed on: set "
                    "Project(destinations=[Destination(...)]) if Applications made outside "
                    "fleet.py deploy there",
                    ("spec", "destinations"),
                )
            )


def _shown(destination: Mapping[str, Any]) -> str:
    """A destination's cluster as its server, else its name."""
    server = destination.get("server")
    return repr(str(server)) if server else f"name {str(destination.get('name') or '')!r}"
