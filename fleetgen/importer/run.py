"""``fleetgen import``: read the repository, recognise its Flux or Argo CD objects, fold them into
a fleet, check that fleet deploys what the repository does, and write fleet.py (only that)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fleetgen.errors import UsageError
from fleetgen.importer import argocd, faithful, flux, material
from fleetgen.importer.apps import Folded, fleet_sync, fold, sync_call
from fleetgen.importer.draft import ClusterDraft, Draft
from fleetgen.importer.findings import Finding, in_order
from fleetgen.importer.repo import read_repo
from fleetgen.importer.write import fleet_text
from fleetgen.model.fields import to_dns_label
from fleetgen.resolver.namespacing import allowed
from fleetgen.scaffold import remote
from fleetgen.util.templating import Call

SPEC = "fleet.py"
_WHAT = {"flux": "the Flux repository it sits in", "argocd": "the Argo CD repository it sits in"}


@dataclass(frozen=True, slots=True)
class Imported:
    """What import wrote (or, dry, would write): fleet.py's text and path, what it could not map,
    the engine it recognised and how many clusters and apps it found."""

    spec: Path
    text: str
    findings: tuple[Finding, ...]
    engine: str
    clusters: int
    apps: int


def import_repo(directory: Path, *, dry_run: bool = False) -> Imported:
    """Import the repository at ``directory`` into ``directory/fleet.py`` (``dry_run``: write
    nothing). Refuses when fleet.py exists or nothing is importable."""
    spec = directory / SPEC
    if spec.exists() or spec.is_symlink():
        raise UsageError(f"{spec} already exists: import writes a first fleet.py, never over one")
    root = directory.resolve()
    repo = read_repo(root)
    draft = flux.recognise(repo) or argocd.recognise(repo)
    if draft is None or not draft.importable:
        raise UsageError(
            f"nothing importable in {directory}: no Flux cluster folder (a flux-system "
            "Kustomization, or clusters/NAME/ with Kustomizations or HelmReleases) and no "
            "Argo CD cluster Secret, Application or ApplicationSet"
        )
    draft.in_order()
    findings = [*repo.findings, *material.scrub(draft)]
    fields, apps = _fleet(root, draft, findings)
    findings += draft.findings  # folding the apps adds to them
    checked = fleet_text(fields, _WHAT[draft.engine], in_order(findings))
    differences = faithful.check(root, checked, apps, draft.engine)
    text, found = _with_findings(fields, _WHAT[draft.engine], findings, differences, checked)
    if not dry_run:
        with spec.open("x", encoding="utf-8") as handle:
            handle.write(text)
    return Imported(spec, text, tuple(found), draft.engine, len(draft.clusters), len(apps))


def _with_findings(
    fields: dict[str, Any],
    what: str,
    findings: list[Finding],
    differences: list[Finding],
    checked: str,
) -> tuple[str, list[Finding]]:
    """fleet.py with every finding at its top, and the findings: those of the check at lines of
    the text it built (``checked``, fewer comments above them) moved to where they land."""
    found = in_order([*findings, *differences])
    for _ in range(3):  # a line number one digit longer may wrap a comment: settle it
        shift = _code_line(fleet_text(fields, what, found)) - _code_line(checked)
        moved = [
            replace(f, line=f.line + shift) if f.file == SPEC and f.line else f for f in differences
        ]
        if in_order([*findings, *moved]) == found:
            break
        found = in_order([*findings, *moved])
    return fleet_text(fields, what, found), found


def _code_line(text: str) -> int:
    """The line fleet.py's code starts at (its imports), below the docstring and findings."""
    return text.splitlines().index("from fleetgen import (")


def _fleet(
    root: Path, draft: Draft, findings: list[Finding]
) -> tuple[dict[str, Any], list[Folded]]:
    """The Fleet's fields, and the apps among them."""
    name = to_dns_label(root.name, "fleet")
    shared = fleet_sync(draft.instances)
    apps = fold(draft, shared)
    fields: dict[str, Any] = {
        "name": name,
        "repo": _repo_url(root, draft, findings, name),
        "engines": [draft.engine],
    }
    if draft.flux is not None:
        fields["flux"] = draft.flux
    if shared:
        fields["sync"] = sync_call(shared)
    if draft.cascade:
        fields["cascade_delete"] = True
    if not draft.create_namespaces:
        fields["create_namespaces"] = False
    if draft.default_credentials is not None:
        fields["default_credentials"] = draft.default_credentials
    fields["environments"] = [Call("Environment", {"name": env}) for env in draft.envs]
    fields["clusters"] = [_cluster(cluster) for cluster in draft.clusters]
    fields["projects"] = _projects(draft, apps)
    fields["apps"] = [app.call for app in apps]
    return fields, apps


def _cluster(cluster: ClusterDraft) -> Call:
    """``Cluster(...)`` with the arguments ``add cluster`` writes."""
    fields: dict[str, Any] = {"name": cluster.name, "env": cluster.env, "server": cluster.server}
    if cluster.labels:
        fields["labels"] = dict(cluster.labels)
    if cluster.annotations:
        fields["annotations"] = dict(cluster.annotations)
    if cluster.credentials is not None:
        fields["credentials"] = cluster.credentials
    if cluster.ca_data:
        fields["ca_data"] = cluster.ca_data
    return Call("Cluster", fields)


def _repo_url(root: Path, draft: Draft, findings: list[Finding], name: str) -> str:
    """The Git remote ``origin``, else the repository the engines read, else a placeholder (a
    finding)."""
    found = remote.origin(root).url
    if found is None and draft.repo:
        found = remote.https_url(draft.repo).url
    if found is None:
        findings.append(
            Finding(
                SPEC,
                0,
                "the fleet's repo is a placeholder (no Git remote origin, no "
                "repository URL in the engines' objects)",
                "set Fleet(repo=...) to the https:// URL the engines read this repository from",
            )
        )
    return found or remote.PLACEHOLDER_REPO.format(name=name)


def _projects(draft: Draft, apps: list[Folded]) -> list[Call]:
    """One ``Project(...)`` per project the apps name: the fields found for it, its apps'
    namespaces and the metadata of the Namespaces they ship."""
    namespaces: dict[str, set[str]] = {}
    for app in apps:
        for instance in app.instances:
            used = namespaces.setdefault(instance.project, set())
            used |= instance.uses | ({instance.namespace} if instance.namespace else set())
    calls = []
    for project in sorted(namespaces.keys() | draft.projects.keys()):
        fields: dict[str, Any] = {"name": project}
        listed = set(draft.projects.get(project, {}).get("namespaces", [])) | namespaces.get(
            project, set()
        )
        globs = [pattern for pattern in listed if "*" in pattern]
        fields["namespaces"] = sorted(ns for ns in listed if ns in globs or not allowed(ns, globs))
        fields.update((k, v) for k, v in draft.projects.get(project, {}).items() if k not in fields)
        meta = draft.namespace_meta.get(project)
        if meta:
            fields["namespace_metadata"] = {
                ns: Call("NamespaceMeta", meta[ns]) for ns in sorted(meta)
            }
        calls.append(Call("Project", fields))
    return calls
