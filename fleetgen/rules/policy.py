"""The rules ``validate`` reports by, as one table: id, default severity, fix hint, check.

Rules with a ``check`` run on every rendered object (``validate --render``); a check yields
``(field path, message)`` per violation. The others name findings that validate makes across
objects (schemas, ownership, contracts) or of the spec itself (``chart-range``,
``placeholder-repo``, ``spec-warning``: build's warnings); some of them can be configured
(`_CONFIGURABLE_OTHERS`). ``Policy(rules={id: severity})`` at ``Fleet`` and ``Environment``
level sets the severity of configurable rules (the environment's wins),
``App(waivers=[Waiver(rule, reason)])`` silences one rule for one app. The secret rules
(``secret``: one per format of `fleetgen.rules.secrets`, plain-secret among them) are always
errors: no Policy changes them, a Waiver silences one for one app's base files and rendered
objects (never for fleet.py). Pure functions over plain dicts: nothing here imports the rest of
fleetgen but the secret formats' table.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fleetgen.rules import secrets as scanrules

Severity = Literal["error", "warning", "off"]
Violation = tuple[str, str]  # (field path inside the object, message)
Check = Callable[[Mapping[str, Any]], Iterator[Violation]]

_POD_TEMPLATE = {  # (group, kind) -> path of the pod spec inside the object
    ("", "Pod"): ("spec",),
    ("", "ReplicationController"): ("spec", "template", "spec"),
    ("apps", "Deployment"): ("spec", "template", "spec"),
    ("apps", "StatefulSet"): ("spec", "template", "spec"),
    ("apps", "DaemonSet"): ("spec", "template", "spec"),
    ("apps", "ReplicaSet"): ("spec", "template", "spec"),
    ("batch", "Job"): ("spec", "template", "spec"),
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of finding. ``production``: the default in production environments, if other."""

    id: str
    severity: Severity
    summary: str
    hint: str
    check: Check | None = None
    production: Severity | None = None
    secret: bool = False

    @property
    def configurable(self) -> bool:
        """Policies and waivers may name only rules that run on rendered objects."""
        return self.check is not None or self.id in _CONFIGURABLE_OTHERS

    @property
    def waivable(self) -> bool:
        """Waivers may name the configurable rules and the secret rules."""
        return self.configurable or self.secret

    def default(self, production: bool) -> Severity:
        """The severity when no Policy names this rule."""
        return self.production if production and self.production else self.severity


