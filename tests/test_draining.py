"""Removals that complete (`fleetgen.settle.draining`): in cascade mode a build keeps what the
controllers' deletion still needs, annotated ``fleetgen.io/draining``, in the committed record,
until ``build --drained`` confirms it; walked through in real Git repositories, with ``diff`` and
``build --check`` at each step. No controller runs here: each test names the function whose
behaviour the kept objects serve (argo-cd v3.3, kustomize-controller v1.7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fleetgen.manifests.yamlio import load_all
from tests.diff.test_diff import commit, edit, git
from tests.helpers import case_copy, run_fleetgen

CASES = Path(__file__).parent / "cases"
CASCADE = ("engines=[", "cascade_delete=True,\n    engines=[")
PROD_C = '        Cluster(name="prod-c", env="prod", server="https://prod-c.example.com"),\n'
PROD_B = '        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),\n'


def repo_of(tmp_path: Path, case: str, *edits: tuple[str, str]) -> Path:
    """A Git repository holding golden case ``case`` (edited), built and committed."""
    repo = case_copy(CASES / case, tmp_path / "repo", *edits)
    git(repo, "init", "-q", "-b", "main")
    built(repo)
    commit(repo, "fleet")
    return repo


def built(repo: Path, *args: str) -> str:
    """``fleetgen build ARGS`` in ``repo``, which must succeed; its stderr."""
    ran = run_fleetgen(repo, "build", *args)
    assert ran.returncode == 0, ran.stderr
    return ran.stderr


def documents(repo: Path, path: str) -> list[dict[str, Any]]:
    return load_all((repo / "output" / path).read_text())


def record(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / "output/.fleetgen/record.json").read_text())
    return data


def diff_json(repo: Path) -> dict[str, Any]:
    ran = run_fleetgen(repo, "diff", "--base", "HEAD", "--format", "json")
    assert ran.returncode in (0, 1), ran.stderr  # 1: there are changes
    data: dict[str, Any] = json.loads(ran.stdout)
    return data


def draining(document: dict[str, Any]) -> bool:
    return (document["metadata"].get("annotations") or {}).get("fleetgen.io/draining") == "true"


def check_clean(repo: Path) -> None:
    ran = run_fleetgen(repo, "build", "--check")
    assert ran.returncode == 0, ran.stderr


def test_removing_an_argo_cluster_keeps_its_registration_and_destination_until_drained(
    tmp_path: Path,
) -> None:
    """argo-cd ``finalizeApplicationDeletion``: an Application whose destination cluster
    ``GetDestinationCluster`` cannot find drops its cascade (``UnSetCascadedDeletion``), and
    ``getPermittedAppLiveObjects`` deletes only what ``IsLiveResourcePermitted`` allows: both
    the registration and the project's destination must outlive the Applications."""
    repo = repo_of(tmp_path, "argocd-rollout", CASCADE)
    assert set(record(repo)["holds"]) == {
        "cluster/prod-a",
        "cluster/prod-b",
        "cluster/prod-c",
        "cluster/staging-1",
        "project/api",
    }
    edit(repo / "fleet.py", PROD_C, "")
    built(repo)
    (registration,) = documents(repo, "argocd/clusters/prod-c.yaml")
    assert draining(registration)
    # Kept, but no ApplicationSet cluster generator (a label selector) may select it again.
    template = registration["spec"]["target"]["template"]["metadata"]
    assert template["labels"] == {"argocd.argoproj.io/secret-type": "cluster"}
    (project,) = documents(repo, "argocd/projects/api.yaml")
    assert draining(project)
    assert {"server": "https://prod-c.example.com", "name": "prod-c", "namespace": "api"} in (
        project["spec"]["destinations"]
    )
    assert set(record(repo)["draining"]) == {"cluster/prod-c", "project/api"}
    assert "| cluster/prod-c |" in (repo / "output/README.md").read_text()
    validated = run_fleetgen(repo, "validate")  # newest and floor schemas, contracts
    assert validated.returncode == 0, validated.stdout + validated.stderr
    report = diff_json(repo)
    assert [(d["name"], d["workloads"]) for d in report["deletions"]] == [("api-prod-c", "deleted")]
    assert any(
        n.startswith("cluster/prod-c drains:") and "--drained cluster/prod-c" in n
        for n in report["notes"]
    )
    assert any(n.startswith("order of events: ") for n in report["notes"])
    check_clean(repo)
    commit(repo, "remove prod-c")
    assert " 0 written, " in run_fleetgen(repo, "build").stdout  # nothing new drains

    built(repo, "--drained", "prod-c")  # a bare name where it is unambiguous
    assert not (repo / "output/argocd/clusters/prod-c.yaml").exists()
    (project,) = documents(repo, "argocd/projects/api.yaml")
    assert draining(project)  # not confirmed yet: still kept
    assert set(record(repo)["draining"]) == {"project/api"}
    check_clean(repo)
    report = diff_json(repo)
    assert [d["kind"] for d in report["deletions"]] == ["ExternalSecret"]  # no Application
    assert (
        "cluster/prod-c no longer drains: what was kept for its deletion goes now"
        in (report["notes"])
    )
    commit(repo, "prod-c drained")
    built(repo, "--all-drained")
    (project,) = documents(repo, "argocd/projects/api.yaml")
    assert not draining(project)
    assert "prod-c" not in json.dumps(project["spec"]["destinations"])
    assert record(repo)["draining"] == {}
    check_clean(repo)


