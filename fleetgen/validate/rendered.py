"""Checks of rendered objects: schemas, the policy rules, namespaces and ownership.

Each distinct overlay is checked once; its findings hold for every cluster whose placement uses
it. Severities come from the environment's and the fleet's ``Policy`` (the environment's wins)
over each rule's default (``Rule.default``: ``image-tag`` is an error in production).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from fleetgen.inputs import scan
from fleetgen.manifests.k8s import Key, identity
from fleetgen.manifests.yamlio import load_first
from fleetgen.model import Environment, Fleet
from fleetgen.resolver.plan import Plan
from fleetgen.resolver.severity import severity
from fleetgen.rules import secrets as scanrules
from fleetgen.rules.policy import BY_ID, CHECKS, Severity
from fleetgen.validate.kubernetes import built_in
from fleetgen.validate.render import Builds, Rendered
from fleetgen.validate.report import Finding, Location
from fleetgen.validate.scopes import CORE, Scopes, from_docs


class Lines(Protocol):
    """(repo-relative file, object[, path of a field in it]) -> where that is."""

    def __call__(
        self, path: str, doc: Mapping[str, Any], field: scanrules.Path = ..., /
    ) -> Location: ...


SchemaErrors = Callable[[Mapping[str, Any]], "list[str] | None"]


def finding(rule: str, level: Severity, message: str, **where: Any) -> Finding:
    """A Finding of ``rule`` at ``level`` (not "off"), with its hint."""
    assert level != "off"
    return Finding(rule=rule, severity=level, message=message, hint=BY_ID[rule].hint, **where)


def shown(key: Key) -> str:
    """``Kind namespace/name``."""
    return f"{key.kind} {key.namespace + '/' if key.namespace else ''}{key.name}"


@dataclass(frozen=True, slots=True)
class _Overlay:
    app: str
    env: str
    namespace: str | None  # None: App(namespace=None), no rewrite
    clusters: tuple[str, ...]


def _overlays(plan: Plan) -> dict[str, _Overlay]:
    """Each overlay a placement uses (for a chart app, the name of its render): its app,
    environment, namespace and clusters."""
    clusters: dict[str, list[str]] = {}
    for placement in plan.placements:
        clusters.setdefault(placement.overlay, []).append(placement.cluster)
    return {
        p.overlay: _Overlay(p.app, p.env, p.namespace, tuple(sorted(clusters[p.overlay])))
        for p in plan.placements
    }


@dataclass(frozen=True, slots=True)
class Checked:
    """Rendered findings (one per overlay and problem) and what was checked."""

    findings: list[Finding]
    checked: int
    unchecked: Counter[str]


def check(
    plan: Plan, builds: Builds, schema_errors: SchemaErrors, where: Lines, scopes: Scopes = CORE
) -> Checked:
    """Findings of every rendered object, per overlay, then ownership per cluster. ``scopes``
    says which kinds are cluster-scoped, besides the CRDs the overlays render."""
    overlays = _overlays(plan)
    scopes = {
        **scopes,
        **from_docs(rendered.doc for objects in builds.objects.values() for rendered in objects),
    }
    environments = {env.name: env for env in plan.fleet.environments}
    findings: list[Finding] = []
    checked, unchecked = 0, Counter[str]()
    for path, error in sorted(builds.failures.items()):
        overlay = overlays[path]
        findings.append(
            finding(
                "kustomize-build",
                "error",
                error.strip(),
                app=overlay.app,
                clusters=list(overlay.clusters),
            )
        )
    for path, objects in sorted(builds.objects.items()):
        overlay = overlays[path]
        env = environments[overlay.env]
        for rendered in objects:
            errors = schema_errors(rendered.doc)
            if errors is None:
                unchecked[f"{rendered.doc.get('apiVersion')} {rendered.doc.get('kind')}"] += 1
            else:
                checked += 1
            findings.extend(
                _object(plan.fleet, env, overlay, rendered, errors or [], where, scopes)
            )
    findings.extend(_ownership(plan, builds.objects, where, overlays, scopes))
    findings.extend(_not_permitted(plan, builds.objects, where, overlays, scopes))
    return Checked(findings, checked, unchecked)


def _object(
    fleet: Fleet,
    env: Environment,
    overlay: _Overlay,
    rendered: Rendered,
    errors: Sequence[str],
    where: Lines,
    scopes: Scopes,
) -> Iterator[Finding]:
    doc = rendered.doc
    key = identity("", doc)
    context = {
        "app": overlay.app,
        "clusters": list(overlay.clusters),
        "object": shown(key),
        "location": where(rendered.origin, doc) if rendered.origin else None,
    }
    for error in errors:
        path, _, message = error.partition(": ")
        yield finding("schema", "error", message, field=path, **context)
    for found in scanrules.in_object(doc, parse=load_first):
        located = context
        if rendered.origin:
            located = {**context, "location": where(rendered.origin, doc, found.path)}
        yield finding(
            found.finding.rule.id,
            "error",
            scan.message(found.finding),
            field=scanrules.field_path(found.path),
            **located,
        )
    for rule in CHECKS:
        level = severity(fleet, env, rule.id)
        if level != "off" and rule.check is not None:
            for path, message in rule.check(doc):
                yield finding(rule.id, level, message, field=path, **context)
    level = severity(fleet, env, "cluster-scoped-namespace")
    if key.namespace and scopes.get((key.group, key.kind)) and level != "off":
        yield finding(
            "cluster-scoped-namespace",
            level,
            f"{key.kind} is cluster-scoped but has namespace {key.namespace}",
            field="metadata/namespace",
            **context,
        )
    if overlay.namespace is None:  # the manifests say where things go: no app namespace
        level = severity(fleet, env, "unplaced-object")
        if not key.namespace and _namespaced(doc, scopes) and level != "off":
            yield finding(
                "unplaced-object",
                level,
                f"{key.kind} is namespaced but has no namespace, and the app has none",
                field="metadata/namespace",
                **context,
            )
        return
    level = severity(fleet, env, "base-namespace")
    if key.group == "" and key.kind == "Namespace" and level != "off":
        yield finding("base-namespace", level, "the base ships a Namespace", **context)
    level = severity(fleet, env, "foreign-namespace")
    if key.namespace and key.namespace != overlay.namespace and level != "off":
        yield finding(
            "foreign-namespace",
            level,
            f"outside the app's namespace {overlay.namespace}",
            **context,
        )


def _namespaced(doc: Mapping[str, Any], scopes: Scopes) -> bool:
    """Whether ``doc`` is of a kind known to be namespaced: a built-in kind not on the
    cluster-scoped list, or a custom kind whose CRD says so."""
    api_version = str(doc.get("apiVersion") or "")
    scope = scopes.get((api_version.rpartition("/")[0], str(doc.get("kind") or "")))
    return scope is False or (scope is None and built_in(api_version))


def _not_permitted(
    plan: Plan,
    objects: Mapping[str, list[Rendered]],
    where: Lines,
    overlays: Mapping[str, _Overlay],
    scopes: Scopes,
) -> Iterator[Finding]:
    """A rendered cluster-scoped object whose kind the AppProject of its app's Argo CD placements
    does not permit (Namespace aside: permitted by name): Argo CD refuses to sync it
    (controller/sync.go ``validateSyncPermissions``). What build cannot see, a chart's templates
    or a base that changed since, shows here."""
    argo = plan.on("argocd")
    projects = {project.name: project for project in plan.fleet.projects}
    app_project = {app.name: app.project for app in plan.fleet.apps}
    by_project: dict[str, set[str]] = defaultdict(set)
    for placement in argo.placements:
        by_project[app_project[placement.app]].add(placement.app)
    permitted = {
        app: (name, set(argo.permitted_cluster_kinds(projects[name], apps)))
        for name, apps in by_project.items()
        if name in projects
        for app in apps
    }
    for path, rendered_objects in sorted(objects.items()):
        overlay = overlays[path]
        if overlay.app not in permitted:
            continue  # no Argo CD placement
        project, allowed = permitted[overlay.app]
        for rendered in rendered_objects:
            key = identity("", rendered.doc)
            kind = (key.group, key.kind)
            if kind != ("", "Namespace") and scopes.get(kind) and kind not in allowed:
                yield finding(
                    "cluster-kind",
                    "error",
                    f"{key.kind} is cluster-scoped and project {project} does not permit it: "
                    "Argo CD refuses to sync it",
                    app=overlay.app,
                    clusters=list(overlay.clusters),
                    object=shown(key),
                    location=where(rendered.origin, rendered.doc) if rendered.origin else None,
                )


def _ownership(
    plan: Plan,
    objects: Mapping[str, list[Rendered]],
    where: Lines,
    overlays: Mapping[str, _Overlay],
    scopes: Scopes,
) -> Iterator[Finding]:
    """An object rendered by two apps on one cluster (the later app, by name, is reported). A
    namespaced object without a namespace lands in its app's: Helm installs a chart's objects
    into the release namespace, and kustomize's namespace rewrite has set every other one."""
    by_cluster: dict[str, list[tuple[str, str]]] = {}
    for placement in plan.placements:
        by_cluster.setdefault(placement.cluster, []).append((placement.app, placement.overlay))
    for cluster, members in sorted(by_cluster.items()):
        owners: dict[Key, str] = {}
        for app, overlay in sorted(members):
            for rendered in objects.get(overlay, []):
                key = identity(cluster, rendered.doc)
                namespace = overlays[overlay].namespace
                if not key.namespace and namespace and _namespaced(rendered.doc, scopes):
                    key = replace(key, namespace=namespace)
                other = owners.setdefault(key, app)
                if other != app:
                    yield finding(
                        "ownership",
                        "error",
                        f"rendered by both {other} and {app}",
                        app=app,
                        clusters=[cluster],
                        object=shown(key),
                        location=where(rendered.origin, rendered.doc) if rendered.origin else None,
                    )
