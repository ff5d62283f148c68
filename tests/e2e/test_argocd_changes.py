"""Issue #41 point 5 on Argo CD, changes that deploy: an in-repo chart bumped, a project narrowed
by a cluster-scoped kind, and #38 point 4 (a cluster var read at run time) at both Argo CD floors,
observed on the real Argo CD (v3.6.2) step by step; after each commit the live objects are
compared with the commit's diff (`tests.e2e.argocheck`). ``pytest -s`` shows the timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.argocd import APPS, NAMESPACE, application, register
from tests.e2e.argowalkthrough import ROOT, ArgoWalkthrough, argo_walk, state
from tests.e2e.live import Obj, get
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for

ALL = "apps=[echo, web, api, jobs, shop]"
# project ops, whose app roles ships a ClusterRole (fleets/argowalk/apps/roles)
OPS = {
    ALL: "apps=[echo, web, api, jobs, shop, roles]",
    "\nfleet = Fleet(": '\nroles = App(name="roles", project="ops", namespace="roles", '
    'path="apps/roles", cascade_delete=True)\n\nfleet = Fleet(',
    "    projects=[\n": '    projects=[\n        Project(name="ops", namespaces=["roles"], '
    'cluster_resources=[("rbac.authorization.k8s.io", "ClusterRole")]),\n',
}
KIND = ', cluster_resources=[("rbac.authorization.k8s.io", "ClusterRole")]'
READER = Obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "e2e-reader")
ECHO = Obj("apps/v1", "Deployment", "echo", "echo")
VAR = "fleetgen.io/var.image"
IMAGE = "registry.invalid/echo:1.0.0"


def test_argocd_chart_bump_and_narrowed_kind(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """Fleet argowalk with project ops (``cluster_resources``: ClusterRole) and its app roles,
    which ships ClusterRole e2e-reader; Argo CD on mgmt, apps on alpha. In order:

    1. bump the in-repo chart echo 0.1.0 → 0.2.0 with a template edit (a pod label of the chart's
       version): diff's ``charts.versions``; live, echo-alpha syncs the commit (its
       ``status.sync.revision`` and the last ``status.history`` entry: ``autoSync`` syncing
       what ``CompareAppState`` found OutOfSync) and Deployment echo/echo carries the 0.2.0
       template (the repo-server renders the chart at the commit: ``helmTemplate``).
    2. remove ClusterRole from roles' base and from project ops in one commit: diff keeps the
       kind as ``project/ops`` drains, so roles-alpha still sees the ClusterRole (the controller
       compares only the live objects the project permits: ``CompareAppState`` →
       ``IsLiveResourcePermitted``) and its automated sync prunes it, as diff's note says ("the
       apps … have synced this commit and pruned their objects of the kinds it keeps");
       ``--drained project/ops`` then drops ClusterRole from the live AppProject's
       ``clusterResourceWhitelist``.
    """
    with argo_walk(tmp_path, processes, authority, etcd, "chart, kind", edits=OPS) as walk:
        repo, alpha = walk.repo, walk.targets["alpha"]
        assert get(alpha, READER) is not None, "roles-alpha applies ClusterRole e2e-reader"

        bumped = walk.step("bump chart echo to 0.2.0", repo.bump_echo)
        assert [(b["old"], b["new"]) for b in bumped["charts"]["versions"]] == [("0.1.0", "0.2.0")]
        walk.settled()
        head, echo = repo.head(), application(walk.mgmt, "echo-alpha")
        assert echo["status"]["sync"]["revision"] == head, state(echo)
        assert echo["status"]["history"][-1]["revision"] == head, echo["status"]["history"]
        pod = (get(alpha, ECHO) or {})["spec"]["template"]
        assert pod["metadata"]["labels"]["chart"] == "0.2.0", pod["metadata"]
        walk.timeline.say(
            f"mgmt: echo-alpha {state(echo)}, last synced {head[:7]}; "
            "alpha: Deployment echo/echo runs the 0.2.0 template"
        )
        _narrow_by_kind(walk)


def _narrow_by_kind(walk: ArgoWalkthrough) -> None:
    """Step 2 of the test: ClusterRole leaves base roles and project ops, then ops drained."""
    repo, alpha = walk.repo, walk.targets["alpha"]

    def narrow() -> None:
        repo.edit("apps/roles/kustomization.yaml", "  - clusterrole.yaml\n", "")
        repo.edit("fleet.py", KIND, "")

    narrowed = walk.step("ClusterRole out of roles and project ops", narrow)
    assert narrowed["deletions"] == []
    assert any(n.startswith("project/ops drains:") for n in narrowed["notes"]), narrowed["notes"]
    walk.settled()
    project = walk.mgmt.get(APPS, "AppProject", "ops", NAMESPACE)
    assert project["metadata"]["annotations"]["fleetgen.io/draining"] == "true"
    assert _kinds(project) >= {"ClusterRole"}, "diff: project ops keeps ClusterRole"
    assert get(alpha, READER) is None, "diff: roles-alpha prunes ClusterRole e2e-reader"
    walk.timeline.say(
        "alpha: ClusterRole e2e-reader pruned by roles-alpha while AppProject ops keeps the kind"
    )

    drained = walk.step("project/ops drained", lambda: None, "--drained", "project/ops")
    assert drained["deletions"] == []
    walk.settled()
    project = walk.mgmt.get(APPS, "AppProject", "ops", NAMESPACE)
    assert "ClusterRole" not in _kinds(project), project["spec"]
    assert "fleetgen.io/draining" not in (project["metadata"].get("annotations") or {})
    walk.timeline.say(f"mgmt: AppProject ops permits {sorted(_kinds(project))} cluster-wide")


def _kinds(project: dict[str, Any]) -> set[str]:
    return {entry["kind"] for entry in project["spec"].get("clusterResourceWhitelist") or []}


def _beta_unannotated(walk: ArgoWalkthrough) -> None:
    """beta's registration as its owner wrote it: the labels output/README.md lists, but not
    the annotation of the var echo reads."""
    labels = {"fleetgen.io/cluster": "beta", "fleetgen.io/env": "prod"}
    register(walk.mgmt, "beta", walk.planes["beta"], labels)
    walk.timeline.say(f"mgmt: Secret cluster-beta registered by hand, without {VAR}")


def _error(walk: ArgoWalkthrough) -> str | None:
    """The message of ApplicationSet echo-prod's condition ErrorOccurred, when true."""
    appset = walk.mgmt.get(APPS, "ApplicationSet", "echo-prod", NAMESPACE)
    for condition in appset.get("status", {}).get("conditions") or []:
        if condition["type"] == "ErrorOccurred" and condition["status"] == "True":
            return str(condition["message"])
    return None


