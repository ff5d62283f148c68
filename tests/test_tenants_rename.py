"""A cluster renamed on the same server hands its tenants' accounts over to the new
``<cluster>.tenants`` (`fleetgen.settle.takeover`): they do not drain, and the old Application
goes at once; walked through in real Git repositories with ``diff`` and ``validate`` at each step.

What it relies on (argo-cd v3.6.2): both Applications would apply the same objects on the same
server with ``selfHeal``, the tracking id naming the one that applied last (util/argo
``SetAppInstance``, ``GetAppName``), and a kept old one would prune them after ``--drained``
whenever it applied last (gitops-engine pkg/sync ``syncContext`` prunes the live objects the
cache attributes to the Application that it no longer targets). The old one has no resources
finalizer, so its removal deletes nothing (controller/appcontroller.go
``finalizeApplicationDeletion`` deletes only when ``CascadedDeletion()``), and the new one's
sync adopts the live objects (``SetAppInstance`` re-stamps the tracking id)."""

from __future__ import annotations

from pathlib import Path

from tests.diff.test_diff import commit, edit, git
from tests.helpers import run_fleetgen
from tests.test_draining import (
    CASCADE,
    built,
    check_clean,
    diff_json,
    documents,
    draining,
    record,
    repo_of as draining_repo,
)
from tests.test_tenants_draining import APP_B, TEAM_B, refused, without_team_a

RENAME = ('Cluster(name="prod-1"', 'Cluster(name="prod-2"')
TAKEN = (
    "Namespace team-a, Namespace team-a-jobs, RoleBinding team-a-jobs/fleetgen-tenant-team-a, "
    "RoleBinding team-a/fleetgen-tenant-team-a, ServiceAccount team-a/deployer on prod-1: "
    "taken over by prod-2.tenants (same server), nothing deleted"
)


