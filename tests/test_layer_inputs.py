"""Overrides(resources=..., components=...): directories of the fleet repository that layers add
to a kustomize app's overlays (the golden case ``tests/cases/layer-resources`` on both engines;
``tests/bad_inputs/layer-*`` the refused ones).

Kustomize applies an overlay's components after its resources and before its own transformers
(api/internal/target/kusttarget.go ``KustTarget.AccumulateTarget``: accumulateResources, then
accumulateComponents, then runGenerators and runTransformers), so prod's replicas reach the
Deployment the ha Component patches; it refuses a Component as a resource and a kustomization of
another kind as a component (``validateKind`` in the same file), and a file outside the
kustomization's folder under its default load restrictor (api/internal/loader
``RestrictionRootOnly``), which Argo CD's repo server builds with.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

import fleetgen
from fleetgen.errors import SpecError
from fleetgen.explain.explanation import explain_plan
from fleetgen.inputs.load import load
from fleetgen.pipeline import api
from fleetgen.pipeline.incremental import inputs
from fleetgen.tools.kustomize import Kustomize, build_many
from tests.diff.test_diff import commit, git
from tests.helpers import case_copy, run_fleetgen

CASE = Path(__file__).parent / "cases" / "layer-resources"
SECRET_PATCH = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  minReadySeconds: 10
  template:
    metadata:
      annotations:
        api_token: "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
"""


def _objects(rendered: str) -> list[str]:
    return sorted(f"{d['kind']}/{d['metadata']['name']}" for d in yaml.safe_load_all(rendered) if d)


def test_overlays_built_under_another_out_reach_what_layers_add(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """`build --out` elsewhere: the resources and components entries are relative to where the
    overlays land (`Plan.landing`), so kustomize finds them from there."""
    repo = case_copy(CASE, tmp_path / "repo")
    out = tmp_path / "elsewhere" / "out"
    api.build(repo / "fleet.py", out)
    prod = yaml.safe_load((out / "overlays/web/prod/kustomization.yaml").read_text())
    assert prod["resources"][1:] == ["../../../../../repo/policies/deny-ingress"]
    assert prod["components"] == ["../../../../../repo/components/ha"]
    rendered = build_many([out / "overlays/web/clusters/prod-a", out / "overlays/web/staging"])
    assert _objects(rendered[out / "overlays/web/clusters/prod-a"]) == [
        "ConfigMap/web-config",
        "Deployment/web",
        "NetworkPolicy/deny-ingress",
        "PodDisruptionBudget/web",
        "Service/web-east",
    ]
    assert _objects(rendered[out / "overlays/web/staging"]) == [
        "ConfigMap/web-config",
        "Deployment/web",
    ]


def test_a_path_two_layers_add_is_added_once_where_the_first_added_it(tmp_path: Path) -> None:
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        ('components=["./components/debug/"]', 'components=["components/ha", "components/debug"]'),
    )
    result = api.compile_spec(repo / "fleet.py")
    overlay = yaml.safe_load(result.rendered["overlays/web/clusters/prod-b/kustomization.yaml"])
    assert overlay["components"] == ["../../../../../components/debug"]
    values = {
        (v.key, v.value): v.layer
        for p in explain_plan(result.plan, "web").apps[0].placements
        if p.cluster == "prod-b"
        for v in p.values
        if v.key.startswith("component/")
    }
    assert values[("component/0", "components/ha")] == "per_env"
    assert values[("component/1", "components/debug")] == "per_cluster"


def test_secret_material_in_a_component_is_refused_at_its_line(tmp_path: Path) -> None:
    """The secret scan covers what layers add as it covers bases (`workspace.base_deps`): a
    credential put in a component's patch file after a build fails the next build instead of
    passing for a no-op one."""
    repo = case_copy(CASE, tmp_path / "repo")
    assert run_fleetgen(repo, "build").returncode == 0
    before = inputs(load(repo / "fleet.py"))
    assert before is not None and "base:components/ha" in before.digests
    (repo / "components/ha/min-ready.yaml").write_text(SECRET_PATCH)
    after = inputs(load(repo / "fleet.py"))
    assert after is not None and after.key != before.key
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    assert "components/ha/min-ready.yaml:10: app 'web': Deployment web:" in ran.stderr
    assert "ghp_0123" not in ran.stderr + ran.stdout


