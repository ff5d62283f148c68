"""Placements changing engine (`App`/`Cluster(engine=...)`) on the loopback fleet ``engines`` of
the end-to-end tests: a move whose old engine deletes the workloads on leaving is refused until
the placement orphans (`fleetgen.settle.enginemoves`); an orphan move is one commit. Walked
through in real Git repositories with the real CLI; tests/e2e/test_engine_moves.py runs the same
moves on Argo CD 3.6.2 and Flux 2.9."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.diff.test_diff import commit, edit, git
from tests.helpers import case_copy, run_fleetgen

FLEET = Path(__file__).parent / "e2e" / "fleets" / "engines"
WEB = 'path="apps/web", cascade_delete=True)'
WEB_ORPHAN = 'path="apps/web", cascade_delete=False)'
API = 'path="apps/api", cascade_delete=False,'
ALPHA = 'Cluster(name="alpha", env="prod",'
WEB_NAME, API_NAME = "web = App(", "api = App("
ECHO = 'values={"replicas": 1},'


def built_repo(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """A Git repository of the fleet ``engines`` (edited), built and committed."""
    repo = case_copy(
        FLEET,
        tmp_path / "repo",
        ("GIT_URL", "https://git.example.com/fleet.git"),
        ("SERVER_ALPHA", "https://alpha.example.com"),
        *edits,
    )
    git(repo, "init", "-q", "-b", "main")
    assert run_fleetgen(repo, "build").returncode == 0
    commit(repo, "fleet")
    return repo


def line_of(repo: Path, text: str) -> int:
    lines = (repo / "fleet.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def refused(repo: Path) -> str:
    """The stderr of a build that must fail, leaving the output as it was."""
    before = {p: p.read_bytes() for p in (repo / "output").rglob("*") if p.is_file()}
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert {p: p.read_bytes() for p in (repo / "output").rglob("*") if p.is_file()} == before
    return ran.stderr


def moved(repo: Path) -> dict[str, tuple[str, str, str]]:
    """The moves ``fleetgen diff --format json`` reports from the last commit."""
    ran = run_fleetgen(repo, "diff", "--format", "json")
    assert ran.returncode == 1, ran.stderr
    report: dict[str, Any] = json.loads(ran.stdout)
    return {m["app"]: (m["from"], m["to"], m["workloads"]) for m in report["placements"]["moved"]}


def docs(repo: Path, path: str) -> list[dict[str, Any]]:
    return [d for d in load_all((repo / "output" / path).read_text()) if isinstance(d, dict)]


def test_a_cascading_app_leaves_argo_cd_only_after_it_orphans(tmp_path: Path) -> None:
    """Argo CD's resources finalizer deletes what the Application still tracks (argo-cd
    ``finalizeApplicationDeletion``), which kustomize-controller's server-side apply leaves
    tracked (its annotation stays): refused. Orphaned first, the ApplicationSet controller
    drops the finalizer from the live Application (``createOrUpdateInCluster``), so the move
    is safe, and may cascade again on Flux."""
    repo = built_repo(tmp_path)
    edit(repo / "fleet.py", WEB, WEB.replace(")", ', engine="flux")'))
    stderr = refused(repo)
    assert stderr.startswith(
        f"fleet.py:{line_of(repo, WEB_NAME)}: app 'web': web on alpha moves from Argo CD "
        "to Flux while Argo CD deletes the workloads of what leaves it (cascade_delete=True)"
    )
    assert "First set cascade_delete=False for them where they run now" in stderr
    assert stderr.count("fleet.py:") == 1
    # step 1: orphan where it runs
    edit(repo / "fleet.py", WEB.replace(")", ', engine="flux")'), WEB_ORPHAN)
    assert run_fleetgen(repo, "build").returncode == 0
    template = docs(repo, "argocd/applicationsets/web.yaml")[0]["spec"]["template"]
    assert "finalizers" not in template["metadata"]
    commit(repo, "orphan web")
    # step 2: move, cascading again on Flux
    edit(repo / "fleet.py", WEB_ORPHAN, WEB.replace(")", ', engine="flux")'))
    assert run_fleetgen(repo, "build").returncode == 0
    assert moved(repo) == {"web": ("argocd", "flux", "orphaned")}
    web = next(
        d
        for d in docs(repo, "flux/clusters/alpha/kustomizations.yaml")
        if d["metadata"]["name"] == "web"
    )
    assert web["spec"]["deletionPolicy"] == "Delete"


def test_a_cascading_app_leaves_flux_only_after_it_orphans(tmp_path: Path) -> None:
    """The Kustomization's finalizer deletes its inventory where
    ``finalizerShouldDeleteResources`` (kustomize-controller: ``deletionPolicy: Delete``), and
    Argo CD's automated sync applies once per revision (argo-cd ``autoSync``; fleetgen writes
    ``selfHeal: false``): deleted after that sync, nothing recreates the workloads. Refused;
    with ``deletionPolicy: Orphan`` applied first, the move is one commit."""
    cascading = API.replace("False", "True")
    repo = built_repo(tmp_path, (API, cascading))
    edit(repo / "fleet.py", '    engine="flux",\n)', '    engine="argocd",\n)')
    stderr = refused(repo)
    assert stderr.startswith(
        f"fleet.py:{line_of(repo, API_NAME)}: app 'api': api on alpha moves from Flux to "
        "Argo CD while Flux deletes the workloads of what leaves it"
    )
    assert "so the Kustomizations turn deletionPolicy: Orphan" in stderr
    edit(repo / "fleet.py", '    engine="argocd",\n)', '    engine="flux",\n)')
    edit(repo / "fleet.py", cascading, API)
    assert run_fleetgen(repo, "build").returncode == 0
    api = next(
        d
        for d in docs(repo, "flux/clusters/alpha/kustomizations.yaml")
        if d["metadata"]["name"] == "api"
    )
    assert api["spec"]["deletionPolicy"] == "Orphan"
    commit(repo, "orphan api")
    edit(repo / "fleet.py", '    engine="flux",\n)', '    engine="argocd",\n)')
    assert run_fleetgen(repo, "build").returncode == 0
    assert moved(repo) == {"api": ("flux", "argocd", "orphaned")}


def test_a_cluster_moving_engines_is_refused_for_its_cascading_placements(
    tmp_path: Path,
) -> None:
    """``Cluster(engine=...)`` moves every placement on it that names no engine of its own:
    one problem at the Cluster, naming the cascading ones only (web; echo orphans: its
    ApplicationSet has no finalizer). Back from Flux, a cascading chart app's HelmRelease is
    uninstalled (helm-controller ``reconcileDelete``) unless the keep post-renderer annotated
    its objects: refused too."""
    repo = built_repo(tmp_path)
    edit(repo / "fleet.py", ALPHA, ALPHA + ' engine="flux",')
    stderr = refused(repo)
    assert stderr == (
        f"fleet.py:{line_of(repo, ALPHA)}: cluster 'alpha': web on alpha moves from Argo CD "
        "to Flux while Argo CD deletes the workloads of what leaves it (cascade_delete=True): "
        "both engines act on the commit on their own, so Argo CD would delete what Flux takes "
        "over. First set cascade_delete=False for them where they run now "
        "(App(cascade_delete=False) or their Environment's), build, commit and let Argo CD "
        "sync, so the Applications lose their resources finalizer; then move them "
        "(cascade_delete=True may come back with the move)\n1 problem(s); nothing was written\n"
    )
    # web orphaned first; echo (orphan on Argo CD) may cascade with the move
    edit(repo / "fleet.py", ALPHA + ' engine="flux",', ALPHA)
    edit(repo / "fleet.py", WEB, WEB_ORPHAN)
    assert run_fleetgen(repo, "build").returncode == 0
    commit(repo, "orphan web")
    edit(repo / "fleet.py", ALPHA, ALPHA + ' engine="flux",')
    edit(repo / "fleet.py", ECHO, ECHO + " cascade_delete=True,")
    assert run_fleetgen(repo, "build").returncode == 0
    assert moved(repo) == {
        "echo": ("argocd", "flux", "orphaned"),
        "web": ("argocd", "flux", "orphaned"),
    }
    commit(repo, "alpha on Flux")
    # back: echo's HelmRelease (no keep post-renderer) would uninstall; with the cluster's
    # engine= gone its Environment names the engine now, and the refusal is reported there
    edit(repo / "fleet.py", ALPHA + ' engine="flux",', ALPHA)
    prod = line_of(repo, 'Environment(name="prod"')
    assert refused(repo).startswith(
        f"fleet.py:{prod}: environment 'prod': echo on alpha moves from Flux to "
        "Argo CD while Flux deletes the workloads of what leaves it"
    )


def test_an_orphan_move_is_one_commit(tmp_path: Path) -> None:
    """Orphan on both sides: Argo CD's Application goes without its finalizer
    (``preserveResourcesOnDeletion``) and Flux's Kustomization with ``deletionPolicy: Orphan``
    (``finalizerShouldDeleteResources`` false): the other engine adopts the same objects."""
    repo = built_repo(tmp_path, (WEB, WEB_ORPHAN))
    edit(repo / "fleet.py", WEB_ORPHAN, WEB_ORPHAN.replace(")", ', engine="flux")'))
    edit(repo / "fleet.py", '    engine="flux",\n)', '    engine="argocd",\n)')
    assert run_fleetgen(repo, "build").returncode == 0
    assert moved(repo) == {
        "web": ("argocd", "flux", "orphaned"),
        "api": ("flux", "argocd", "orphaned"),
    }
    ran = run_fleetgen(repo, "diff")
    assert (
        "web on alpha (prod): argocd → flux; argocd orphans the workloads, flux adopts them"
        in ran.stdout
    )