def repo_of(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """The tenants case in cascade mode (edited), built and committed."""
    return draining_repo(tmp_path, "tenants", CASCADE, *edits)


def renamed(repo: Path) -> None:
    """fleet.py with prod-1 renamed prod-2 (its server unchanged)."""
    edit(repo / "fleet.py", *RENAME)


def tenant_drains(repo: Path) -> set[str]:
    return {n for n in record(repo).get("draining", {}) if n.startswith(("tenant", "project/fl"))}


def test_a_renamed_cluster_hands_its_tenant_accounts_over_and_drains_the_rest(
    tmp_path: Path,
) -> None:
    """Rename: prod-2.tenants applies the accounts, prod-1.tenants goes at once (no finalizer:
    ``finalizeApplicationDeletion`` deletes nothing), nothing of the tenant drains, so
    ``cluster/prod-1`` may be confirmed next (``order_problems``). Second step: the tenant
    leaves prod-2 and drains there as on any cluster."""
    repo = repo_of(tmp_path)
    renamed(repo)
    built(repo)
    assert tenant_drains(repo) == set()
    assert "cluster/prod-1" in record(repo)["draining"]
    assert not (repo / "output/tenants/prod-1").exists()
    _, application = documents(repo, "argocd/tenants.yaml")
    assert application["metadata"]["name"] == "prod-2.tenants" and not draining(application)
    assert application["spec"]["destination"]["server"] == "https://prod-1.example.com"
    accounts = documents(repo, "tenants/prod-2/tenants.yaml")
    assert ("ServiceAccount", "deployer") in [(d["kind"], d["metadata"]["name"]) for d in accounts]
    assert not any(draining(d) for d in accounts)
    report = diff_json(repo)
    assert any(note.startswith(TAKEN) for note in report["notes"]), report["notes"]
    assert (
        f"{TAKEN}: prod-1.tenants goes without a resources finalizer, deleting nothing, and "
        "prod-2.tenants' sync adopts them"
    ) in report["notes"]
    assert ("prod-1.tenants", "prod-2.tenants", "orphaned") in [
        (r["from"], r["to"], r["workloads"]) for r in report["renames"]
    ]
    assert run_fleetgen(repo, "validate").returncode == 0
    check_clean(repo)
    commit(repo, "prod-1 renamed prod-2")

    built(repo, "--drained", "cluster/prod-1")  # nothing of the tenants needs it
    built(repo, "--all-drained")
    assert record(repo)["draining"] == {}
    check_clean(repo)
    commit(repo, "prod-1 drained")

    without_team_a(repo)
    built(repo)
    assert tenant_drains(repo) >= {"tenant/team-a/prod-2", "tenants/prod-2"}
    _, application = documents(repo, "argocd/tenants.yaml")
    assert application["metadata"]["name"] == "prod-2.tenants" and draining(application)
    check_clean(repo)


def test_a_tenant_leaving_with_the_rename_still_drains_on_the_old_name(tmp_path: Path) -> None:
    """prod-2 places nothing of team-a, so nothing is taken over: prod-1.tenants keeps the
    accounts while shop-prod-1's finalizer deletes as them (``applyImpersonationConfig``), and
    the order rules hold (``cluster/prod-1`` after the tenants' drains: ``CompareAppState``)."""
    repo = repo_of(tmp_path)
    renamed(repo)
    without_team_a(repo)
    built(repo)
    assert tenant_drains(repo) >= {"tenant/team-a/prod-1", "tenants/prod-1"}
    _, application = documents(repo, "argocd/tenants.yaml")
    assert application["metadata"]["name"] == "prod-1.tenants" and draining(application)
    kept = documents(repo, "tenants/prod-1/tenants.yaml")
    assert {d["kind"] for d in kept} == {"ServiceAccount", "RoleBinding"}
    assert not any("taken over" in note for note in diff_json(repo)["notes"])
    check_clean(repo)
    commit(repo, "prod-1 renamed prod-2, team-a leaves")
    assert "Confirm tenant/team-a/prod-1 and tenants/prod-1 first" in refused(
        repo, "--drained", "cluster/prod-1"
    )


def test_where_another_tenant_leaves_with_the_rename_only_its_accounts_stay_behind(
    tmp_path: Path,
) -> None:
    """team-a's accounts go over to prod-2.tenants; team-b's, which prod-2 does not place,
    drain with prod-1.tenants, which no longer applies team-a's (diff says it may prune them
    before prod-2.tenants adopts them: gitops-engine ``syncContext`` prune)."""
    repo = repo_of(tmp_path, TEAM_B, APP_B)
    renamed(repo)
    edit(repo / "fleet.py", APP_B[1].split("\n")[0] + "\n", "")
    built(repo)
    assert tenant_drains(repo) >= {"tenant/team-b/prod-1", "tenants/prod-1"}
    assert "tenant/team-a/prod-1" not in tenant_drains(repo)
    _, new, old = documents(repo, "argocd/tenants.yaml")
    assert (new["metadata"]["name"], old["metadata"]["name"]) == (
        "prod-2.tenants",
        "prod-1.tenants",
    )
    assert draining(old) and not draining(new)
    kept = documents(repo, "tenants/prod-1/tenants.yaml")
    assert {d["metadata"]["namespace"] for d in kept} == {"team-b"}
    assert (
        f"{TAKEN}: prod-1.tenants, kept for what still drains there, no longer applies them and "
        "prunes them only if it syncs before prod-2.tenants adopts them, which then creates "
        "them again"
    ) in diff_json(repo)["notes"]
    check_clean(repo)


def test_a_rename_that_narrows_a_kept_binding_is_refused(tmp_path: Path) -> None:
    """shop-jobs (namespace=None) leaves with the rename: shop-jobs-prod-1's finalizer deletes as
    argocd's ``deployer`` (``DeriveServiceAccountToImpersonate``), which prod-2's binding in
    team-a no longer names: one message at the Cluster, nothing written."""
    repo = repo_of(tmp_path)
    renamed(repo)
    text = (repo / "fleet.py").read_text()
    start = text.index('        App(name="shop-jobs"')
    (repo / "fleet.py").write_text(text[:start] + text[text.index("    ],\n)") :])
    ran = run_fleetgen(repo, "build")
    stderr = ran.stderr
    assert ran.returncode == 2 and not git(repo, "status", "--porcelain", "output"), stderr
    line = text[: text.index(RENAME[1])].count("\n") + 1
    assert stderr.startswith(
        f"fleet.py:{line}: cluster prod-2 applies RoleBinding team-a/fleetgen-tenant-team-a on "
        "the server of prod-1, which tenant/team-a/prod-1 keeps as prod-1 had it"
    ), stderr
    assert "1 problem(s); nothing was written" in stderr
