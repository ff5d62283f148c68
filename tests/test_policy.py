"""Every policy rule of ``fleetgen.rules.policy.RULES`` on a violating and a compliant object."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fleetgen import Environment, Fleet, Policy
from fleetgen.resolver.severity import severity
from fleetgen.rules import secrets as scanrules
from fleetgen.rules.policy import (
    BY_ID,
    CHECKS,
    RULES,
    configurable_problem,
    pod_spec,
    waivable_problem,
)

Doc = dict[str, Any]


def workload(kind: str = "Deployment", api: str = "apps/v1") -> Doc:
    """A compliant workload: every rule passes on it."""
    container = {
        "name": "app",
        "image": "registry.example.com/app:1.0@sha256:" + "a" * 64,
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
        "securityContext": {"allowPrivilegeEscalation": False},
        "livenessProbe": {"tcpSocket": {"port": 80}},
        "readinessProbe": {"tcpSocket": {"port": 80}},
    }
    pod = {"securityContext": {"runAsNonRoot": True}, "containers": [container]}
    spec: Doc = {"template": {"spec": pod}}
    if kind == "CronJob":
        spec = {"jobTemplate": {"spec": {"template": {"spec": pod}}}}
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": "app", "namespace": "team"},
        "spec": spec,
    }


def edit(change: Callable[[Doc], None], doc: Doc | None = None) -> Doc:
    out = copy.deepcopy(doc or workload())
    change(out)
    return out


def _container(doc: Doc) -> Doc:
    found = pod_spec(doc)
    assert found is not None
    container: Doc = found[1]["containers"][0]
    return container


SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "s"},
    "spec": {"type": "ClusterIP"},
}
# rule id -> (violating object, field path reported, compliant object)
EXAMPLES: dict[str, tuple[Doc, str, Doc]] = {
    "image-tag": (
        edit(lambda d: _container(d).update(image="app:latest")),
        "spec/template/spec/containers/0/image",
        edit(lambda d: _container(d).update(image="app:1.2")),
    ),
    "image-digest": (
        edit(lambda d: _container(d).update(image="app:1.2")),
        "spec/template/spec/containers/0/image",
        workload(),
    ),
    "resource-limits": (
        edit(lambda d: _container(d)["resources"]["limits"].pop("cpu")),
        "spec/template/spec/containers/0/resources/limits",
        workload(),
    ),
    "host-path": (
        edit(
            lambda d: d["spec"]["template"]["spec"].update(
                volumes=[{"name": "v", "hostPath": {"path": "/"}}]
            )
        ),
        "spec/template/spec/volumes/0/hostPath",
        edit(
            lambda d: d["spec"]["template"]["spec"].update(volumes=[{"name": "v", "emptyDir": {}}])
        ),
    ),
    "privileged": (
        edit(lambda d: _container(d)["securityContext"].update(allowPrivilegeEscalation=True)),
        "spec/template/spec/containers/0/securityContext/allowPrivilegeEscalation",
        edit(lambda d: _container(d)["securityContext"].update(privileged=False)),
    ),
    "run-as-non-root": (
        edit(lambda d: d["spec"]["template"]["spec"].pop("securityContext")),
        "spec/template/spec/containers/0/securityContext/runAsNonRoot",
        edit(
            lambda d: (
                d["spec"]["template"]["spec"].pop("securityContext"),
                _container(d)["securityContext"].update(runAsNonRoot=True),
            )
        ),
    ),
    "host-namespaces": (
        edit(lambda d: d["spec"]["template"]["spec"].update(hostPID=True)),
        "spec/template/spec/hostPID",
        edit(lambda d: d["spec"]["template"]["spec"].update(hostPID=False)),
    ),
    "default-namespace": (
        edit(lambda d: d["metadata"].update(namespace="default")),
        "metadata/namespace",
        workload(),
    ),
    "service-type": (
        edit(lambda d: d["spec"].update(type="NodePort"), SERVICE),
        "spec/type",
        SERVICE,
    ),
    "probes": (
        edit(lambda d: _container(d).pop("livenessProbe")),
        "spec/template/spec/containers/0",
        workload(kind="CronJob", api="batch/v1"),
    ),
}


def test_every_rule_that_checks_objects_has_examples() -> None:
    assert set(EXAMPLES) == {rule.id for rule in CHECKS}


@pytest.mark.parametrize("rule_id", sorted(EXAMPLES))
def test_rule_flags_the_violation_and_passes_the_compliant_object(rule_id: str) -> None:
    bad, field, good = EXAMPLES[rule_id]
    check = BY_ID[rule_id].check
    assert check is not None
    assert [path for path, _ in check(bad)] == [field]
    assert list(check(good)) == []
    others = [
        rule.id
        for rule in CHECKS
        if rule.check is not None
        and rule.id != rule_id
        and list(rule.check(bad)) != list(rule.check(workload()))
    ]
    assert others in ([], ["image-digest"])  # each example breaks its own rule only


def test_cronjob_pods_are_found_and_bare_pods_too() -> None:
    assert pod_spec(workload(kind="CronJob", api="batch/v1")) is not None
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    assert [path for path, _ in BY_ID["image-tag"].check(pod)] == [  # type: ignore[misc]
        "spec/containers/0/image"
    ]
    assert pod_spec({"apiVersion": "example.com/v1", "kind": "Deployment"}) is None


def test_every_rule_has_a_hint_and_a_known_default() -> None:
    for rule in RULES:
        assert rule.hint and rule.summary
        assert rule.severity in ("error", "warning", "off")


def test_severity_environment_policy_wins_over_the_fleet_then_the_default() -> None:
    fleet = Fleet.model_construct(policy=Policy(rules={"probes": "error", "image-tag": "off"}))
    prod, dev = Environment(name="prod"), Environment(name="dev")
    strict = Environment(name="qa", policy=Policy(rules={"probes": "off"}))
    assert severity(fleet, dev, "probes") == "error"
    assert severity(fleet, strict, "probes") == "off"
    assert severity(fleet, prod, "image-tag") == "off"
    plain = Fleet.model_construct(policy=Policy())
    assert (severity(plain, prod, "image-tag"), severity(plain, dev, "image-tag")) == (
        "error",
        "warning",
    )
    assert severity(plain, dev, "image-digest") == "off"


def test_rule_ids_a_policy_may_not_name() -> None:
    assert configurable_problem("probes") is None
    assert "did you mean 'probes'" in (configurable_problem("probe") or "")
    assert "cannot be configured" in (configurable_problem("ownership") or "")
    assert "always an error" in (configurable_problem("plain-secret") or "")


def test_a_waiver_may_name_the_configurable_rules_and_the_secret_rules() -> None:
    """A secret rule is never configured (no Policy turns it off or down) but may be waived for
    one app with a reason: a test fixture in a base, a chart that renders its own Secret."""
    assert waivable_problem("probes") is None
    for rule in scanrules.RULES:
        assert waivable_problem(rule.id) is None, rule.id
        assert BY_ID[rule.id].secret and BY_ID[rule.id].severity == "error"
    assert "cannot be configured" in (waivable_problem("ownership") or "")
    assert "did you mean 'plain-secret'" in (waivable_problem("plain-secrets") or "")


def _rows(doc: str) -> dict[str, str]:
    """Rule id -> the rest of its row, of every table row that starts with an id."""
    text = (Path(__file__).resolve().parent.parent / doc).read_text()
    return {
        line.split("|")[1].strip(" `"): line.split("|", 2)[2].strip()
        for line in text.splitlines()
        if line.startswith("| `")
    }


def test_docs_list_every_rule_with_its_default() -> None:
    rows = _rows("docs/validate.md")
    assert set(rows) == {rule.id for rule in RULES if not rule.secret}
    for rule in RULES:
        if not rule.secret:
            assert rows[rule.id].startswith(rule.severity), rule.id
            assert ("production" in rows[rule.id]) == (rule.production is not None)


def test_security_md_lists_every_secret_rule_in_table_order() -> None:
    rows = _rows("SECURITY.md")
    assert list(rows) == [rule.id for rule in scanrules.RULES]
