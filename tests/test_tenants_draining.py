"""A tenant leaving an Argo CD cluster (`fleetgen.settle.tenants`): Application
``<cluster>.tenants`` keeps applying its accounts while its placements delete, prunes them, and
goes deleting nothing; walked through in real Git repositories with ``diff`` at each step.

No controller runs here. What the steps rely on (argo-cd v3.3): the Application has no resources
finalizer, so its removal deletes nothing (controller/appcontroller.go
``finalizeApplicationDeletion`` deletes only when ``app.CascadedDeletion()``); its automated
sync prunes what leaves its folder but skips what is annotated ``Prune=false``, as every tenant
Namespace is (gitops-engine pkg/sync ``syncContext.pruneObject`` → ``isPruningDisabled``), refuses
to prune everything without ``allowEmpty`` (``autoSync``: "auto-sync will wipe out all
resources"), and sees only the live objects its project permits (controller/state.go
``CompareAppState`` → ``IsLiveResourcePermitted``).

A folder that builds to nothing is accepted all the way (checked in argo-cd master, read
for #38): the repo-server's ``GenerateManifests`` runs kustomize (util/kustomize ``Build``),
whose empty output gitops-engine ``kube.SplitYAML`` turns into no objects and no error, and
returns an empty ``ManifestResponse`` (nothing there checks for an empty result);
``CompareAppState`` (``GetRepoObjs``) then compares no targets with the live
objects, each ``RequiresPruning``; ``autoSync``'s "wipe out all resources" guard is skipped
with ``allowEmpty``; and ``SyncAppState`` hands the prune tasks to gitops-engine's
``syncContext.Sync``, which succeeds once they ran ("no more tasks")."""

from __future__ import annotations

from pathlib import Path

from fleetgen.tools.kustomize import Kustomize, build
from tests.diff.test_diff import commit
from tests.helpers import run_fleetgen
from tests.test_draining import (
    CASCADE,
    built,
    check_clean,
    diff_json,
    documents,
    draining,
    record,
    repo_of,
)

TEAM_B = (
    '        Project(name="team-a"',
    '        Project(name="team-b", namespaces=["team-b"], service_account="builder"),\n'
    '        Project(name="team-a"',
)
APP_B = (
    '        App(name="shop",',
    '        App(name="shop-b", project="team-b", namespace="team-b", path="apps/api/base"),\n'
    '        App(name="shop",',
)
ACCOUNTS = (
    "RoleBinding team-a-jobs/fleetgen-tenant-team-a, RoleBinding team-a/fleetgen-tenant-team-a, "
    "ServiceAccount team-a/deployer on prod-1"
)
PRUNED = f"{ACCOUNTS}: deleted, pruned by Application prod-1.tenants"


def without_team_a(repo: Path) -> None:
    """fleet.py of the tenants case without the apps of project team-a (the tenant leaves)."""
    text = (repo / "fleet.py").read_text()
    start, end = text.index('        App(name="shop"'), text.index("    ],\n)")
    (repo / "fleet.py").write_text(text[:start] + text[end:])


def refused(repo: Path, *args: str) -> str:
    """The stderr of ``fleetgen build ARGS``, which must fail writing nothing."""
    ran = run_fleetgen(repo, "build", *args)
    assert ran.returncode == 2, ran.stderr
    check_clean(repo)
    return ran.stderr


