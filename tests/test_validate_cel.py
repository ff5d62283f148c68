"""``validate`` evaluates the CRDs' CEL rules (``x-kubernetes-validations``) as the API server does
on create: k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel`` ``Validator.Validate``
(``validateExpressions`` at each node, ``validateMap`` / ``validateArray`` per value and item,
transition rules only with an old object, ``ruleMessageOrDefault`` and the message expression's
fallback to ``message``)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from fleetgen.manifests.yamlio import load_all
from fleetgen.tools.kustomize import Kustomize
from fleetgen.validate import cel, schemas
from tests.crd_schemas import custom_resource_definition
from tests.test_validate import CONFIGMAP, fleet_repo, report

ROOT = Path(__file__).resolve().parent.parent

WIDGET_RULES = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.replicas <= self.maxReplicas", "message": "replicas above maxReplicas"},
        {
            "rule": "!has(self.url) || self.url.startsWith('https://')",
            "messageExpression": "'url ' + self.url + ' is not https'",
            "fieldPath": ".url",
        },
        {"rule": "self.url.isURL()", "message": "not a URL"},  # Kubernetes' URLs library
        {"rule": "self.replicas >= oldSelf.replicas", "message": "no scaling down"},
    ],
    "properties": {
        "replicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "url": {"type": "string"},
        "ports": {
            "type": "array",
            "items": {
                "type": "integer",
                "x-kubernetes-validations": [{"rule": "self > 1024"}],
            },
        },
    },
}


def widget_crd() -> dict[str, Any]:
    """A user CRD whose ``spec`` carries CEL rules, its ``ports`` items one each."""
    schema = {"type": "object", "properties": {"spec": WIDGET_RULES}}
    return custom_resource_definition("example.com", "Widget", "v1", schema)


def test_a_user_crds_violated_rule_is_an_error_at_the_object_and_rule(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """A Widget planted in a base, its CRD given with --crds: each failed rule is a ``schema``
    error at the base file naming the field path, the rule's message (or the message
    expression's) and the rule; a rule calling a function cel-python lacks (``isURL``, of
    k8s.io/apiserver ``pkg/cel/library`` URLs) is a warning, never a pass; the transition rule
    (``oldSelf``) does not run on create."""
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"replicas": 5, "maxReplicas": 3, "url": "http://x", "ports": [8080, 80]},
    }
    repo = fleet_repo(tmp_path / "repo", {"a": [CONFIGMAP, widget]})
    crd = tmp_path / "widget-crd.yaml"
    crd.write_text(yaml.safe_dump(widget_crd()))
    data = report(repo, "--render", "--crds", str(crd), code=1)
    errors = {
        (f["object"], f["field"], f["message"], f["location"]["path"])
        for f in data["findings"]
        if f["severity"] == "error"
    }
    base = "apps/a/base/objects.yaml"
    assert errors == {
        (
            "Widget shared/w",
            "spec",
            "replicas above maxReplicas (CEL rule: self.replicas <= self.maxReplicas)",
            base,
        ),
        (
            "Widget shared/w",
            "spec/url",
            "url http://x is not https (CEL rule: !has(self.url) || "
            "self.url.startsWith('https://'))",
            base,
        ),
        (
            "Widget shared/w",
            "spec/ports/1",
            "failed rule: self > 1024 (CEL rule: self > 1024)",
            base,
        ),
    }
    assert {f["rule"] for f in data["findings"] if f["severity"] == "error"} == {"schema"}
    [skipped] = [f for f in data["findings"] if f["rule"] == "cel-not-evaluated"]
    assert (skipped["severity"], skipped["object"], skipped["field"]) == (
        "warning",
        "example.com/v1 Widget",
        "spec",
    )
    assert skipped["message"] == (
        "rule not evaluated (your CRDs): self.url.isURL(): cel-python lacks isURL"
    )


def check(schema: dict[str, Any], obj: dict[str, Any]) -> tuple[list[str], cel.Rules]:
    rules = cel.Rules()
    return list(rules.errors("test: example.com/v1 Widget", schema, obj)), rules


def test_rules_run_where_kubernetes_runs_them() -> None:
    """A node absent from the object is not evaluated (``Validate`` returns on a nil value),
    list items each once (``validateArray``), map values each once (``validateMap``), and the
    root sees ``metadata.name`` and ``generateName`` only (``UnstructuredToVal`` of an embedded
    resource's ObjectMeta)."""
    schema = {
        "x-kubernetes-validations": [{"rule": "!has(self.metadata.labels)", "message": "root"}],
        "properties": {
            "metadata": {"type": "object"},
            "spec": {
                "properties": {
                    "absent": {"x-kubernetes-validations": [{"rule": "false"}]},
                    "env": {
                        "additionalProperties": {
                            "x-kubernetes-validations": [
                                {"rule": "size(self) < 3", "message": "long"}
                            ]
                        }
                    },
                }
            },
        },
    }
    obj = {
        "metadata": {"name": "w", "labels": {"a": "b"}},
        "spec": {"env": {"A": "ok", "B": "long"}},
    }
    errors, rules = check(schema, obj)
    assert errors == ["spec/env/B: long (CEL rule: size(self) < 3)"]
    assert {(path, rule) for _, path, rule in rules.evaluated} == {
        (".", "!has(self.metadata.labels)"),
        ("spec.env.A", "size(self) < 3"),
        ("spec.env.B", "size(self) < 3"),
    }


def test_a_rule_that_errors_or_returns_no_bool_fails_with_the_reason() -> None:
    """An evaluation error (a field read without ``has``) fails the rule as the API server
    reports it; a message expression that fails falls back to ``message``."""
    schema = {
        "x-kubernetes-validations": [
            {"rule": "self.missing == 1"},
            {"rule": "1"},
            {"rule": "false", "messageExpression": "self.missing", "message": "fallback"},
        ]
    }
    errors, rules = check(schema, {"x": 1})
    assert errors == [
        ".: rule could not be evaluated: no such member in mapping: 'missing' "
        "(CEL rule: self.missing == 1)",
        ".: rule returned IntType, not a bool (CEL rule: 1)",
        ".: fallback (CEL rule: false)",
    ]
    assert not rules.not_evaluated


def shipped_rules() -> list[tuple[str, str]]:
    """(schema file, rule) of every CEL rule in the shipped strict schemas."""
    found: list[tuple[str, str]] = []

    def walk(node: Any, name: str) -> None:
        if isinstance(node, dict):
            found.extend((name, r["rule"]) for r in node.get(cel.RULES_KEY, []))
            for value in node.values():
                walk(value, name)
        elif isinstance(node, list):
            for value in node:
                walk(value, name)

    for folder in (resources.files("fleetgen") / "schemas").iterdir():
        for entry in folder.iterdir():
            walk(json.loads(entry.read_bytes())["schemas"], f"{folder.name}/{entry.name}")
    return found


# The shipped rules no emitted object reaches: kinds and versions fleetgen does not emit
# (HelmRelease v2beta2, Kustomization v1beta2, HelmChart) and a HelmRelease's kubeConfig.
UNREACHED = 10


def test_every_shipped_rule_runs_on_the_example_and_the_golden_cases() -> None:
    """The 24 rules of the shipped CRDs (Flux's; newest and floor) all compile with cel-python,
    and each one whose kind, version and node fleetgen emits runs on the example's output and
    the golden cases' expected output, with no failure: a rule silently skipped changes the
    count. ``Validator.Validate`` semantics as in the tests above."""
    assert len(shipped_rules()) == 24
    checker = schemas.Checker(schemas.shipped())
    objects, errors = 0, []
    for root in [ROOT / "output", *sorted((ROOT / "tests" / "cases").glob("*/expected"))]:
        for path in sorted(root.rglob("*.yaml")):
            for doc in load_all(path.read_bytes()):
                if isinstance(doc, dict) and "kind" in doc and checker.errors(doc) is not None:
                    objects += 1
                    errors.extend(e for e in checker.errors(doc) or [] if "CEL rule" in e)
    assert objects > 400 and errors == []
    assert checker.cel.not_evaluated == {}
    assert len(checker.cel.evaluated) == 24 - UNREACHED
    assert {kind.split(": ")[1] for kind, _, _ in checker.cel.evaluated} == {
        "helm.toolkit.fluxcd.io/v2 HelmRelease",
        "kustomize.toolkit.fluxcd.io/v1 Kustomization",
        "notification.toolkit.fluxcd.io/v1beta3 Provider",
        "source.toolkit.fluxcd.io/v1 GitRepository",
    }


def test_a_hand_made_bad_object_fails_the_shipped_rules() -> None:
    """Objects breaking every rule fleetgen's emitters guard fail with the CRDs' own messages,
    on the newest Flux and the floor (2.7) alike where both have the rule."""
    bad = [
        {
            "apiVersion": "helm.toolkit.fluxcd.io/v2",
            "kind": "HelmRelease",
            "metadata": {"name": "hr", "namespace": "n"},
            "spec": {
                "interval": "1m",
                "chart": {
                    "spec": {"chart": "c", "sourceRef": {"kind": "HelmRepository", "name": "r"}}
                },
                "chartRef": {"kind": "OCIRepository", "name": "o"},
                "install": {"strategy": {"name": "RemediateOnFailure", "retryInterval": "1m"}},
                "upgrade": {"strategy": {"name": "RemediateOnFailure", "retryInterval": "1m"}},
            },
        },
        {
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
            "kind": "Kustomization",
            "metadata": {"name": "k", "namespace": "n"},
            "spec": {
                "interval": "1m",
                "prune": True,
                "sourceRef": {"kind": "GitRepository", "name": "g"},
                "kubeConfig": {},
            },
        },
        {
            "apiVersion": "source.toolkit.fluxcd.io/v1",
            "kind": "GitRepository",
            "metadata": {"name": "g", "namespace": "n"},
            "spec": {"interval": "1m", "url": "https://x", "serviceAccountName": "sa"},
        },
    ]
    checker = schemas.Checker(schemas.shipped())
    failed = sorted(e for doc in bad for e in checker.errors(doc) or [] if "CEL rule" in e)
    assert [e.partition(" (CEL rule")[0] for e in failed] == [
        "spec/install/strategy: .retryInterval cannot be set when .name is 'RemediateOnFailure'",
        "spec/kubeConfig: exactly one of spec.kubeConfig.configMapRef or spec.kubeConfig.secretRef "
        "must be specified",
        "spec/upgrade/strategy: .retryInterval can only be set when .name is 'RetryOnFailure'",
        "spec: either chart or chartRef must be set",
        "spec: serviceAccountName can only be set when provider is 'azure'",
        "spec: serviceAccountName can only be set when provider is 'azure' or 'aws'",
    ]
    assert [e.rpartition(" (on ")[2] for e in failed[-2:]] == ["Flux 2.7)", "Flux 2.9)"]
