"""Argo CD's AppProjects as projects: their namespaces (from destinations), repositories,
cluster-scoped kinds, roles and sync windows; the built-in ``default`` renamed."""

from __future__ import annotations

from typing import Any

from fleetgen.importer.argocd.common import Reader, spec_call
from fleetgen.importer.draft import DEFAULT_PROJECT
from fleetgen.importer.findings import unmapped
from fleetgen.importer.repo import Doc, mappings, strings
from fleetgen.model.fields import to_dns_label

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
    if any("*" in group + kind for group, kind in kinds):
        reader.draft.findings.append(
            doc.finding(
                f"AppProject {doc.name!r}: any cluster-scoped kind ('*')",
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
    reader.draft.findings += unmapped(doc, _PROJECT_MAPPED, _PROJECT_TODO)
    reader.draft.projects[fields["name"]] = fields


def project_name(reader: Reader, where: Doc, name: str) -> str:
    """A project's name in fleet.py: Argo CD's built-in ``default`` (which fleetgen never
    writes) becomes ``apps``, said once."""
    if name != BUILT_IN:
        return to_dns_label(name, DEFAULT_PROJECT)
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


def _kinds(value: Any) -> list[tuple[str, str]]:
    """(group, kind) of each entry of an AppProject's resource list."""
    return [(str(k.get("group", "")), str(k.get("kind"))) for k in mappings(value)]