def test_a_component_that_stops_being_one_is_refused(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    assert run_fleetgen(repo, "build").returncode == 0
    kustomization = repo / "components/ha/kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace("kind: Component", ""))
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [p.message for p in raised.value.problems] == [
        "app 'web': Overrides(components=['components/ha']): its kustomization.yaml is no "
        "Component (kind: none, apiVersion: kustomize.config.k8s.io/v1alpha1): give it kind: "
        "Component and apiVersion: kustomize.config.k8s.io/v1alpha1, or list it in resources="
    ]


def test_a_component_listed_as_a_resource_is_refused(tmp_path: Path) -> None:
    repo = case_copy(
        CASE, tmp_path / "repo", ('resources=["apps/web/east"]', 'resources=["components/debug"]')
    )
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [p.message for p in raised.value.problems] == [
        "app 'web': Overrides(resources=['components/debug']) is a kustomize Component, which "
        "kustomize refuses as a resource: list it in components="
    ]


def test_validate_render_lays_out_what_layers_add(tmp_path: Path) -> None:
    repo = case_copy(CASE, tmp_path / "repo")
    ran = run_fleetgen(repo, "validate", "--render")
    assert "kustomize-build" not in ran.stdout + ran.stderr
    assert "11 rendered object(s)" in ran.stdout + ran.stderr


def test_diff_render_sees_a_component_edit(tmp_path: Path, kustomize: Kustomize) -> None:
    """A commit that changes only a Component's files changes what the app's overlays render:
    `diff --render` builds them with the component laid out, and names the app."""
    repo = case_copy(CASE, tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "fleet")
    patch = repo / "components/ha/min-ready.yaml"
    patch.write_text(patch.read_text().replace("minReadySeconds: 10", "minReadySeconds: 30"))
    plain = fleetgen.diff(repo / "fleet.py")
    assert not plain.changed
    assert any("--render" in note and "web" in note for note in plain.notes)
    report = fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize).to_json()
    changes = [c for c in report["changes"] if c["source"] == "rendered"]
    assert sorted(cluster for c in changes for cluster in c["clusters"]) == ["prod-a", "prod-b"]
    assert all(
        c["fields"] == [{"path": "spec.minReadySeconds", "old": 10, "new": 30}] for c in changes
    )


def test_kustomize_refuses_what_the_checks_refuse(tmp_path: Path, kustomize: Kustomize) -> None:
    """The refusals are kustomize's own: a Component as a resource, a file outside the folder."""
    repo = case_copy(CASE, tmp_path / "repo")
    overlay = repo / "overlay"
    overlay.mkdir()
    for resources, error in (
        (["../components/debug"], "expected kind != 'Component'"),
        (["../apps/web/base/deployment.yaml"], "is not in or below"),
    ):
        (overlay / "kustomization.yaml").write_text(yaml.safe_dump({"resources": resources}))
        done = subprocess.run(
            [*kustomize.command, str(overlay)], capture_output=True, text=True, check=False
        )
        assert done.returncode != 0 and error in done.stderr, done.stderr


def test_what_a_layer_adds_is_held_to_the_namespace_rules_of_bases(tmp_path: Path) -> None:
    """A Namespace object in an added directory is renamed by the overlay's namespace rewrite
    into the app's own namespace, as one in the base would be (`namespacing.base_problems`)."""
    repo = case_copy(CASE, tmp_path / "repo")
    (repo / "apps/web/east/namespace.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: east\n"
    )
    (repo / "apps/web/east/kustomization.yaml").write_text(
        "resources:\n  - service.yaml\n  - namespace.yaml\n"
    )
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [p.message for p in raised.value.problems] == [
        "app 'web': apps/web/east (added here) ships Namespace 'east', which the overlay's "
        "namespace rewrite turns into the app's own namespace 'web', which fleetgen already "
        "creates; remove it from the base, or set App(namespace=None) to keep the base's "
        "namespaces"
    ]


def test_config_merges_into_a_configmap_that_a_layer_adds(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """config= on a ConfigMap that an added directory ships merges into it (kustomize's
    configMapGenerator ``behavior: merge``; ``create`` would clash with it), in the overlay
    that adds it: generators run after components and resources are accumulated."""
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        (
            'per_label={"region=east": Overrides(resources=["apps/web/east"])}',
            'per_label={"region=east": Overrides(resources=["apps/web/east"], '
            'config={"east-config": {"ZONE": "a"}})}',
        ),
    )
    (repo / "apps/web/east/configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: east-config\ndata:\n  REGION: east\n"
    )
    (repo / "apps/web/east/kustomization.yaml").write_text(
        "resources:\n  - service.yaml\n  - configmap.yaml\n"
    )
    result = api.build(repo / "fleet.py")
    overlay = result.out_dir / "overlays/web/clusters/prod-a"
    doc = yaml.safe_load((overlay / "kustomization.yaml").read_text())
    assert doc["configMapGenerator"][0]["behavior"] == "merge"
    rendered = yaml.safe_load_all(build_many([overlay])[overlay])
    (configmap,) = (d for d in rendered if d and d["metadata"]["name"].startswith("east-config"))
    assert configmap["data"] == {"REGION": "east", "ZONE": "a"}
