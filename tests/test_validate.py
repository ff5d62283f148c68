"""``fleetgen validate [--render]`` through the real CLI, with real CRDs and a real kustomize."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from fleetgen.kustomize import Kustomize
from tests.helpers import run_fleetgen, tree

ROOT = Path(__file__).resolve().parent.parent

FLEET = """\
from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="t",
    repo="https://git.example.com/t.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com")],
    projects=[Project(name="team", namespaces=["shared"], service_account="deployer")],
    apps=[{apps}],
)
"""
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"},
             "data": {"K": "v"}}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shared"}}


def fleet_repo(root: Path, bases: dict[str, list[dict[str, object]]]) -> Path:
    """A repo with one app per base (all in namespace ``shared`` on cluster dev-1)."""
    root.mkdir(exist_ok=True)
    apps = ", ".join(f'App(name="{name}", project="team", namespace="shared", '
                     f'path="apps/{name}/base")' for name in bases)
    (root / "fleet.py").write_text(FLEET.format(apps=apps))
    for name, docs in bases.items():
        base = root / "apps" / name / "base"
        base.mkdir(parents=True)
        (base / "objects.yaml").write_text(yaml.safe_dump_all(docs))
        (base / "kustomization.yaml").write_text("resources:\n- objects.yaml\n")
    return root


def test_example_fleet_validates_clean_and_writes_nothing(
        tmp_path: Path, kustomize: Kustomize) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "apps", repo / "apps")
    shutil.copytree(ROOT / "charts", repo / "charts")
    shutil.copytree(ROOT / "output", repo / "output")
    shutil.copy(ROOT / "fleet.py", repo)
    before = tree(repo)
    result = run_fleetgen(repo, "validate", "--render")  # the shipped schemas, no --crds
    assert (result.returncode, result.stderr) == (0, ""), result.stdout
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith("0 finding(s); ") and "rendered object(s) checked" in summary
    assert "not checked (no schema: kustomize.config.k8s.io/v1beta1 Kustomization" in summary
    assert tree(repo) == before


def test_shipped_schemas_check_every_engine_kind_without_crds(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP]})
    result = run_fleetgen(repo, "validate")
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.splitlines()[-1]
    assert "(no schema: kustomize.config.k8s.io/v1beta1 Kustomization ×1)" in summary, summary


def test_two_apps_rendering_one_object_on_a_cluster(tmp_path: Path, kustomize: Kustomize) -> None:
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP], "b": [CONFIGMAP]})
    result = run_fleetgen(repo, "validate", "--render")
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("dev-1/b: ConfigMap shared/shared is rendered by both a and b on dev-1"
            in result.stdout.splitlines())
    assert result.stdout.splitlines()[-1].startswith("1 finding(s); ")


def test_a_base_shipping_a_namespace_or_a_foreign_namespace(
        tmp_path: Path, kustomize: Kustomize) -> None:
    foreign = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "x"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                      "kind": "ClusterRole", "name": "view"}}
    repo = fleet_repo(tmp_path, {"a": [NAMESPACE, CONFIGMAP, foreign]})
    result = run_fleetgen(repo, "validate", "--render")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines()[:-1] == [
        "dev-1/a: ships Namespace shared: fleetgen creates namespaces, remove it from the base"]


def appproject_crd(spec_fields: list[str]) -> dict[str, object]:
    """An AppProject CRD whose spec knows only ``spec_fields`` (each any object or list)."""
    loose = {"x-kubernetes-preserve-unknown-fields": True}
    schema = {"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {name: loose for name in spec_fields}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "appprojects.argoproj.io"},
            "spec": {"group": "argoproj.io", "scope": "Namespaced",
                     "names": {"kind": "AppProject", "plural": "appprojects"},
                     "versions": [{"name": "v1alpha1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def test_a_crd_in_the_repo_overrides_the_shipped_schema(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path, {"a": [CONFIGMAP]})
    (repo / "crds").mkdir()
    known = ["description", "sourceRepos", "destinations", "clusterResourceWhitelist",
             "namespaceResourceBlacklist", "namespaceResourceWhitelist", "roles", "syncWindows",
             "orphanedResources"]
    (repo / "crds" / "appproject.yaml").write_text(yaml.safe_dump(appproject_crd(known)))
    result = run_fleetgen(repo, "validate")  # found in the repo, no --crds needed
    assert result.returncode == 1, result.stdout + result.stderr
    [finding] = result.stdout.splitlines()[:-1]
    assert finding.startswith("output/argocd/projects/team.yaml: AppProject team: spec: ")
    assert "destinationServiceAccounts" in finding


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
    (repo / "output" / "crd.yaml").write_text(textwrap.dedent("""\
        kind: CustomResourceDefinition
        spec: {}
        """))
    assert run_fleetgen(repo, "validate").returncode == 0
