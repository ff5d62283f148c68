"""Contracts between emitted objects that no single schema sees.

- An ApplicationSet's cluster generator selects cluster registrations (Argo CD cluster Secrets,
  or ExternalSecrets that template one) by label, as Argo CD's cluster generator does (the
  selector plus ``argocd.argoproj.io/secret-type: cluster``); every value of an ``In``
  expression must select a registration, and every label or annotation the template reads
  (``.metadata.labels.x``, ``index .metadata.labels "x"``, a ClusterVar's annotation) must exist
  on every registration it selects (with ``missingkey=error``, or the ClusterVar's ``fail``, a
  missing one fails the whole generation).
- Each Argo CD instance sees its own registrations and AppProjects only (`Fleet.argocd_instances`).
- Every Application (generated per selected registration, or plain) names an AppProject that
  allows its source repos and its destination, matched as Argo CD's ``AppProject.IsSourcePermitted``
  and ``isDestinationMatched`` do (globs, ``!`` deny patterns, normalized Git URLs).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fleetgen.emit.common import registration_labels, var_annotations
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model.fields import VAR_PREFIX
from fleetgen.resolver.plan import Plan
from fleetgen.rules.argocd import SECRET_TYPE, server_url
from fleetgen.rules.argoproject import GLOB_CHARS, destination_permitted, source_permitted
from fleetgen.write.output import APP_LABEL

_IN_CLUSTER = ("in-cluster", "https://kubernetes.default.svc")
_TEMPLATE = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")
_READ = re.compile(
    r"^(?:\.metadata\.(labels|annotations)\.([A-Za-z0-9_]+)"
    r"|index \.metadata\.(labels|annotations) \"([^\"]+)\""
    # a ClusterVar read at run time: the annotation the template looks for (`go_var`)
    r"|if eq \$key \"(" + re.escape(VAR_PREFIX) + r"[^\"]+)\")$"
)
_VALUE = re.compile(r"^\.(name|server|values\.([A-Za-z0-9_]+))$")


@dataclass(frozen=True, slots=True)
class Registration:
    """What Argo CD's cluster generator sees of one cluster registration."""

    name: str
    server: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Breach:
    """One broken contract: ``rule`` id, the ApplicationSet or Application, the message."""

    rule: str
    source: str  # "ApplicationSet name" or "Application name"
    project: str | None
    message: str
    app: str | None = None  # the fleetgen.io/app label of the source
    file: str = ""  # the emitted file that holds the source


def registrations(docs: Sequence[Mapping[str, Any]]) -> list[Registration]:
    """Cluster registrations among emitted objects: Secrets and ExternalSecret templates."""
    found = []
    for doc in docs:
        if doc.get("kind") == "Secret":
            metadata, data = doc.get("metadata") or {}, doc.get("stringData") or {}
        elif doc.get("kind") == "ExternalSecret":
            template = ((doc.get("spec") or {}).get("target") or {}).get("template") or {}
            metadata, data = template.get("metadata") or {}, template.get("data") or {}
        else:
            continue
        labels = metadata.get("labels") or {}
        if labels.get(SECRET_TYPE) == "cluster":
            found.append(
                Registration(
                    str(data.get("name", "")),
                    str(data.get("server", "")),
                    labels,
                    metadata.get("annotations") or {},
                )
            )
    return found


def external_registrations(plan: Plan, envs: Collection[str]) -> list[Registration]:
    """The registrations of the ``Cluster(registration="external")`` clusters of ``envs`` with
    Argo CD placements, as fleet.py declares them: another tool writes their Secrets, with the
    labels and annotations the fleet map lists for them (`registration_labels`,
    `var_annotations`)."""
    argo = {p.cluster for p in plan.placements if p.engine == "argocd" and p.env in envs}
    return [
        Registration(
            cluster.name,
            server_url(cluster.server),
            registration_labels(plan, cluster),
            {**cluster.annotations, **var_annotations(cluster)},
        )
        for cluster in plan.fleet.clusters
        if cluster.registration == "external" and cluster.name in argo
    ]


def check(
    files: Sequence[tuple[str, Mapping[str, Any]]], external: Sequence[Registration] = ()
) -> list[Breach]:
    """Every broken contract among the emitted objects, given as (file, object), with the
    ``external`` registrations another tool writes (`external_registrations`): those one Argo CD
    instance sees."""
    docs = [doc for _, doc in files]
    clusters = [*registrations(docs), *external]
    projects = {
        str((d.get("metadata") or {}).get("name")): _Destinations(d.get("spec") or {})
        for d in docs
        if d.get("kind") == "AppProject"
    }
    breaches: list[Breach] = []
    for file, doc in files:
        metadata = doc.get("metadata") or {}
        name, app = str(metadata.get("name")), (metadata.get("labels") or {}).get(APP_LABEL)
        if doc.get("kind") == "ApplicationSet":
            found = _appset(name, doc.get("spec") or {}, clusters, projects)
        elif doc.get("kind") == "Application":
            found = _application(
                f"Application {name}", doc.get("spec") or {}, _IN_CLUSTER, projects
            )
        else:
            continue
        breaches.extend(dataclasses.replace(breach, app=app, file=file) for breach in found)
    return breaches