def _replicas(walk: ArgoWalkthrough) -> tuple[Any, Any]:
    """echo-alpha's replicas value and Deployment echo/echo's replicas on alpha."""
    echo = application(walk.mgmt, "echo-alpha")
    live = get(walk.targets["alpha"], ECHO) or {}
    return echo["spec"]["source"]["helm"]["valuesObject"]["replicas"], live["spec"]["replicas"]


def _names(walk: ArgoWalkthrough) -> set[str]:
    return {a["metadata"]["name"] for a in walk.mgmt.list(APPS, "Application", NAMESPACE)}


def test_argocd_cluster_var_at_both_floors(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """#38 point 4 live (fleet argovars): chart echo selects prod clusters at run time and reads
    ClusterVar image from each cluster Secret's annotation; alpha's registration has it, beta's
    (hand-made, external) lacks it. The cluster generator gives each Secret's annotations to
    the params (``getClusterParameters``: ``metadata.annotations``).

    1. floor 3.4 (the first commit, and echo 1 → 2 replicas): the generator ``selector`` on
       the annotation passes beta over (``Transform`` matches it against the flattened params)
       and ``GenerateApplications`` returns echo-alpha alone: it is created, then updated; no
       echo-beta, no error condition.
    2. floor 3.3.7 (no selector) and echo 2 → 3 replicas: the template's ``{{ fail }}`` on
       beta's params fails ``RenderTemplateParams``, so ``GenerateApplications`` returns an
       error and the reconcile sets condition ErrorOccurred and returns before updating any
       Application: echo-alpha keeps replicas 2 (its spec and alpha's Deployment). The
       condition's message names beta, which only the new generation's template can produce:
       seeing it proves the controller ran on the 3.3.7 spec, so "not updated" is no race.
       The root Application turns Degraded (the ApplicationSet's health check reads
       ErrorOccurred), and stays Synced.
    3. beta's owner adds the annotation: the generation succeeds, echo-alpha is updated to 3
       replicas and echo-beta created, synced onto beta.
    """
    with argo_walk(
        tmp_path,
        processes,
        authority,
        etcd,
        "cluster var",
        fleet="argovars",
        clusters=("alpha", "beta"),
        prepare=_beta_unannotated,
    ) as walk:
        repo = walk.repo
        assert "echo-beta" not in _names(walk) and _error(walk) is None, _error(walk)
        walk.step(
            "echo: 2 replicas", lambda: repo.edit("fleet.py", '"replicas": 1', '"replicas": 2')
        )
        walk.settled()
        # the ApplicationSet controller updates echo-alpha after the root applied its spec
        wait_for("echo-alpha at 2", lambda: _replicas(walk) == (2, 2), 60, walk.logs)
        assert _error(walk) is None, _error(walk)
        assert _names(walk) == {"fleetgen", "echo-alpha"}, _names(walk)
        walk.timeline.say("mgmt: echo-alpha updated to 2 replicas, beta passed over, no error")

        def floor() -> None:
            repo.edit("fleet.py", 'min_version="3.4"', 'min_version="3.3.7"')
            repo.edit("fleet.py", '"replicas": 2', '"replicas": 3')

        # the root shows the failure: argo-cd's health check of an ApplicationSet
        # (resource_customizations/argoproj.io/ApplicationSet/health.lua) is Degraded while
        # ErrorOccurred is true, and an Application is as healthy as its least healthy resource
        walk.health[ROOT] = "Degraded"
        lowered = walk.step("floor 3.3.7, echo: 3 replicas", floor)
        changed = {(c["kind"], c["name"]) for c in lowered["changes"]}
        assert ("ApplicationSet", "echo-prod") in changed, changed
        wait_for("echo-prod fails", lambda: "beta" in (_error(walk) or ""), 60, walk.logs)
        walk.timeline.say(f"mgmt: ApplicationSet echo-prod: ErrorOccurred: {_error(walk)}")
        walk.settled()
        assert _replicas(walk) == (2, 2), "the failed generation updates no Application"
        assert _names(walk) == {"fleetgen", "echo-alpha"}, _names(walk)
        walk.timeline.say("mgmt: echo-alpha kept at 2 replicas (not updated), no echo-beta")

        labels = {"fleetgen.io/cluster": "beta", "fleetgen.io/env": "prod"}
        register(walk.mgmt, "beta", walk.planes["beta"], labels, {VAR: IMAGE})
        walk.timeline.say(f"mgmt: Secret cluster-beta annotated {VAR}={IMAGE}")
        walk.health.clear()
        wait_for("echo-prod generates", lambda: "echo-beta" in _names(walk), 60, walk.logs)
        walk.settled()
        wait_for("echo-alpha at 3", lambda: _replicas(walk) == (3, 3), 60, walk.logs)
        assert _error(walk) is None, _error(walk)
        beta = get(walk.targets["beta"], ECHO) or {}
        image = beta["spec"]["template"]["spec"]["containers"][0]["image"]
        assert image == IMAGE, beta
        walk.timeline.say(f"alpha: echo 3 replicas; beta: echo created, image {image}")