def pod_spec(obj: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    """(path, pod spec) of a workload object, None for other kinds."""
    api = str(obj.get("apiVersion") or "")
    group = api.rpartition("/")[0]
    path = _POD_TEMPLATE.get((group, str(obj.get("kind") or "")))
    node: Any = obj
    for key in path or ():
        node = node.get(key) if isinstance(node, Mapping) else None
    return ("/".join(path), node) if path and isinstance(node, Mapping) else None


def _containers(
    obj: Mapping[str, Any], init: bool = True
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, container) of every container (and init container) of a workload."""
    found = pod_spec(obj)
    if found is None:
        return
    path, spec = found
    for field in ("containers", "initContainers") if init else ("containers",):
        for index, container in enumerate(spec.get(field) or []):
            if isinstance(container, Mapping):
                yield f"{path}/{field}/{index}", container


def _image_parts(image: str) -> tuple[str | None, bool]:
    """(tag, pinned by digest) of an image reference."""
    name, _, digest = image.partition("@")
    last = name.rpartition("/")[2]
    return (last.partition(":")[2] or None) if ":" in last else None, bool(digest)


def _image_tag(obj: Mapping[str, Any]) -> Iterator[Violation]:
    for path, container in _containers(obj):
        image = str(container.get("image") or "")
        tag, digest = _image_parts(image)
        if not digest and tag in (None, "latest"):
            what = "has no tag" if tag is None else "uses the tag latest"
            yield f"{path}/image", f"image {image} {what}"


def _image_digest(obj: Mapping[str, Any]) -> Iterator[Violation]:
    for path, container in _containers(obj):
        image = str(container.get("image") or "")
        if not _image_parts(image)[1]:
            yield f"{path}/image", f"image {image} is not pinned by digest"


def _limits(obj: Mapping[str, Any]) -> Iterator[Violation]:
    for path, container in _containers(obj):
        limits = (container.get("resources") or {}).get("limits") or {}
        missing = [name for name in ("cpu", "memory") if name not in limits]
        if missing:
            yield (
                f"{path}/resources/limits",
                (f"container {container.get('name')} has no {' or '.join(missing)} limit"),
            )


def _host_path(obj: Mapping[str, Any]) -> Iterator[Violation]:
    found = pod_spec(obj)
    if found is None:
        return
    path, spec = found
    for index, volume in enumerate(spec.get("volumes") or []):
        if isinstance(volume, Mapping) and isinstance(volume.get("hostPath"), Mapping):
            yield (
                f"{path}/volumes/{index}/hostPath",
                f"volume {volume.get('name')} mounts the node's {volume['hostPath'].get('path')}",
            )


def _privileged(obj: Mapping[str, Any]) -> Iterator[Violation]:
    for path, container in _containers(obj):
        context = container.get("securityContext") or {}
        for field in ("privileged", "allowPrivilegeEscalation"):
            if context.get(field) is True:
                yield (
                    f"{path}/securityContext/{field}",
                    f"container {container.get('name')} sets {field}: true",
                )


def _run_as_non_root(obj: Mapping[str, Any]) -> Iterator[Violation]:
    found = pod_spec(obj)
    if found is None:
        return
    pod = (found[1].get("securityContext") or {}).get("runAsNonRoot")
    for path, container in _containers(obj):
        own = (container.get("securityContext") or {}).get("runAsNonRoot")
        if not (own if own is not None else pod):
            yield (
                f"{path}/securityContext/runAsNonRoot",
                f"container {container.get('name')} may run as root (runAsNonRoot is not true "
                "on it or its pod)",
            )


def _host_namespaces(obj: Mapping[str, Any]) -> Iterator[Violation]:
    found = pod_spec(obj)
    if found is None:
        return
    path, spec = found
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field) is True:
            yield f"{path}/{field}", f"the pod shares the node's namespaces ({field}: true)"


def _default_namespace(obj: Mapping[str, Any]) -> Iterator[Violation]:
    if pod_spec(obj) is not None and (obj.get("metadata") or {}).get("namespace") == "default":
        yield "metadata/namespace", "a workload in the default namespace"


def _service_type(obj: Mapping[str, Any]) -> Iterator[Violation]:
    if obj.get("apiVersion") == "v1" and obj.get("kind") == "Service":
        kind = (obj.get("spec") or {}).get("type")
        if kind in ("LoadBalancer", "NodePort"):
            yield "spec/type", f"a Service of type {kind} is reachable from outside the cluster"


def _probes(obj: Mapping[str, Any]) -> Iterator[Violation]:
    if obj.get("kind") in ("Job", "CronJob", "Pod"):
        return  # run-to-completion or bare pods: probes restart or gate nothing useful
    for path, container in _containers(obj, init=False):
        missing = [probe for probe in ("livenessProbe", "readinessProbe") if probe not in container]
        if missing:
            yield path, f"container {container.get('name')} has no {' or '.join(missing)}"


_CONFIGURABLE_OTHERS = frozenset(
    {
        "base-namespace",
        "foreign-namespace",
        "cluster-scoped-namespace",
        "unplaced-object",
        "chart-range",
    }
)

RULES: tuple[Rule, ...] = (
    Rule(
        "image-tag",
        "warning",
        "an image without a tag or with :latest",
        "pin a version tag: Image(name=..., tag=...) in fleet.py or in the base",
        _image_tag,
        production="error",
    ),
    Rule(
        "image-digest",
        "off",
        "an image not pinned by digest",
        "pin by digest: Image(name=..., digest='sha256:...')",
        _image_digest,
    ),
    Rule(
        "resource-limits",
        "error",
        "a container without CPU or memory limits",
        "set resources.limits.cpu and .memory on every container",
        _limits,
    ),
    Rule(
        "host-path",
        "error",
        "a hostPath volume",
        "use a PersistentVolumeClaim, configMap, secret or emptyDir volume",
        _host_path,
    ),
    Rule(
        "privileged",
        "error",
        "a privileged container or allowPrivilegeEscalation: true",
        "drop privileged and set securityContext.allowPrivilegeEscalation: false",
        _privileged,
    ),
    Rule(
        "run-as-non-root",
        "error",
        "runAsNonRoot not set",
        "set securityContext.runAsNonRoot: true on the pod (or every container)",
        _run_as_non_root,
    ),
    Rule(
        "host-namespaces",
        "error",
        "hostNetwork, hostPID or hostIPC",
        "remove hostNetwork/hostPID/hostIPC from the pod spec",
        _host_namespaces,
    ),
    Rule(
        "default-namespace",
        "error",
        "a workload in the default namespace",
        "give the app a namespace: App(namespace=...)",
        _default_namespace,
    ),
    Rule(
        "service-type",
        "warning",
        "a Service of type LoadBalancer or NodePort",
        "use a ClusterIP Service behind an Ingress or Gateway",
        _service_type,
    ),
    Rule(
        "probes",
        "warning",
        "a container without liveness or readiness probe",
        "add livenessProbe and readinessProbe to every long-running container",
        _probes,
    ),
    Rule(
        "base-namespace",
        "error",
        "an app base ships a Namespace",
        "remove the Namespace from the base: fleetgen creates namespaces",
    ),
    Rule(
        "cluster-scoped-namespace",
        "error",
        "a cluster-scoped object with a namespace",
        "drop metadata.namespace from it; under App(namespace=...) kustomize stamps the "
        "namespace on custom kinds it does not know: set App(namespace=None) for such a base",
    ),
    Rule(
        "unplaced-object",
        "error",
        "a namespaced object without a namespace in an app with App(namespace=None)",
        "set metadata.namespace on it in the base (with no app namespace, Argo CD and Flux "
        "would not agree where it goes)",
    ),
    Rule(
        "foreign-namespace",
        "error",
        "an object outside its app's namespace",
        "move the object to the app's namespace, or into the app that owns that namespace",
    ),
    Rule(
        "cluster-kind",
        "error",
        "a cluster-scoped object its Argo CD project does not permit",
        "list its (group, kind) in Project(cluster_resources=[...]); a chart's or another "
        "source's kinds cannot be seen at build",
    ),
    Rule(
        "ownership",
        "error",
        "two apps render the same object on one cluster",
        "keep the object in one app's base only",
    ),
    Rule(
        "schema",
        "error",
        "an object that its schema refuses (unknown field, wrong type)",
        "fix the field named; CRD schemas come from fleetgen, the repo or --crds",
    ),
    Rule(
        "kustomize-build",
        "error",
        "an overlay kustomize cannot build",
        "fix the base kustomization named in the message",
    ),
    Rule(
        "helm-render",
        "error",
        "a chart Helm cannot render with the placement's values",
        "fix the values (or the chart kept in the repository) named in the message",
    ),
    Rule(
        "helm-warning",
        "warning",
        "a warning Helm logged rendering a chart",
        "check the value named: its kind (map or scalar) differs from the chart's default",
    ),
    Rule(
        "appset-labels",
        "error",
        "an ApplicationSet reads a label or annotation a cluster it selects lacks",
        "set the label on the Cluster in fleet.py, or stop the ApplicationSet reading it",
    ),
    Rule(
        "appset-selects-nothing",
        "error",
        "an ApplicationSet selector value that selects no cluster registration",
        "check the cluster labels in fleet.py against the app's targets",
    ),
    Rule(
        "project-destination",
        "error",
        "an Application whose destination its AppProject does not allow",
        "add the cluster and namespace to Project(destinations=...) or leave them derived",
    ),
    Rule(
        "project-source",
        "error",
        "an Application whose source repo its AppProject refuses",
        "add the repo to Project(source_repos=...)",
    ),
    Rule(
        "chart-range",
        "warning",
        "a chart version that is a range: each engine resolves it on its own, what runs is not "
        "pinned",
        "pin an exact version (HelmChart(version=...), Overrides(chart_version=...)), or waive "
        "it for the app with a reason: Waiver(rule='chart-range', reason=...)",
        production="error",
    ),
    Rule(
        "placeholder-repo",
        "warning",
        "the fleet's repo is a placeholder (a .invalid host) the engines cannot fetch",
        "set Fleet(repo=...) to the https:// or ssh:// URL the engines read this repository from",
    ),
    Rule(
        "spec-warning",
        "warning",
        "what the spec asks for that an engine cannot fully honour, as `fleetgen build` warns",
        "follow the advice in the message (each build prints it too)",
    ),
    Rule(
        "cel-not-evaluated",
        "warning",
        "a CRD's CEL rule (x-kubernetes-validations) fleetgen cannot evaluate: a function "
        "cel-python lacks, or optionalOldSelf",
        "check the objects of that kind against the rule by hand, or on a cluster "
        "(kubectl apply --dry-run=server)",
    ),
    Rule(
        "unused-waiver",
        "warning",
        "a waiver that silenced nothing",
        "remove the Waiver from the App",
    ),
)
SECRET_HINT = (
    "reference it from a secret store (an ExternalSecret in the base, AppSecret in fleet.py), "
    "or waive it for the app with a reason: Waiver(rule=..., reason=...)"
)
RULES += tuple(
    Rule(rule.id, "error", rule.description, SECRET_HINT, secret=True) for rule in scanrules.RULES
)
BY_ID: Mapping[str, Rule] = {rule.id: rule for rule in RULES}
CHECKS: tuple[Rule, ...] = tuple(rule for rule in RULES if rule.check is not None)


def configurable_problem(rule_id: str) -> str | None:
    """Why a Policy cannot name ``rule_id``, or None."""
    return _problem(rule_id, "configurable")


def waivable_problem(rule_id: str) -> str | None:
    """Why a Waiver cannot name ``rule_id``, or None."""
    return _problem(rule_id, "waivable")


def _problem(rule_id: str, what: Literal["configurable", "waivable"]) -> str | None:
    rule = BY_ID.get(rule_id)
    allowed = [r.id for r in RULES if getattr(r, what)]
    names = ", ".join(sorted(r.id for r in RULES if r.configurable))
    if what == "waivable":
        names += "; and the secret rules (plain-secret, github-token...: SECURITY.md lists them)"
    if rule is None:
        close = difflib.get_close_matches(rule_id, allowed, 1)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown rule {rule_id!r}{guess}; rules: {names}"
    if getattr(rule, what):
        return None
    if rule.secret:
        return (
            f"rule {rule_id!r} finds secret material: it is always an error and cannot be "
            "configured (a Waiver may silence it for one app, with a reason)"
        )
    return f"rule {rule_id!r} is always an error and cannot be configured; rules: {names}"
