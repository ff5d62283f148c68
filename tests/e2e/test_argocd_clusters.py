"""Issue #41 point 5 on Argo CD, clusters: removing a workload cluster and renaming one, observed
on the real Argo CD (v3.6.2) step by step on the loopback fleet ``argowalk``; after each commit
the live objects are compared with the commit's diff (`tests.e2e.argocheck`, whose docstring
names the controller functions each verdict relies on). ``pytest -s`` shows the timeline."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.e2e.argocd import APPS, NAMESPACE, application
from tests.e2e.argowalkthrough import ALPHA, argo_walk, cluster_line, state
from tests.e2e.live import Obj, get
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for
from tests.helpers import run_fleetgen_process

SECRET_TYPE = "argocd.argoproj.io/secret-type"


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {d["name"]: d["workloads"] for d in report["deletions"] if d["kind"] == "Application"}


def _registration(name: str) -> Obj:
    return Obj("v1", "Secret", NAMESPACE, f"cluster-{name}")


def _applications(walk: Any) -> set[str]:
    return {a["metadata"]["name"] for a in walk.mgmt.list(APPS, "Application", NAMESPACE)}


def test_argocd_cluster_removal_does_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """Remove workload cluster beta (alpha stays), both registered by fleetgen's
    ExternalSecrets from the fake store; each step's live outcome against its diff:

    1. the removal: diff says web-, jobs- and shop-beta ``deleted`` (cascade_delete=True),
       api- and echo-beta ``orphaned``; the build keeps beta's registration (``cluster/beta``
       drains: only its secret-type label, so no cluster generator selects it) and beta's
       tenant accounts. Live, the ApplicationSets stop generating beta's Applications
       (the cluster generator's ``matchExpressions``) and delete them; each resources finalizer
       deletes its workloads on beta through the kept registration
       (``finalizeApplicationDeletion`` → ``GetDestinationCluster``; shop-beta's as the
       tenant's kept account: ``applyImpersonationConfig``); api's and echo's stay; alpha is
       untouched.
    2. ``--drained tenant/team/beta``, then ``tenants/beta`` (the build refuses ``cluster/beta``
       before them, as beta.tenants still needs the registration: ``CompareAppState``):
       beta.tenants prunes the accounts (``autoSync`` with ``allowEmpty``), then goes deleting
       nothing (no finalizer); Namespace team stays (``Prune=false``).
    3. ``--drained cluster/beta``: the ExternalSecret goes, and its Secret with it (External
       Secrets' ``creationPolicy: Owner`` sets the ExternalSecret as its controller owner:
       Kubernetes' garbage collector); Argo CD no longer knows beta.
    """
    both = cluster_line(["alpha", "beta"], {"alpha": "SERVER_ALPHA", "beta": "SERVER_BETA"})
    with argo_walk(
        tmp_path,
        processes,
        authority,
        etcd,
        "remove cluster beta",
        clusters=("alpha", "beta"),
        edits={ALPHA: both},
    ) as walk:
        repo, mgmt, beta = walk.repo, walk.mgmt, walk.targets["beta"]
        servers = {name: kube.server for name, kube in walk.targets.items()}
        on_alpha = {a for a in _applications(walk) if a.endswith("-alpha")}
        assert {a for a in _applications(walk) if a.endswith("-beta")}, "nothing on beta"

        removed = walk.step(
            "remove cluster beta",
            lambda: repo.edit(
                "fleet.py",
                cluster_line(["alpha", "beta"], servers),
                cluster_line(["alpha"], servers),
            ),
        )
        assert _verdicts(removed) == {
            "web-beta": "deleted",
            "jobs-beta": "deleted",
            "shop-beta": "deleted",
            "api-beta": "orphaned",
            "echo-beta": "orphaned",
        }
        record = json.loads((repo.work / "output/.fleetgen/record.json").read_text())
        assert "cluster/beta" in record["draining"], record["draining"]
        secret = get(mgmt, _registration("beta"))
        assert secret is not None, "beta's registration is kept while its Applications go"
        walk.timeline.say(
            f"mgmt: Secret cluster-beta kept, labels {secret['metadata'].get('labels')}"
        )
        walk.settled()
        assert {a for a in _applications(walk) if a.endswith("-alpha")} == on_alpha

        refused = run_fleetgen_process(repo.work, "build", "--drained", "cluster/beta")
        assert refused.returncode != 0 and "Confirm tenant/team/beta and tenants/beta first" in (
            refused.stderr + refused.stdout
        ), refused
        walk.timeline.say("fleetgen build --drained cluster/beta: refused (beta.tenants first)")
        team = Obj("v1", "Namespace", "", "team")
        walk.step("tenant/team/beta drained", lambda: None, "--drained", "tenant/team/beta")
        walk.settled()
        gone = walk.step("tenants/beta drained", lambda: None, "--drained", "tenants/beta")
        assert _verdicts(gone) == {"beta.tenants": "orphaned"}
        walk.settled()
        assert get(beta, team) is not None, "Namespace team: Prune=false"

        drained = walk.step("cluster/beta drained", lambda: None, "--drained", "cluster/beta")
        assert [(d["kind"], d["name"]) for d in drained["deletions"]] == [
            ("ExternalSecret", "cluster-beta")
        ]
        wait_for(
            "Secret cluster-beta gone",
            lambda: get(mgmt, _registration("beta")) is None,
            60,
            walk.logs,
        )
        walk.timeline.say("mgmt: Secret cluster-beta gone with its ExternalSecret")
        walk.settled()
        walk.step("the projects drained", lambda: None, "--all-drained")
        walk.settled()
        record = json.loads((repo.work / "output/.fleetgen/record.json").read_text())
        assert record["draining"] == {}, record["draining"]


def test_argocd_cluster_rename_does_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """Rename cluster alpha to gamma (same server; the store holds gamma's entry too). diff
    reports each ``<app>-alpha`` renamed ``<app>-gamma``, applied as a deletion and a creation:
    web, jobs, shop ``deleted``, api, echo ``orphaned``; the build keeps alpha's registration
    (``cluster/alpha`` drains) but not the tenant's accounts: gamma.tenants applies them on the
    same server, so alpha.tenants goes at once (renamed gamma.tenants, ``orphaned``: no
    resources finalizer, ``finalizeApplicationDeletion`` deletes nothing) and diff says they are
    taken over. Live (`ArgoCheck.renames`): the ApplicationSets delete the ``-alpha``
    Applications and create the ``-gamma`` ones in the same reconcile; each old resources
    finalizer deletes its workloads (``finalizeApplicationDeletion``, the kept registration
    reaching the server; shop-alpha's as the account gamma.tenants keeps:
    ``applyImpersonationConfig``) and the new Application's sync creates them anew; the orphaned
    ones, and the tenant's account, are adopted (same uid; the tracking id re-stamped by
    ``SetAppInstance``). Over 20 s after settling, the account's tracking id names gamma.tenants
    only (no second Application self-heals it: ``autoSync``). Then ``cluster/alpha`` may be
    confirmed at once (no alpha.tenants needs it: ``order_problems``), and the projects; the
    account stays (nothing prunes it: gitops-engine ``syncContext`` prunes only what the
    tracking id attributes to the Application).
    """
    with argo_walk(
        tmp_path, processes, authority, etcd, "rename alpha to gamma", aliases={"gamma": "alpha"}
    ) as walk:
        repo, mgmt, alpha = walk.repo, walk.mgmt, walk.targets["alpha"]
        walk.targets["gamma"] = alpha
        renamed = walk.step(
            "rename alpha to gamma",
            lambda: repo.edit("fleet.py", 'Cluster(name="alpha"', 'Cluster(name="gamma"'),
        )
        verdicts = {r["from"]: r["workloads"] for r in renamed["renames"] if r["engine"]}
        assert verdicts == {
            "web-alpha": "deleted",
            "jobs-alpha": "deleted",
            "shop-alpha": "deleted",
            "api-alpha": "orphaned",
            "echo-alpha": "orphaned",
            "alpha.tenants": "orphaned",
        }, verdicts
        assert any(
            "ServiceAccount team/deployer on alpha: taken over by gamma.tenants (same server), "
            "nothing deleted" in note
            for note in renamed["notes"]
        ), renamed["notes"]
        record = json.loads((repo.work / "output/.fleetgen/record.json").read_text())
        assert "cluster/alpha" in record["draining"], record
        assert not {"tenant/team/alpha", "tenants/alpha"} & set(record["draining"]), record
        walk.settled()
        account = Obj("v1", "ServiceAccount", "team", "deployer")
        uid = (get(alpha, account) or {}).get("metadata", {}).get("uid")
        owners = set()
        for _ in range(40):  # 20 s: any second owner would self-heal within it
            annotations = (get(alpha, account) or {}).get("metadata", {}).get("annotations", {})
            owners.add(str(annotations.get("argocd.argoproj.io/tracking-id")).split(":")[0])
            time.sleep(0.5)
        walk.timeline.say(
            f"alpha: {account} tracked by {sorted(owners)} over 20 s; gamma.tenants "
            f"{state(application(mgmt, 'gamma.tenants'))}"
        )
        assert owners == {"gamma.tenants"}, owners

        walk.step("cluster/alpha drained", lambda: None, "--drained", "cluster/alpha")
        walk.settled()
        walk.step("the projects drained", lambda: None, "--all-drained")
        walk.settled()
        record = json.loads((repo.work / "output/.fleetgen/record.json").read_text())
        assert record["draining"] == {}, record["draining"]
        live = get(alpha, account)
        assert live is not None and live["metadata"]["uid"] == uid, "gamma.tenants' account"