def _appset(
    name: str,
    spec: Mapping[str, Any],
    clusters: Sequence[Registration],
    projects: Mapping[str, _Destinations],
) -> Iterator[Breach]:
    source, template = f"ApplicationSet {name}", spec.get("template") or {}
    project = str((template.get("spec") or {}).get("project"))
    reads = sorted(_reads(template))
    for generator in spec.get("generators") or []:
        cluster_generator = generator.get("clusters") if isinstance(generator, dict) else None
        if not isinstance(cluster_generator, dict):
            continue
        selector = cluster_generator.get("selector") or {}
        selected = [c for c in clusters if selector_matches(selector, c.labels)]
        for key, value in _unselected(selector, selected):
            yield Breach(
                "appset-selects-nothing",
                source,
                project,
                f"its cluster selector lists {key}={value}, but no cluster registration "
                f"it selects has that label{_why(selector, clusters, key, value)}",
            )
        for cluster in selected:
            for kind, key in reads:
                if key not in (cluster.labels if kind == "labels" else cluster.annotations):
                    yield Breach(
                        "appset-labels",
                        source,
                        project,
                        f"its template reads {kind[:-1]} {key}, which the registration "
                        f"of cluster {cluster.name} lacks (the generation fails)",
                    )
            values = cluster_generator.get("values") or {}
            filled = _fill(template.get("spec") or {}, cluster, values)
            yield from _application(source, filled, (cluster.name, cluster.server), projects)


def _reads(template: Mapping[str, Any]) -> set[tuple[str, str]]:
    """(labels|annotations, key) of every registration field the template reads."""
    found = set()
    for expression in _TEMPLATE.findall(json.dumps(template)):
        match = _READ.match(expression.replace('\\"', '"'))
        if match:
            found.add((match[1] or match[3] or "annotations", match[2] or match[4] or match[5]))
    return found


def _unselected(
    selector: Mapping[str, Any], selected: Sequence[Registration]
) -> Iterator[tuple[str, str]]:
    """(key, value) of ``In`` values that no selected registration carries."""
    for expression in selector.get("matchExpressions") or []:
        if expression.get("operator") == "In":
            key = expression.get("key")
            for value in expression.get("values") or []:
                if not any(c.labels.get(key) == value for c in selected):
                    yield key, value


def _why(
    selector: Mapping[str, Any], clusters: Sequence[Registration], key: str, value: str
) -> str:
    """Which other condition excludes the registration(s) carrying key=value."""
    carriers = [c for c in clusters if c.labels.get(key) == value]
    if not carriers:
        return " (no registration has it)"
    missing = sorted(
        {
            f"{k}={v}"
            for c in carriers
            for k, v in (selector.get("matchLabels") or {}).items()
            if c.labels.get(k) != v
        }
    )
    return (
        f" (the registration of {carriers[0].name} lacks {', '.join(missing)})" if missing else ""
    )


def _fill(node: Any, cluster: Registration, values: Mapping[str, Any]) -> Any:
    """``node`` with the cluster generator's parameters substituted where they are plain."""
    if isinstance(node, dict):
        return {key: _fill(value, cluster, values) for key, value in node.items()}
    if isinstance(node, list):
        return [_fill(value, cluster, values) for value in node]
    if not isinstance(node, str):
        return node
    return _TEMPLATE.sub(lambda m: _param(m[1], cluster, values, m[0]), node)


def _param(expression: str, cluster: Registration, values: Mapping[str, Any], original: str) -> str:
    match = _VALUE.match(expression)
    if match is None:
        return original
    if match[2]:
        return str(_fill(str(values.get(match[2], original)), cluster, {}))
    return cluster.name if match[1] == "name" else cluster.server


def _application(
    source: str,
    spec: Mapping[str, Any],
    target: tuple[str, str],
    projects: Mapping[str, _Destinations],
) -> Iterator[Breach]:
    """An Application's project, sources and destination against its AppProject."""
    project_name = str(spec.get("project"))
    project = projects.get(project_name)
    destination = spec.get("destination") or {}
    if project is None:
        yield Breach(
            "project-destination",
            source,
            project_name,
            f"its AppProject {project_name} is not among the emitted AppProjects",
        )
        return
    for entry in [spec.get("source") or {}, *(spec.get("sources") or [])]:
        repo = entry.get("repoURL")
        if repo and "{{" not in repo and not source_permitted(project.project, repo):
            yield Breach(
                "project-source",
                source,
                project_name,
                f"AppProject {project_name} does not allow source repo {repo}",
            )
    name = str(destination.get("name") or target[0])
    server = str(destination.get("server") or target[1])
    namespace = str(destination.get("namespace") or "")
    if "{{" not in name + server + namespace and not project.permit(name, server, namespace):
        yield Breach(
            "project-destination",
            source,
            project_name,
            f"AppProject {project_name} does not allow destination {name} ({server}) "
            f"namespace {namespace or '(none)'}",
        )


class _Destinations:
    """An AppProject's destinations, with literal ones indexed (fleetgen lists one per
    placement); any deny pattern turns the index off, as upstream then reads every entry."""

    def __init__(self, project: Mapping[str, Any]) -> None:
        self.project = project
        entries = [
            tuple(str(item.get(field) or "") for field in ("name", "server", "namespace"))
            for item in project.get("destinations") or []
        ]
        deny = any(value.startswith("!") for entry in entries for value in entry)
        self.literal: set[tuple[str, str, str]] = (
            set()
            if deny
            else {
                (field, value, entry[2])
                for entry in entries
                if not any(GLOB_CHARS.intersection(v) for v in entry)
                for field, value in (("name", entry[0]), ("server", entry[1]))
                if value
            }
        )

    def permit(self, name: str, server: str, namespace: str) -> bool:
        if ("name", name, namespace) in self.literal or (
            "server",
            server,
            namespace,
        ) in self.literal:
            return True
        return destination_permitted(self.project, name, server, namespace)
