"""Issue #41 point 5: placements moving between Argo CD (v3.6.2, on mgmt) and Flux (2.9, on
alpha), observed on the real controllers on the loopback fleet ``engines``; after each commit
both engines' live objects are compared with the commit's diff, and each moved placement's
workloads with its ``workloads`` verdict (`tests.e2e.bothengines`). A cascading placement takes
the two commits a build asks for (`fleetgen.settle.enginemoves`): orphaned where it runs, then
moved (cascading again): its workloads keep their uid. ``pytest -s`` shows the timeline, with
each time a moving workload goes or comes back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.e2e.argocd import NAMESPACE, start_argocd
from tests.e2e.argowalkthrough import ArgoWalkthrough
from tests.e2e.bothengines import BothEngines
from tests.e2e.controlplane import start_control_plane
from tests.e2e.externalsecrets import argocd_cluster_config, fake_store, start_external_secrets
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import bootstrap, start_flux
from tests.e2e.gitserver import git_server
from tests.e2e.live import Site
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Walkthrough

WEB_ON_ARGOCD = 'path="apps/web", cascade_delete=True)'
WEB_ON_FLUX = 'path="apps/web", cascade_delete=True, engine="flux")'
WEB_ORPHAN = 'path="apps/web", cascade_delete=False)'
WEB_ORPHAN_ON_FLUX = 'path="apps/web", cascade_delete=False, engine="flux")'
API_ON_FLUX = '    engine="flux",\n)'
API_ON_ARGOCD = '    engine="argocd",\n)'
ALPHA = 'Cluster(name="alpha", env="prod",'
ALPHA_ON_FLUX = 'Cluster(name="alpha", env="prod", engine="flux",'


def _moved(report: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {m["app"]: (m["from"], m["to"], m["workloads"]) for m in report["placements"]["moved"]}


@contextmanager
def _walk(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, title: str
) -> Iterator[BothEngines]:
    """Argo CD on mgmt targeting alpha, Flux bootstrapped on alpha, fleet ``engines`` settled
    at its first commit on both."""
    timeline = Timeline(f"Argo CD 3.6.2 and Flux 2.9: {title} on fleet engines")
    with git_server(tmp_path / "repos" / "served", authority) as base:
        mgmt_plane = start_control_plane(processes, "mgmt", tmp_path / "mgmt", etcd, authority)
        alpha_plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        repo = FleetRepo.create(
            "engines", tmp_path / "repos", base, {"SERVER_ALPHA": alpha_plane.server}
        )
        start_external_secrets(processes, mgmt_plane)
        fake_store(mgmt_plane, "e2e", {"clusters/alpha": argocd_cluster_config(alpha_plane)})
        start_argocd(processes, mgmt_plane, tmp_path / "argocd", authority)
        start_flux(processes, alpha_plane, "2.9", tmp_path / "flux", authority)
        mgmt, alpha = mgmt_plane.kube(), alpha_plane.kube()
        bootstrap_yaml = repo.work / "output" / "argocd" / "bootstrap.yaml"
        for doc in load_all(bootstrap_yaml.read_text()):
            mgmt.apply(doc, namespace=NAMESPACE)
        bootstrap(alpha, repo.url, "main", "output/flux/clusters/alpha")
        timeline.say(
            f"mgmt: bootstrap.yaml applied, alpha: Flux bootstrapped (output/flux/clusters/alpha)"
            f" at {repo.head()[:7]}"
        )
        logs = sorted((tmp_path / "logs").glob("*.log"))
        argocd = ArgoWalkthrough(repo, mgmt, {"alpha": alpha}, logs, timeline, 300)
        flux = Walkthrough(repo, {"alpha": Site(alpha, logs)}, timeline, 300)
        walk = BothEngines({"argocd": argocd, "flux": flux}, {"alpha": alpha}, timeline)
        walk.settle()
        argocd.timeout = flux.timeout = 180
        yield walk


def _orphan(walk: BothEngines, where: str, cascading: str, orphan: str) -> None:
    """The first of a cascading move's two commits: web orphaned where it runs (``where``),
    confirmed by both engines (the Application loses its finalizer: the ApplicationSet
    controller's ``createOrUpdateInCluster``; the Kustomization turns ``deletionPolicy:
    Orphan``)."""
    repo = walk.repo
    report = walk.step(f"web orphaned on {where}", lambda: repo.edit("fleet.py", cascading, orphan))
    assert report["placements"]["moved"] == []
    walk.settle()


def _drain(walk: BothEngines) -> None:
    """``fleetgen build --drained`` for each thing the record says drains, a commit each."""
    record = json.loads((walk.repo.work / "output/.fleetgen/record.json").read_text())
    for name in sorted(record.get("draining", {})):
        walk.step(f"{name} drained", lambda: None, "--drained", name)
        walk.settle()


def test_apps_move_between_engines_both_ways(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """web (cascade_delete=True) Argo CD → Flux and api (orphan) Flux → Argo CD, then both back;
    web orphaned in a commit before each move (and cascading again with it), as the build
    demands. diff: each a move, not a deletion, ``orphaned`` (the old engine lets go, the new
    one adopts: the same uid). Live, what it relies on:

    - leaving Argo CD: the root prunes the ApplicationSet (``ServerSideApply`` sync, prune),
      whose Application goes with it (ownerReference, Kubernetes' garbage collector); with the
      resources finalizer ``finalizeApplicationDeletion`` deletes what
      ``getPermittedAppLiveObjects`` finds tracked by the Application (its tracking
      annotation, which kustomize-controller's server-side apply leaves in place), else, with
      ``preserveResourcesOnDeletion``, the ApplicationSet controller drops the finalizer and
      nothing goes;
    - leaving Flux: the root's prune deletes the Kustomization, whose ``finalize`` deletes its
      inventory only where ``finalizerShouldDeleteResources`` (``deletionPolicy: Delete``);
    - arriving on Flux: the Kustomization applies server-side (``ssa`` ``ApplyAllStaged``),
      taking over what is there (same uid) and, every ``interval``, recreating what is gone;
    - arriving on Argo CD: the Application's automated sync applies (``autoSync``), once per
      revision: with ``selfHeal: false`` (fleetgen's default) nothing re-creates an object
      deleted after that sync until the next commit.

    The two engines act on the same commit independently: whether the old owner's deletion
    lands before or after the new owner's apply is a race the watch shows on the timeline;
    the test asserts the end state the verdict promises (the same uid, managed by the new
    engine), which fails if the old owner deletes, in either order.
    Seen before the build refused the one-commit cascade move: to Flux, kustomize-controller
    applied web first ("configured") and Argo CD's finalizer deleted it a second later
    ("Deleting application's resources with Foreground propagation policy"): web was down
    until the Kustomization's next ``interval`` (1m) created it anew; back to Argo CD, Flux's
    finalizer deleted first and the Application's sync created it ~5 s later.
    """
    with _walk(tmp_path, processes, authority, etcd, "apps moving") as walk:
        repo = walk.repo
        _orphan(walk, "Argo CD", WEB_ON_ARGOCD, WEB_ORPHAN)
        there = walk.step(
            "web to Flux (cascading again), api to Argo CD (orphan)",
            lambda: (
                repo.edit("fleet.py", WEB_ORPHAN, WEB_ON_FLUX),
                repo.edit("fleet.py", API_ON_FLUX, API_ON_ARGOCD),
            ),
        )
        assert _moved(there) == {
            "web": ("argocd", "flux", "orphaned"),
            "api": ("flux", "argocd", "orphaned"),
        }
        assert there["deletions"] == [], there["deletions"]
        walk.settle()
        _drain(walk)

        _orphan(walk, "Flux", WEB_ON_FLUX, WEB_ORPHAN_ON_FLUX)
        back = walk.step(
            "web back to Argo CD (cascading again), api back to Flux (orphan)",
            lambda: (
                repo.edit("fleet.py", WEB_ORPHAN_ON_FLUX, WEB_ON_ARGOCD),
                repo.edit("fleet.py", API_ON_ARGOCD, API_ON_FLUX),
            ),
        )
        assert _moved(back) == {
            "web": ("flux", "argocd", "orphaned"),
            "api": ("argocd", "flux", "orphaned"),
        }
        walk.settle()
        _drain(walk)


def test_a_cluster_moves_between_engines_both_ways(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """alpha to Flux (``Cluster(engine="flux")``): its placements that name no engine of their
    own move (echo, a chart app, orphan; web, cascade, orphaned in a commit before each move
    and cascading again with it), api stays on Flux; then back. What each
    move relies on: as in `test_apps_move_between_engines_both_ways`; for the chart app, Flux's
    HelmRelease installs it with Helm (helm-controller ``reconcileRelease`` → install), which
    adopts objects a ``helm template`` of Argo CD left only where they carry Helm's ownership
    metadata; Argo CD renders it with ``helm template`` (repo-server ``helmTemplate``) and
    applies it like any manifest."""
    with _walk(tmp_path, processes, authority, etcd, "a cluster moving") as walk:
        repo = walk.repo
        _orphan(walk, "Argo CD", WEB_ON_ARGOCD, WEB_ORPHAN)
        there = walk.step(
            "alpha to Flux, web cascading again",
            lambda: (
                repo.edit("fleet.py", ALPHA, ALPHA_ON_FLUX),
                repo.edit("fleet.py", WEB_ORPHAN, WEB_ON_ARGOCD),
            ),
        )
        assert _moved(there) == {
            "echo": ("argocd", "flux", "orphaned"),
            "web": ("argocd", "flux", "orphaned"),
        }
        walk.settle()
        _drain(walk)
        _orphan(walk, "Flux", WEB_ON_ARGOCD, WEB_ORPHAN)
        back = walk.step(
            "alpha back to Argo CD, web cascading again",
            lambda: (
                repo.edit("fleet.py", ALPHA_ON_FLUX, ALPHA),
                repo.edit("fleet.py", WEB_ORPHAN, WEB_ON_ARGOCD),
            ),
        )
        assert _moved(back) == {
            "echo": ("flux", "argocd", "orphaned"),
            "web": ("flux", "argocd", "orphaned"),
        }
        walk.settle()
        _drain(walk)
