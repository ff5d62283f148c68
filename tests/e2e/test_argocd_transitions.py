"""Issue #41 point 5 on Argo CD: the transitions ``fleetgen diff`` reports on, observed on the
real Argo CD (v3.6.2) step by step on the loopback fleet ``argowalk``; after each commit the live
objects are compared with the commit's diff (`tests.e2e.argocheck`, whose docstring names the
controller functions each verdict relies on). ``pytest -s`` shows the timeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.argocd import APPS, NAMESPACE, application
from tests.e2e.argowalkthrough import ArgoWalkthrough, argo_walk, state
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.kube import Kube
from tests.e2e.live import Obj, get
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes
from tests.e2e.timeline import Timeline

ALL = "apps=[echo, web, api, jobs, shop]"
PROD = 'environments=[Environment(name="prod")]'
MANUAL = 'environments=[Environment(name="prod", sync=SyncPolicy(automated=False))]'
NAMESPACES = 'namespaces=["echo", "web", "api", "jobs"]'
TEAM = Obj("v1", "Namespace", "", "team")
ACCOUNTS = (
    Obj("v1", "ServiceAccount", "team", "deployer"),
    Obj("rbac.authorization.k8s.io/v1", "RoleBinding", "team", "fleetgen-tenant-team"),
)
ECHO = Obj("apps/v1", "Deployment", "echo", "echo")


def _verdicts(report: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(d["kind"], d["name"]): d["workloads"] for d in report["deletions"]}


def test_argocd_removals_do_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """In order, each step's live outcome against its diff (Argo CD on mgmt, apps on alpha):

    1. remove app web (cascade_delete=True) and api (orphan): the root prunes their
       ApplicationSets, whose generated Applications go with them; web-alpha's resources
       finalizer deletes its workloads (``finalizeApplicationDeletion``), api-alpha has none
       and its workloads stay.
    2. the tenant team leaves alpha (its app shop removed, cascade): shop-alpha deletes its
       workloads as the tenant's account (``applyImpersonationConfig``), which
       ``tenant/team/alpha`` keeps; ``--drained tenant/team/alpha``: alpha.tenants syncs an
       empty folder (``allowEmpty``, ``autoSync``) and prunes the accounts, not the Namespace
       (``Prune=false``: ``syncContext.pruneObject`` → ``isPruningDisabled``);
       ``--drained tenants/alpha``: the Application goes and deletes nothing (no finalizer).
       Namespace team survives every step.
    3. narrow project apps (namespace jobs removed with app jobs, cascade): the AppProject keeps
       the destination (``project/apps`` drains, since step 1) so jobs-alpha's finalizer may
       delete its workloads (``getPermittedAppLiveObjects`` → ``IsLiveResourcePermitted``);
       ``--drained project/apps`` drops the destinations of web, api and jobs.
    """
    with argo_walk(tmp_path, processes, authority, etcd, "removals") as walk:
        repo, alpha = walk.repo, walk.targets["alpha"]
        removed = walk.step(
            "remove web (cascade) and api (orphan)",
            lambda: repo.edit("fleet.py", ALL, "apps=[echo, jobs, shop]"),
        )
        verdicts = _verdicts(removed)
        assert verdicts[("Application", "web-alpha")] == "deleted"
        assert verdicts[("Application", "api-alpha")] == "orphaned"
        assert get(alpha, Obj("apps/v1", "Deployment", "api", "api")) is not None
        walk.settled()

        _tenant_leaves(walk, repo, alpha, walk.timeline)

        narrowed = walk.step(
            "remove jobs and its namespace from project apps",
            lambda: (
                repo.edit("fleet.py", "apps=[echo, jobs]", "apps=[echo]"),
                repo.edit("fleet.py", NAMESPACES, 'namespaces=["echo", "web", "api"]'),
            ),
        )
        assert _verdicts(narrowed)[("Application", "jobs-alpha")] == "deleted"
        record = json.loads((repo.work / "output/.fleetgen/record.json").read_text())
        assert "project/apps" in record["draining"]  # draining since web's removal
        walk.settled()
        drained = walk.step("project/apps drained", lambda: None, "--drained", "project/apps")
        assert drained["deletions"] == []
        walk.settled()
        project = walk.mgmt.get(APPS, "AppProject", "apps", NAMESPACE)
        allowed = {d["namespace"] for d in project["spec"]["destinations"]}
        assert allowed == {"echo"}, allowed
        walk.timeline.say(f"mgmt: AppProject apps allows {sorted(allowed)} only")


def test_argocd_manual_holds_a_change(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """prod to manual, then echo's replicas 1 → 2: diff says the ApplicationSets' ``automated``
    becomes ``{enabled: false}`` and notes echo's change held; live the change must stay
    OutOfSync and deploy nothing (``autoSync`` returns early unless
    ``SyncPolicy.IsAutomatedSyncEnabled``, false for ``enabled: false``); back to automated, it
    deploys. The root applies the ApplicationSets server-side (``ServerSideApply=true``:
    gitops-engine's ``syncContext`` → ``ApplyResource`` with field manager argocd-controller),
    which removes a field only where that manager alone owns it, and ``automated`` is co-owned
    by argocd-applicationset-controller's Update: hence ``enabled: false``, a value the apply
    sets, rather than no ``automated``."""
    with argo_walk(tmp_path, processes, authority, etcd, "manual") as walk:
        _manual(walk, walk.repo, walk.mgmt, walk.targets["alpha"], walk.timeline)


def _tenant_leaves(walk: ArgoWalkthrough, repo: FleetRepo, alpha: Kube, timeline: Timeline) -> None:
    """Step 2 of the test: the tenant team leaves alpha in three commits."""
    left = walk.step(
        "tenant team leaves alpha (app shop removed)",
        lambda: repo.edit("fleet.py", "apps=[echo, jobs, shop]", "apps=[echo, jobs]"),
    )
    assert _verdicts(left)[("Application", "shop-alpha")] == "deleted"
    assert any(n.startswith("tenant/team/alpha drains:") for n in left["notes"]), left["notes"]
    for obj in (TEAM, *ACCOUNTS):
        assert get(alpha, obj) is not None, f"{obj} is kept while tenant/team/alpha drains"
    timeline.say("alpha: Namespace team and the accounts stay while tenant/team/alpha drains")
    walk.settled()

    pruned = walk.step("tenant/team/alpha drained", lambda: None, "--drained", "tenant/team/alpha")
    assert pruned["deletions"] == []
    assert any("pruned by Application alpha.tenants" in n for n in pruned["notes"])
    walk.settled()
    for obj in ACCOUNTS:
        assert get(alpha, obj) is None, f"{obj}: diff says alpha.tenants prunes it"
    assert get(alpha, TEAM) is not None, "Namespace team: Prune=false"
    timeline.say(
        f"alpha: accounts pruned, Namespace team stays; alpha.tenants "
        f"{state(application(walk.mgmt, 'alpha.tenants'))}"
    )

    gone = walk.step("tenants/alpha drained", lambda: None, "--drained", "tenants/alpha")
    assert set(_verdicts(gone)) == {
        ("Application", "alpha.tenants"),
        ("AppProject", "fleetgen-tenants"),
    }
    walk.settled()
    assert get(alpha, TEAM) is not None, "Namespace team: alpha.tenants deletes nothing"
    timeline.say("alpha: Namespace team stays after alpha.tenants went")


def _manual(
    walk: ArgoWalkthrough, repo: FleetRepo, mgmt: Kube, alpha: Kube, timeline: Timeline
) -> None:
    """Step 3 of the test: prod manual, a change held, then automated again."""
    walk.step("prod to manual", lambda: repo.edit("fleet.py", PROD, MANUAL))
    walk.settled()
    held = walk.step(
        "echo: 2 replicas, while manual",
        lambda: repo.edit("fleet.py", '"replicas": 1', '"replicas": 2'),
    )
    assert any(n.startswith("held: prod") for n in held["notes"]), held["notes"]
    head = repo.head()
    walk.settled()
    echo = application(mgmt, "echo-alpha")
    status = echo["status"]
    assert status["sync"]["revision"] == head and status["sync"]["status"] == "OutOfSync", state(
        echo
    )
    assert (get(alpha, ECHO) or {})["spec"]["replicas"] == 1
    timeline.say(f"mgmt: echo-alpha {state(echo)}; alpha: Deployment echo/echo keeps 1 replica")
    walk.step("prod back to automated", lambda: repo.edit("fleet.py", MANUAL, PROD))
    walk.settled()
    assert (get(alpha, ECHO) or {})["spec"]["replicas"] == 2
    timeline.say("alpha: Deployment echo/echo has 2 replicas")
    assert {a["metadata"]["name"] for a in mgmt.list(APPS, "Application", NAMESPACE)} >= {
        "echo-alpha"
    }