def test_the_last_tenant_leaving_a_cluster_has_its_accounts_pruned_before_the_application_goes(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """Kept (draining) while the tenant's placements delete as its account; then pruned by
    ``prod-1.tenants`` from a folder that applies nothing (``pruneObject`` skips the Namespaces:
    ``isPruningDisabled``); then the Application goes, deleting nothing
    (``finalizeApplicationDeletion`` without ``CascadedDeletion``), with the project's entries
    its sync needed (``CompareAppState`` → ``IsLiveResourcePermitted``)."""
    repo = repo_of(tmp_path, "tenants", CASCADE)
    project, application = documents(repo, "argocd/tenants.yaml")
    assert "finalizers" not in application["metadata"]  # steady state as before: no finalizer
    (namespace, *_) = documents(repo, "tenants/prod-1/tenants.yaml")
    assert namespace["metadata"]["annotations"] == {
        "argocd.argoproj.io/sync-options": "Prune=false"
    }

    without_team_a(repo)
    built(repo)
    assert {"tenant/team-a/prod-1", "tenants/prod-1", "project/fleetgen-tenants"} <= set(
        record(repo)["draining"]
    )
    project, application = documents(repo, "argocd/tenants.yaml")
    assert draining(project) and draining(application)
    assert application["spec"]["source"]["path"] == "output/tenants/prod-1"
    kept = documents(repo, "tenants/prod-1/tenants.yaml")
    assert {d["kind"] for d in kept} == {"ServiceAccount", "RoleBinding"}
    assert all(draining(d) for d in kept)
    report = diff_json(repo)
    assert "prod-1.tenants" not in [d["name"] for d in report["deletions"]]
    assert any(n.startswith("tenant/team-a/prod-1 drains:") for n in report["notes"])
    assert (
        "Namespace team-a, Namespace team-a-jobs on prod-1: stay (Prune=false: Argo CD's prune "
        "and a removed Application without finalizer leave them)"
    ) in report["notes"]
    assert run_fleetgen(repo, "validate").returncode == 0
    check_clean(repo)
    commit(repo, "team-a leaves")

    # Out of order, one message per confirmation that would cut a step short.
    assert refused(repo, "--drained", "tenants/prod-1").startswith(
        "output/.fleetgen/record.json: --drained tenants/prod-1: Application prod-1.tenants "
        "still applies the accounts kept while tenant/team-a/prod-1 drains"
    )
    assert "--drained project/fleetgen-tenants: Application prod-1.tenants, kept to prune" in (
        refused(repo, "--drained", "project/fleetgen-tenants")
    )
    assert "2 problem(s); nothing was written" in refused(repo, "--all-drained")

    built(repo, "--drained", "tenant/team-a/prod-1")
    assert not (repo / "output/tenants/prod-1/tenants.yaml").exists()
    # resources: []: nothing, which GenerateManifests and autoSync accept (module docstring)
    assert build(repo / "output/tenants/prod-1", kustomize) == ""
    project, application = documents(repo, "argocd/tenants.yaml")
    assert application["spec"]["syncPolicy"]["automated"] == {
        "prune": True,
        "selfHeal": True,
        "allowEmpty": True,
    }
    assert {"server": "https://prod-1.example.com", "namespace": "team-a"} in project["spec"][
        "destinations"
    ]
    report = diff_json(repo)
    assert report["deletions"] == []
    assert any(n.startswith(PRUNED) for n in report["notes"])
    assert run_fleetgen(repo, "validate").returncode == 0
    check_clean(repo)
    commit(repo, "tenant/team-a/prod-1 drained")

    built(repo, "--drained", "tenants/prod-1")
    assert not (repo / "output/tenants").exists()
    assert not (repo / "output/argocd/tenants.yaml").exists()  # nor its project: no tenant left
    assert not {"tenants/prod-1", "project/fleetgen-tenants"} & set(record(repo)["draining"])
    report = diff_json(repo)
    assert [(d["kind"], d["name"]) for d in report["deletions"]] == [
        ("Application", "prod-1.tenants"),
        ("AppProject", "fleetgen-tenants"),
    ]
    assert (
        "Application prod-1.tenants goes and deletes nothing (no resources finalizer): what it "
        "applied was pruned before, its Namespaces stay"
    ) in report["notes"]
    check_clean(repo)


def test_where_other_tenants_stay_the_application_prunes_the_leaving_ones_accounts(
    tmp_path: Path,
) -> None:
    """No extra step: confirming the tenant's drain drops its accounts, which the emitted
    ``prod-1.tenants`` prunes (``pruneObject``); the project keeps the entries that prune needs
    (``CompareAppState`` → ``IsLiveResourcePermitted``) until ``project/fleetgen-tenants``, which
    is refused in the same build."""
    repo = repo_of(tmp_path, "tenants", CASCADE, TEAM_B, APP_B)
    without_team_a(repo)
    built(repo)
    assert "tenants/prod-1" not in record(repo)["draining"]  # the Application stays anyway
    commit(repo, "team-a leaves")
    both = ("--drained", "tenant/team-a/prod-1", "--drained", "project/fleetgen-tenants")
    assert "confirm tenant/team-a/prod-1 first" in refused(repo, *both)

    built(repo, "--drained", "tenant/team-a/prod-1")
    assert not (repo / "output/tenants/prod-1/kustomization.yaml").exists()
    assert "team-a" not in (repo / "output/tenants/prod-1/tenants.yaml").read_text()
    project, application = documents(repo, "argocd/tenants.yaml")
    assert not draining(application)
    wanted = {"server": "https://prod-1.example.com", "namespace": "team-a"}
    assert draining(project) and wanted in project["spec"]["destinations"]
    assert any(n.startswith(PRUNED) for n in diff_json(repo)["notes"])
    commit(repo, "tenant/team-a/prod-1 drained")

    built(repo, "--drained", "project/fleetgen-tenants")
    project, _ = documents(repo, "argocd/tenants.yaml")
    assert project["spec"]["destinations"] == [
        {"server": "https://prod-1.example.com", "namespace": "team-b"}
    ]
    check_clean(repo)


def test_in_orphan_mode_the_application_goes_at_once_and_orphans_the_accounts(
    tmp_path: Path,
) -> None:
    """Nothing drains without cascade_delete: ``prod-1.tenants`` goes with the accounts, and
    without a resources finalizer deletes nothing (``finalizeApplicationDeletion``)."""
    repo = repo_of(tmp_path, "tenants")
    without_team_a(repo)
    built(repo)
    assert not (repo / "output/argocd/tenants.yaml").exists()
    report = diff_json(repo)
    assert ("prod-1.tenants", "orphaned") in [
        (d["name"], d["workloads"]) for d in report["deletions"]
    ]
    assert (
        f"{ACCOUNTS}: orphaned: Application prod-1.tenants goes with them and, without a "
        "resources finalizer, deletes nothing"
    ) in report["notes"]
