"""Issue #41 point 5 on Flux: the transitions ``fleetgen diff`` reports on, observed on the real
controllers, step by step on the loopback fleet ``fluxwalk``; after each commit the live objects
are compared with the commit's diff (`tests.e2e.diffcheck`, whose docstring names the
controller functions each verdict relies on). ``pytest -s`` shows the timeline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.controlplane import start_control_plane
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import (
    KUSTOMIZE,
    NAMESPACE,
    bootstrap,
    bootstrap_files,
    move_bootstrap,
    start_flux,
)
from tests.e2e.gitserver import git_server
from tests.e2e.live import Site
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Walkthrough

DEV = 'environments=[Environment(name="dev")]'
WEB = (
    '    App(name="web", project="apps", namespace="web", path="apps/web", cascade_delete=True),\n'
)
API = (
    '    App(name="api", project="apps", namespace="api", path="apps/api", cascade_delete=False),\n'
)
MANUAL = 'environments=[Environment(name="dev", sync=SyncPolicy(automated=False))]'


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_transitions_do_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """In order, each step's live outcome against its diff:

    1. remove app web (cascade_delete=True) and app api (orphan): diff says Kustomization web
       ``deleted``, api ``orphaned``, their Namespaces ``kept-prune-disabled``; live, the root
       prunes both Kustomizations (kustomize-controller ``prune`` → ``deleteObjects``), whose
       ``finalize`` deletes web's inventory (``deletionPolicy: Delete``) and not api's
       (``Orphan``: ``finalizerShouldDeleteResources`` false); the Namespaces stay (annotated
       prune: disabled).
    2. switch dev to manual: diff notes echo suspended and changes ``spec.suspend``; live, the
       HelmRelease is suspended.
    3. a later commit (echo's replicas 1 → 2) while manual: diff reports the values change and
       notes echo's change held (suspended); live, the root applies the HelmRelease's new
       values, helm-controller skips it (``Reconcile`` returns early when suspended) and the
       release stays as it was.
    4. back to automated: diff notes echo resumed; live, helm-controller upgrades the release
       with the values held since step 3 (``reconcileRelease`` at the new generation).
    5. bump the in-repo chart's version (0.1.0 → 0.2.0, a template edit with it): diff reports the
       chart version; live, source-controller builds the new chart (``reconcileStrategy:
       ChartVersion``) and helm-controller upgrades to it.
    """
    timeline = Timeline(f"Flux {release}: walkthroughs on fleet fluxwalk")
    with git_server(tmp_path / "repos" / "served", authority) as base:
        plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        repo = FleetRepo.create("fluxwalk", tmp_path / "repos", base)
        start_flux(processes, plane, release, tmp_path / "flux", authority)
        kube = plane.kube()
        bootstrap(kube, repo.url, "main", "output/flux/clusters/alpha")
        timeline.say(f"alpha: bootstrapped on {repo.head()[:7]} (output/flux/clusters/alpha)")
        logs = sorted((tmp_path / "logs").glob("alpha-*-controller.log"))
        walk = Walkthrough(repo, {"alpha": Site(kube, logs)}, timeline)
        walk.settled("alpha")

        removed = walk.step(
            "remove web (cascade) and api (orphan)",
            lambda: repo.edit("fleet.py", "apps=[echo, web, api]", "apps=[echo]"),
        )
        verdicts = {(d["kind"], d["name"]): d["workloads"] for d in removed["deletions"]}
        assert verdicts[("Kustomization", "web")] == "deleted"
        assert verdicts[("Kustomization", "api")] == "orphaned"
        walk.settled("alpha")

        manual = walk.step("dev to manual", lambda: repo.edit("fleet.py", DEV, MANUAL))
        assert any("suspended" in note for note in manual["notes"])
        held = walk.step(
            "echo: 2 replicas, while manual",
            lambda: repo.edit("fleet.py", '"replicas": 1', '"replicas": 2'),
        )
        assert any(note.startswith("held: dev is manual") for note in held["notes"])
        resumed = walk.step("dev back to automated", lambda: repo.edit("fleet.py", MANUAL, DEV))
        assert any("resumed" in note for note in resumed["notes"])
        walk.settled("alpha")

        bumped = walk.step("bump chart echo to 0.2.0", repo.bump_echo)
        assert [(b["old"], b["new"]) for b in bumped["charts"]["versions"]] == [("0.1.0", "0.2.0")]
        pod = kube.get("apps/v1", "Deployment", "echo", "echo")["spec"]["template"]
        assert pod["metadata"]["labels"]["chart"] == "0.2.0"
        timeline.say("alpha: Deployment echo/echo runs the 0.2.0 template")


ALPHA = 'clusters=[Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443")]'
BOTH = (
    'clusters=[Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443"), '
    'Cluster(name="beta", env="dev", server="https://127.0.0.1:6444")]'
)


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_cluster_removal_does_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """Remove cluster beta (a second control plane with its own Flux, bootstrapped as ``flux
    bootstrap`` commits it: ``flux-system/`` in its folder). fleetgen removes the folder's files
    but ``flux-system/``; diff says beta's Kustomization web and HelmRelease echo ``deleted``
    (cascade_delete=True), Kustomization api ``orphaned``, the Namespaces
    ``kept-prune-disabled``. Live on beta, the root applies ``flux-system/`` alone and prunes the
    rest (kustomize-controller ``prune`` → ``deleteObjects``): the Kustomizations' ``finalize``
    and helm-controller's ``reconcileDelete`` (uninstall) act as in the app removal; alpha is
    untouched (its diff is empty)."""
    timeline = Timeline(f"Flux {release}: remove cluster beta on fleet fluxwalk")
    with git_server(tmp_path / "repos" / "served", authority) as base:
        repo = FleetRepo.create("fluxwalk", tmp_path / "repos", base)
        repo.edit("fleet.py", ALPHA, BOTH)
        clusters: dict[str, Site] = {}
        for name in ("alpha", "beta"):
            folder = f"output/flux/clusters/{name}"
            bootstrap_files(repo.work, repo.url, "main", folder)
            plane = start_control_plane(processes, name, tmp_path / name, etcd, authority)
            start_flux(processes, plane, release, tmp_path / f"flux-{name}", authority)
            logs = sorted((tmp_path / "logs").glob(f"{name}-*-controller.log"))
            clusters[name] = Site(plane.kube(), logs)
        head = repo.commit("clusters alpha and beta, bootstrapped")
        for name, site in clusters.items():
            bootstrap(site.flux, repo.url, "main", f"output/flux/clusters/{name}")
            timeline.say(f"{name}: bootstrapped on {head[:7]} (output/flux/clusters/{name})")
        walk = Walkthrough(repo, clusters, timeline)
        walk.settled("alpha")
        walk.settled("beta")

        removed = walk.step("remove cluster beta", lambda: repo.edit("fleet.py", BOTH, ALPHA))
        kept = sorted(p.name for p in (repo.work / "output/flux/clusters/beta").rglob("*"))
        assert kept == ["flux-system", "gotk-sync.yaml", "kustomization.yaml"], kept
        verdicts = {(d["kind"], d["name"]): d["workloads"] for d in removed["deletions"]}
        assert verdicts[("HelmRelease", "echo")] == "deleted"
        assert all(d["clusters"] == ["beta"] for d in removed["deletions"])
        walk.settled("beta")
        walk.settled("alpha")


GAMMA = 'clusters=[Cluster(name="gamma", env="dev", server="https://127.0.0.1:6443")]'


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_cluster_rename_does_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """Rename cluster alpha to gamma (its server stays), bootstrapped as ``flux bootstrap``
    commits it. diff reports each object of alpha's folder renamed onto gamma, applied as a
    deletion and a creation: Kustomization web and HelmRelease echo with their workloads
    ``deleted`` (cascade_delete=True), Kustomization api's ``orphaned``, the Namespaces
    ``kept-prune-disabled``; and a note on moving the root to gamma's folder. fleetgen keeps
    ``alpha/flux-system/`` alone; nothing drains (no ``--drained`` step on Flux per cluster).

    1. the rename's commit: the root, still at alpha's path, applies ``flux-system/`` alone and
       prunes the rest as diff said (kustomize-controller ``prune`` → ``deleteObjects``; the
       Kustomizations' ``finalize``, helm-controller's ``reconcileDelete``, the Namespaces'
       prune: disabled), as in the cluster removal;
    2. ``flux bootstrap --path=<gamma>`` is refused: the root is there with alpha's path (flux2
       ``ReconcileSyncConfig`` → ``kustomizationPathDiffers``, `tests.e2e.flux.bootstrap`);
    3. the root moved in Git instead, as the note says (`tests.e2e.flux.move_bootstrap`): the
       root applies its new path from alpha's ``gotk-sync.yaml`` and, reconciled again for its
       new generation, gamma's folder: the renamed objects are live with the fields diff gave
       them; api's Deployment, orphaned, and the kept Namespaces are adopted (same uid:
       kustomize-controller's server-side apply takes over the existing objects); web's and
       echo's are created anew (new uids: helm-controller installs echo again);
    4. alpha's folder removed by hand: diff says nothing changes; the root, at gamma's path,
       stays settled.
    """
    timeline = Timeline(f"Flux {release}: rename cluster alpha to gamma on fleet fluxwalk")
    alpha, gamma = "output/flux/clusters/alpha", "output/flux/clusters/gamma"
    with git_server(tmp_path / "repos" / "served", authority) as base:
        repo = FleetRepo.create("fluxwalk", tmp_path / "repos", base)
        plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        start_flux(processes, plane, release, tmp_path / "flux", authority)
        kube = plane.kube()
        logs = sorted((tmp_path / "logs").glob("alpha-*-controller.log"))
        bootstrap_files(repo.work, repo.url, "main", alpha)
        head = repo.commit("alpha, bootstrapped")
        bootstrap(kube, repo.url, "main", alpha)
        timeline.say(f"alpha: bootstrapped on {head[:7]} ({alpha})")
        walk = Walkthrough(repo, {"alpha": Site(kube, logs)}, timeline)
        walk.settled("alpha")

        renamed = walk.step("rename alpha to gamma", lambda: repo.edit("fleet.py", ALPHA, GAMMA))
        before = walk.taken["alpha"]
        verdicts = {(r["kind"], r["from"]): r["workloads"] for r in renamed["renames"]}
        assert verdicts[("Kustomization", "web")] == "deleted"
        assert verdicts[("HelmRelease", "echo")] == "deleted"
        assert verdicts[("Kustomization", "api")] == "orphaned"
        assert verdicts[("Namespace", "api")] == "kept-prune-disabled"
        assert {(r["from_cluster"], r["cluster"]) for r in renamed["renames"]} == {
            ("alpha", "gamma")
        }
        kept = sorted(p.name for p in (repo.work / alpha).rglob("*"))
        assert kept == ["flux-system", "gotk-sync.yaml", "kustomization.yaml"], kept
        record = json.loads((repo.work / "output/.fleetgen/record.json").read_text())
        assert record["draining"] == {}, record
        walk.settled("alpha")

        with pytest.raises(RuntimeError, match="would overwrite path") as refused:
            bootstrap(kube, repo.url, "main", gamma)
        timeline.say(f"flux bootstrap --path={gamma}: refused ({refused.value})")
        note = next(n for n in renamed["notes"] if n.startswith("cluster alpha renamed"))
        assert "flux bootstrap refuses" in note and f"{gamma}/flux-system" in note, note

        walk.clusters = {"gamma": walk.clusters["alpha"]}
        walk.step(
            "move the root to gamma's folder",
            lambda: move_bootstrap(repo.work, repo.url, "main", alpha, gamma),
        )
        walk.arrived("gamma", renamed, before)
        root = kube.get(KUSTOMIZE, "Kustomization", NAMESPACE, NAMESPACE)
        assert root["spec"]["path"] == f"./{gamma}", root["spec"]

        cleaned = walk.step("remove alpha's folder", lambda: shutil.rmtree(repo.work / alpha))
        assert not cleaned["deletions"] and not cleaned["renames"], cleaned
        walk.settled("gamma")