def test_removing_a_hub_spoke_keeps_how_the_hub_reaches_it_until_drained(tmp_path: Path) -> None:
    """kustomize-controller ``finalize``: a Kustomization with ``kubeConfig`` deletes what it
    applied through ``impersonation.GetClient`` (the kubeconfig Secret in its namespace; the
    tenant's account on the spoke); without them it retries forever and its namespace never
    terminates. Kept: the spoke's kubeconfig, namespace and namespaces Kustomization (with
    ``deletionPolicy: Orphan``, so that ``finalizerShouldDeleteResources`` needs no client when
    it finally goes)."""
    repo = repo_of(tmp_path, "hub-rollout", CASCADE)
    edit(repo / "fleet.py", PROD_B, "")
    built(repo)
    spoke = documents(repo, "flux/clusters/mgmt/spokes/prod-b.yaml")
    assert [(d["kind"], d["metadata"]["name"]) for d in spoke] == [
        ("ExternalSecret", "kubeconfig"),
        ("Kustomization", "namespaces.fleetgen.io"),
    ]  # the app's Kustomization is gone: its finalizer deletes the app on prod-b
    assert all(draining(d) for d in spoke)
    assert spoke[1]["spec"]["deletionPolicy"] == "Orphan"
    namespaces = documents(repo, "flux/clusters/mgmt/namespaces.yaml")
    assert [(n["metadata"]["name"], draining(n)) for n in namespaces] == [
        ("prod-a", False),
        ("prod-b", True),
    ]
    assert (repo / "output/flux/spokes/prod-b/namespaces.yaml").exists()
    report = diff_json(repo)
    assert ("api", "deleted") in [(d["name"], d["workloads"]) for d in report["deletions"]]
    assert any(n.startswith("cluster/prod-b drains:") for n in report["notes"])
    check_clean(repo)
    commit(repo, "remove prod-b")

    built(repo, "--drained", "cluster/prod-b")
    assert not (repo / "output/flux/clusters/mgmt/spokes/prod-b.yaml").exists()
    assert not (repo / "output/flux/spokes/prod-b").exists()
    assert [
        n["metadata"]["name"] for n in documents(repo, "flux/clusters/mgmt/namespaces.yaml")
    ] == ["prod-a"]
    check_clean(repo)


def test_a_cluster_used_again_stops_draining(tmp_path: Path) -> None:
    repo = repo_of(tmp_path, "argocd-rollout", CASCADE)
    original = (repo / "output/argocd/clusters/prod-c.yaml").read_bytes()
    edit(repo / "fleet.py", PROD_C, "")
    built(repo)
    commit(repo, "remove prod-c")
    edit(repo / "fleet.py", "    ],\n    projects=", f"{PROD_C}    ],\n    projects=")
    built(repo)
    assert (repo / "output/argocd/clusters/prod-c.yaml").read_bytes() == original
    assert record(repo)["draining"] == {}


def test_orphan_mode_keeps_nothing(tmp_path: Path) -> None:
    """Without cascade_delete, deleting an Application deletes nothing on the cluster
    (``preserveResourcesOnDeletion``): nothing needs to outlive it."""
    repo = repo_of(tmp_path, "argocd-rollout")
    assert not (repo / "output/.fleetgen/record.json").exists()
    edit(repo / "fleet.py", PROD_C, "")
    built(repo)
    assert not (repo / "output/argocd/clusters/prod-c.yaml").exists()


def test_a_kept_document_edited_by_hand_stops_the_build(tmp_path: Path) -> None:
    repo = repo_of(tmp_path, "argocd-rollout", CASCADE)
    registration = repo / "output/argocd/clusters/prod-c.yaml"
    registration.write_text(registration.read_text().replace("prod-c.example", "evil.example"))
    edit(repo / "fleet.py", PROD_C, "")
    before = (repo / "output/.fleetgen/record.json").read_bytes()
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    assert (
        "output/argocd/clusters/prod-c.yaml: ExternalSecret/argocd/cluster-prod-c in "
        "argocd/clusters/prod-c.yaml is not as the last build wrote it"
    ) in ran.stderr
    assert (repo / "output/.fleetgen/record.json").read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--drained", "prod-z"], "--drained prod-z: is not draining (draining: nothing drains)"),
        (["--check", "--all-drained"], "--drained and --all-drained write output"),
    ],
)
def test_drained_names_what_drains(tmp_path: Path, args: list[str], message: str) -> None:
    repo = repo_of(tmp_path, "argocd-rollout", CASCADE)
    ran = run_fleetgen(repo, "build", *args)
    assert ran.returncode == 2
    assert message in ran.stderr


