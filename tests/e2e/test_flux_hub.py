"""Issue #41 point 5 on a Flux hub: the hub's Flux applies to a spoke (a second control plane)
through the kubeConfig Secrets fleetgen writes (ExternalSecrets, filled by External Secrets
from a fake store holding the spoke's kubeconfig as a user keeps it); the spoke's removal and
its ``--drained`` confirmation observed against ``fleetgen diff`` (`tests.e2e.diffcheck`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.controlplane import start_control_plane
from tests.e2e.externalsecrets import fake_store, flux_kubeconfig, start_external_secrets
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import bootstrap, start_flux
from tests.e2e.gitserver import git_server
from tests.e2e.live import Site
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Walkthrough

ALPHA = 'clusters=[Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443")]'
SPOKE = (
    'Cluster(name="beta", env="dev", server="SPOKE", '
    'credentials=ExternalSecretRef(store="spokes", key="beta"))'
)
HUB = 'flux=FluxOptions(mode="hub", hub="alpha")'
IMPORTS = "from fleetgen import App,"


def _images(site: Site) -> dict[str, str]:
    """Each Deployment's first image on the site's workloads' API server, by namespace/name."""
    found = {}
    for namespace in ("echo", "web", "api"):
        for doc in site.workloads.list("apps/v1", "Deployment", namespace):
            container = doc["spec"]["template"]["spec"]["containers"][0]
            found[f"{namespace}/{doc['metadata']['name']}"] = container["image"]
    return found


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_hub_applies_to_a_spoke_and_its_removal_does_what_diff_says(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """Hub alpha (Flux, External Secrets) and spoke beta (a control plane alone). Steady state:
    the hub's Kustomizations and HelmRelease in namespace beta apply on the spoke through
    ``kubeConfig.secretRef`` (kustomize-controller and helm-controller build their client from
    the Secret: fluxcd/pkg ``runtime/client`` ``WithKubeConfig``; kustomize-controller
    ``reconcile`` → ``getClientAndPoller``). Then:

    1. remove beta: diff says web and echo ``deleted`` (cascade_delete=True), api ``orphaned``,
       and beta drains: the kubeconfig ExternalSecret, Namespace beta on the hub, the
       ``namespaces.fleetgen.io`` Kustomization and the spoke's Namespaces are kept, annotated
       ``fleetgen.io/draining``; live, the hub's root prunes the Kustomizations and the
       HelmRelease, whose finalizers delete through the kept kubeconfig on the spoke
       (``finalize`` → ``deleteObjects``, helm-controller ``reconcileDelete`` uninstalling)
       or orphan (``deletionPolicy: Orphan``);
    2. ``fleetgen build --drained cluster/beta``: what was kept goes as diff says; the
       ``namespaces.fleetgen.io`` Kustomization, ``deletionPolicy: Orphan``, leaves the spoke's
       Namespaces (``finalizerShouldDeleteResources`` false, no client of the spoke needed).
    """
    timeline = Timeline(f"Flux {release}: hub alpha, spoke beta on fleet fluxwalk")
    with git_server(tmp_path / "repos" / "served", authority) as base:
        hub = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        spoke = start_control_plane(processes, "beta", tmp_path / "beta", etcd, authority)
        start_external_secrets(processes, hub)
        fake_store(hub, "spokes", {"beta": flux_kubeconfig(spoke)})
        start_flux(processes, hub, release, tmp_path / "flux", authority)
        repo = FleetRepo.create("fluxwalk", tmp_path / "repos", base)
        repo.edit(
            "fleet.py",
            IMPORTS,
            "from fleetgen import ExternalSecretRef, FluxOptions, App,",
        )
        both = f"{ALPHA[:-1]}, {SPOKE.replace('SPOKE', spoke.server)}],\n    {HUB}"
        repo.edit("fleet.py", ALPHA, both)
        head = repo.commit("hub alpha, spoke beta")
        kube = hub.kube()
        bootstrap(kube, repo.url, "main", "output/flux/clusters/alpha")
        timeline.say(f"alpha: bootstrapped on {head[:7]} (the hub)")
        logs = sorted((tmp_path / "logs").glob("alpha-*-controller.log"))
        beta = Site(kube, logs, "beta", spoke.kube())
        walk = Walkthrough(repo, {"alpha": Site(kube, logs), "beta": beta}, timeline)
        walk.settled("alpha")
        walk.settled("beta")
        images = _images(beta)
        assert images == {
            "echo/echo": "registry.invalid/echo:1.0.0",
            "web/web": "registry.invalid/web:1.0.0",
            "api/api": "registry.invalid/api:1.0.0",
        }, images
        timeline.say(f"beta: Deployments applied by the hub: {images}")

        removed = walk.step(
            "remove spoke beta", lambda: repo.edit("fleet.py", both, f"{ALPHA[:-1]}],\n    {HUB}")
        )
        verdicts = {(d["kind"], d["name"]): d["workloads"] for d in removed["deletions"]}
        assert verdicts == {
            ("Kustomization", "web"): "deleted",
            ("HelmRelease", "echo"): "deleted",
            ("Kustomization", "api"): "orphaned",
        }, verdicts
        assert any(note.startswith("cluster/beta drains") for note in removed["notes"])
        walk.settled("beta")

        drained = walk.step("beta drained", lambda: None, "--drained", "cluster/beta")
        timeline.say(
            f"drained: {[(d['kind'], d['name'], d['workloads']) for d in drained['deletions']]}"
        )
        walk.settled("alpha")
        assert sorted(_images(beta)) == ["api/api"]
