"""``fleetgen import``: read the repository, recognise its Flux or Argo CD objects, fold them into
a fleet, check that fleet deploys what the repository does, and write fleet.py (only that)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fleetgen.errors import UsageError
from fleetgen.importer import argocd, faithful, flux, material, notify, overlaydraft, overlays
from fleetgen.importer.apps import Folded, fleet_sync, fold, sync_call
from fleetgen.importer.draft import ClusterDraft, Draft, Engine
from fleetgen.importer.findings import Finding, in_order
from fleetgen.importer.repo import Repo, read_repo
from fleetgen.importer.write import fleet_text
from fleetgen.model.fields import to_dns_label
from fleetgen.resolver.namespacing import allowed
from fleetgen.scaffold import remote
from fleetgen.util.templating import Call

SPEC = "fleet.py"
_WHAT = {"flux": "the Flux repository it sits in", "argocd": "the Argo CD repository it sits in"}
_OVERLAYS = "the Kustomize overlays of the repository it sits in"
_ENGINES = {"flux": "Flux", "argocd": "Argo CD"}


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


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """What to import: the repository at ``directory`` (``dry_run``: write nothing); for a
    repository of Kustomize overlays, the ``engine`` that is to deploy them and what its
    overlay folders are (``envs``: ``NAME=FOLDER``, ``clusters``: ``[ENV/]NAME=FOLDER``)."""

    directory: Path
    dry_run: bool = False
    engine: str | None = None
    envs: tuple[str, ...] = ()
    clusters: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Unchecked:
    """The fleet import drafts before the faithfulness check: fleet.py's ``text`` with the
    ``findings`` so far, and what the check and the final text are made of."""

    root: Path
    text: str
    findings: list[Finding]
    fields: dict[str, Any]
    what: str
    apps: list[Folded]
    draft: Draft


def import_repo(request: ImportRequest) -> Imported:
    """Import the repository at ``request.directory`` into its fleet.py. Refuses when fleet.py
    exists, nothing is importable, or (`overlays.FoldersOpen`) what overlay folders are is open."""
    spec = request.directory / SPEC
    if spec.exists() or spec.is_symlink():
        raise UsageError(f"{spec} already exists: import writes a first fleet.py, never over one")
    done = unchecked(request)
    draft = done.draft
    differences = faithful.check(done.root, done.text, done.apps, draft.engine, draft.channels)
    text, found = _with_findings(done.fields, done.what, done.findings, differences, done.text)
    if not request.dry_run:
        with spec.open("x", encoding="utf-8") as handle:
            handle.write(text)
    clusters, apps = len(done.draft.clusters), len(done.apps)
    return Imported(spec, text, tuple(found), done.draft.engine, clusters, apps)


def unchecked(request: ImportRequest) -> Unchecked:
    """The fleet of the repository at ``request.directory`` and what import found, before the
    faithfulness check (`import_repo` runs it); refuses as `import_repo` does."""
    root = request.directory.resolve()
    repo = read_repo(root)
    draft = _recognised(request, repo)
    draft.in_order()
    findings = [*repo.findings, *material.scrub(draft)]
    fields, apps = _fleet(root, draft, findings)
    findings += draft.findings  # folding the apps adds to them
    what = _OVERLAYS if any(i.overlay for i in draft.instances) else _WHAT[draft.engine]
    text = fleet_text(fields, what, in_order(findings))
    return Unchecked(root, text, findings, fields, what, apps, draft)


def _recognised(request: ImportRequest, repo: Repo) -> Draft:
    """The draft of the repository's Flux or Argo CD objects, or with ``request.engine``, of
    its Kustomize overlays."""
    directory, engine = request.directory, request.engine
    draft = flux.recognise(repo) or argocd.recognise(repo)
    given = engine is not None or request.envs or request.clusters
    if draft is not None and given:
        raise UsageError(
            f"--engine, --env and --cluster are for a repository of Kustomize overlays without "
            f"engine objects; {directory} holds {_ENGINES[draft.engine]} objects, which import "
            "reads as they are: run it without them"
        )
    sets = overlays.find(repo) if draft is None else []
    command = f"fleetgen import{'' if str(directory) == '.' else f' {directory}'}"
    if draft is None and engine is not None:
        if engine not in _ENGINES:
            raise UsageError(f"--engine {engine!r}: give argocd or flux")
        if sets:
            given_engine: Engine = "flux" if engine == "flux" else "argocd"
            command += f" --engine {engine}"
            roles = overlays.roles(sets, request.envs, request.clusters, command)
            draft = overlaydraft.draft(repo, given_engine, sets, roles)
    elif draft is None and (request.envs or request.clusters):
        raise UsageError("--env and --cluster name overlay folders: give --engine argocd|flux")
    if draft is not None and draft.importable:
        return draft
    if draft is not None and draft.read:
        raise UsageError(_nothing_mapped(directory, draft, [*repo.findings, *draft.findings]))
    found = (
        f"; it holds Kustomize overlays ({overlays.described(sets)}): import them with "
        f"`{command} --engine argocd` (or --engine flux), the engine that is to deploy them"
        if sets and engine is None
        else ""
    )
    raise UsageError(
        f"nothing importable in {directory}: no Flux cluster folder (a flux-system "
        "Kustomization, or clusters/NAME/ with Kustomizations or HelmReleases), no "
        "Argo CD cluster Secret, Application or ApplicationSet"
        + (
            ""
            if engine is None
            else ", no Kustomize overlay folders (APP/overlays/NAME/, "
            "or APP/NAME/ beside APP/base/)"
        )
        + found
    )


def _nothing_mapped(directory: Path, draft: Draft, findings: list[Finding]) -> str:
    """What the repository holds of the engine's objects, and why import could map none: a
    line per finding."""
    held = [f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in draft.read.items()]
    what = ", ".join(held[:-1]) + f" and {held[-1]}" if len(held) > 1 else "".join(held)
    lines = [
        f"nothing importable in {directory}: it holds {what} of {_ENGINES[draft.engine]}, and "
        "import could map none of them:",
        *(f"  {finding.render()}" for finding in in_order(findings)),
    ]
    return "\n".join(lines)


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
    if draft.revision:
        fields["revision"] = draft.revision
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
    heard = notify.layered(draft, apps)
    if heard.fleet:
        fields["notify"] = heard.fleet
    fields["environments"] = [
        Call(
            "Environment",
            {"name": env, **({"notify": heard.envs[env]} if env in heard.envs else {})},
        )
        for env in draft.envs
    ]
    fields["clusters"] = [_cluster(cluster) for cluster in draft.clusters]
    fields["projects"] = _projects(draft, apps)
    for app in apps:
        if app.name in heard.apps:
            app.call.kwargs["notify"] = heard.apps[app.name]
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
    if cluster.registration != "fleetgen":
        fields["registration"] = cluster.registration
    if cluster.vars:
        fields["vars"] = dict(cluster.vars)
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
    runtime = {i.project for app in apps for i in app.instances if i.runtime is not None}
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
        if project in runtime:  # its apps reach clusters fleet.py does not list
            fields["destinations"] = [
                Call("Destination", {"server": "*", "namespace": ns})
                for ns in fields["namespaces"] or ["*"]
            ]
        meta = draft.namespace_meta.get(project)
        if meta:
            fields["namespace_metadata"] = {
                ns: Call("NamespaceMeta", meta[ns]) for ns in sorted(meta)
            }
        calls.append(Call("Project", fields))
    return calls