def test_a_project_that_loses_a_cluster_scoped_kind_keeps_it_until_drained(
    tmp_path: Path,
) -> None:
    """Defect 10's other half: a kind leaving a derived ``clusterResourceWhitelist`` drains like a
    destination (argo-cd ``IsLiveResourcePermitted`` → ``IsGroupKindPermitted``). No Application
    goes: the drain is done once the apps synced and pruned (issue #38 point 9), which diff's
    note and the fleet map say instead of waiting for a removed Application."""
    repo = repo_of(tmp_path, "argocd-rollout", CASCADE)
    role = repo / "apps/api/base/clusterrole.yaml"
    role.write_text(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
        "metadata:\n  name: api-reader\nrules: []\n"
    )
    kustomization = repo / "apps/api/base/kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text().replace("resources:\n", "resources:\n  - clusterrole.yaml\n")
    )
    built(repo)
    commit(repo, "a ClusterRole")
    wanted = {"group": "rbac.authorization.k8s.io", "kind": "ClusterRole"}
    assert (
        wanted in documents(repo, "argocd/projects/api.yaml")[0]["spec"]["clusterResourceWhitelist"]
    )
    kustomization.write_text(kustomization.read_text().replace("  - clusterrole.yaml\n", ""))
    built(repo)
    (project,) = documents(repo, "argocd/projects/api.yaml")
    assert draining(project) and wanted in project["spec"]["clusterResourceWhitelist"]
    assert record(repo)["draining"]["project/api"]["items"] == {
        "argocd/projects/api.yaml#AppProject/argocd/api": {"clusterResourceWhitelist": [wanted]}
    }
    notes = diff_json(repo)["notes"]
    (note,) = [n for n in notes if n.startswith("project/api drains")]
    done = "the apps of project api have synced this commit and pruned their objects of the kinds"
    assert f"while the controllers prune; once {done}" in note
    assert "removed is left" not in note
    assert not any(n.startswith("order of events") for n in notes)
    assert done in (repo / "output/README.md").read_text()
    built(repo, "--drained", "project/api")
    assert (
        wanted
        not in documents(repo, "argocd/projects/api.yaml")[0]["spec"]["clusterResourceWhitelist"]
    )


def test_a_tenant_leaving_a_cluster_keeps_the_accounts_it_deletes_as(tmp_path: Path) -> None:
    """A tenant's placements are deleted as its account: argo-cd ``finalizeApplicationDeletion``
    → ``applyImpersonationConfig``; kustomize-controller ``finalize`` skips the deletion when
    ``CanImpersonate`` finds no account. The ``<cluster>.tenants`` Application and the Flux
    cluster's Kustomization would prune the account and its RoleBindings in the same change
    (what happens next on Argo CD: tests/test_tenants_draining.py)."""
    repo = repo_of(tmp_path, "tenants", CASCADE)
    text = (repo / "fleet.py").read_text()
    start, end = text.index('        App(name="shop"'), text.index("    ],\n)")
    (repo / "fleet.py").write_text(text[:start] + text[end:])
    built(repo)
    assert set(record(repo)["draining"]) == {
        "project/fleetgen-tenants",
        "project/team-a",
        "tenant/team-a/dev-1",
        "tenant/team-a/prod-1",
        "tenants/prod-1",
    }
    for path in ("flux/clusters/dev-1/tenants.yaml", "tenants/prod-1/tenants.yaml"):
        kept = [(d["kind"], draining(d)) for d in documents(repo, path)]
        assert ("ServiceAccount", True) in kept and ("RoleBinding", True) in kept, path
    assert run_fleetgen(repo, "validate").returncode == 0
    check_clean(repo)
    built(repo, "--drained", "tenant/team-a/dev-1")
    assert "tenant/team-a/dev-1" not in record(repo)["draining"]


def test_without_a_record_of_it_a_removed_spoke_is_reported_stuck(tmp_path: Path) -> None:
    """An output built before the record held the spoke (an older fleetgen): nothing drains,
    and ``diff`` says the spoke's Kustomizations are ``stuck``: kustomize-controller ``finalize``
    cannot get a client without the kubeconfig the same change removes."""
    repo = repo_of(tmp_path, "hub-rollout", CASCADE)
    (repo / "output/.fleetgen/record.json").unlink()
    manifest = json.loads((repo / "output/.fleetgen/manifest.json").read_text())
    del manifest["files"][".fleetgen/record.json"]
    (repo / "output/.fleetgen/manifest.json").write_text(json.dumps(manifest))
    commit(repo, "an output without a record")
    edit(repo / "fleet.py", PROD_B, "")
    report = diff_json(repo)
    assert ("api", "stuck") in [(d["name"], d["workloads"]) for d in report["deletions"]]
    assert any(n.startswith("namespace prod-b (its kubeconfig): removed") for n in report["notes"])
