"""Issue #41 point 5 on Flux: a tenant project leaving a cluster (docs/draining.md, the
``tenant/<project>/<cluster>`` drain), observed on the real controllers step by step on fleet
``fluxwalk`` with the tenant project team (its app shop applied as its ServiceAccount deployer);
after each commit the live objects are compared with the commit's diff (`tests.e2e.diffcheck`).
``pytest -s`` shows the timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.controlplane import ControlPlane, start_control_plane
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import bootstrap, start_flux
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube
from tests.e2e.live import Obj, Site, get
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Walkthrough

ALL, LEFT = "apps=[echo, web, api, shop]", "apps=[echo, web, api]"
SHOP = 'shop = App(name="shop", project="team", namespace="team", path="apps/web", cascade_delete='
# fleet fluxwalk with the tenant project team and its app shop (cascade) on alpha
TENANT = {
    "apps=[echo, web, api]": ALL,
    "\nfleet = Fleet(": f"\n{SHOP}True)\n\nfleet = Fleet(",
    'namespaces=["echo", "web", "api"])]': 'namespaces=["echo", "web", "api"]), '
    'Project(name="team", namespaces=["team"], service_account="deployer")]',
}
TEAM = Obj("v1", "Namespace", "", "team")
ACCOUNTS = (
    Obj("v1", "ServiceAccount", "flux-system", "deployer"),
    Obj("rbac.authorization.k8s.io/v1", "RoleBinding", "team", "fleetgen-tenant-team"),
)
DEPLOYER = "system:serviceaccount:flux-system:deployer"


def _verdicts(report: dict[str, Any]) -> dict[tuple[str, str], str | None]:
    return {(d["kind"], d["name"]): d["workloads"] for d in report["deletions"]}


def _alive(kube: Kube, obj: Obj) -> bool:
    live = get(kube, obj)
    return live is not None and "deletionTimestamp" not in live["metadata"]


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_tenant_leaves_a_cluster(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """In order, each step's live outcome against its diff:

    1. the tenant team leaves alpha (app shop removed, cascade): diff says Kustomization shop
       ``deleted``, Namespace team ``kept-prune-disabled``, and notes that
       ``tenant/team/alpha`` drains (the ServiceAccount and RoleBinding kept, annotated). Live:
       the root prunes Kustomization shop and applies the kept accounts; its ``finalize`` finds
       the account (``impersonation.CanImpersonate``: a Get of the ServiceAccount), deletes the
       inventory (``deleteObjects``) through ``GetClient``'s client, which impersonates
       ``system:serviceaccount:flux-system:deployer`` (fluxcd/pkg runtime/client
       ``Impersonator``): the API server's audit log names that user on each deletion; the
       accounts and Namespace team stay.
    2. ``build --drained tenant/team/alpha``: diff says the ServiceAccount and RoleBinding go;
       live, the root prunes them (``prune`` → ``deleteObjects``), Namespace team stays (prune:
       disabled).
    3. orphan mode: shop back on alpha with ``cascade_delete=False``, then removed again: diff
       says shop ``orphaned``, and ``tenant/team/alpha`` drains again (fleetgen keeps what
       removals need as soon as any placement of the fleet cascades, here echo and web:
       docs/draining.md), so the accounts stay; live, the root prunes shop, whose ``finalize``
       deletes nothing (``deletionPolicy: Orphan``: ``finalizerShouldDeleteResources`` false):
       the workloads stay; ``--drained tenant/team/alpha`` then prunes the accounts, and the
       workloads and Namespace team still stay.
    """
    timeline = Timeline(f"Flux {release}: tenant team leaves alpha on fleet fluxwalk")
    with git_server(tmp_path / "repos" / "served", authority) as base:
        plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        repo = FleetRepo.create("fluxwalk", tmp_path / "repos", base)
        for old, new in TENANT.items():
            repo.edit("fleet.py", old, new)
        head = repo.commit("tenant team with app shop on alpha")
        start_flux(processes, plane, release, tmp_path / "flux", authority)
        kube = plane.kube()
        bootstrap(kube, repo.url, "main", "output/flux/clusters/alpha")
        timeline.say(f"alpha: bootstrapped on {head[:7]} (output/flux/clusters/alpha)")
        logs = sorted((tmp_path / "logs").glob("alpha-*-controller.log"))
        walk = Walkthrough(repo, {"alpha": Site(kube, logs)}, timeline)
        walk.settled("alpha")
        shop = walk.placement("shop", "alpha", walk.snapshot())
        assert {o.kind for o in shop} == {"Deployment", "ConfigMap"}, shop

        left = walk.step("tenant team leaves alpha (app shop removed)", lambda: _remove(repo))
        verdicts = _verdicts(left)
        assert verdicts[("Kustomization", "shop")] == "deleted"
        assert verdicts[("Namespace", "team")] == "kept-prune-disabled"
        assert any(n.startswith("tenant/team/alpha drains:") for n in left["notes"]), left["notes"]
        for obj in (TEAM, *ACCOUNTS):
            assert _alive(kube, obj), f"{obj} is kept while tenant/team/alpha drains"
        _deleted_as_tenant(plane, shop, timeline)
        timeline.say("alpha: Namespace team and the accounts stay while tenant/team/alpha drains")
        walk.settled("alpha")

        drained = walk.step(
            "tenant/team/alpha drained", lambda: None, "--drained", "tenant/team/alpha"
        )
        assert _verdicts(drained) == {
            ("ServiceAccount", "deployer"): None,
            ("RoleBinding", "fleetgen-tenant-team"): None,
        }
        assert all(get(kube, obj) is None for obj in ACCOUNTS)  # the check waited for it
        assert _alive(kube, TEAM), "Namespace team: prune disabled"
        timeline.say("alpha: accounts pruned, Namespace team stays")
        walk.settled("alpha")

        _orphaned(walk, repo, kube)


def _remove(repo: FleetRepo) -> None:
    repo.edit("fleet.py", ALL, LEFT)


def _deleted_as_tenant(plane: ControlPlane, shop: list[Obj], timeline: Timeline) -> None:
    """Each of shop's workloads was deleted by the controllers' user impersonating the tenant's
    account (the diff check waited until they were gone)."""
    for obj in shop:
        deleters = plane.deleters(f"{obj.kind.lower()}s", obj.namespace, obj.name)
        assert deleters == [f"admin as {DEPLOYER}"], (str(obj), deleters)
        timeline.say(f"alpha:   audit: {obj} deleted by {deleters[0]}")


def _orphaned(walk: Walkthrough, repo: FleetRepo, kube: Kube) -> None:
    """Step 3 of the test: shop back in orphan mode, then removed again."""

    def back() -> None:
        repo.edit("fleet.py", f"{SHOP}True", f"{SHOP}False")
        repo.edit("fleet.py", LEFT, ALL)

    walk.step("shop back on alpha, orphan mode", back)
    walk.settled("alpha")
    shop = walk.placement("shop", "alpha", walk.snapshot())
    assert shop, "shop applies its workloads again"
    gone = walk.step("tenant team leaves alpha (orphan)", lambda: _remove(repo))
    assert _verdicts(gone) == {
        ("Kustomization", "shop"): "orphaned",
        ("Namespace", "team"): "kept-prune-disabled",
    }, _verdicts(gone)
    # the record holds the accounts as soon as any placement of the fleet cascades (echo and
    # web do): `fleetgen.pipeline.stages` passes ``cascades_anywhere`` to ``settle``
    assert any(n.startswith("tenant/team/alpha drains:") for n in gone["notes"]), gone["notes"]
    for obj in (TEAM, *ACCOUNTS, *shop):
        assert _alive(kube, obj), f"{obj}: kept"
    walk.settled("alpha")
    drained = walk.step(
        "tenant/team/alpha drained (orphan)", lambda: None, "--drained", "tenant/team/alpha"
    )
    assert set(_verdicts(drained)) == {
        ("ServiceAccount", "deployer"),
        ("RoleBinding", "fleetgen-tenant-team"),
    }
    for obj in (TEAM, *shop):
        assert _alive(kube, obj), f"{obj}: kept"
    walk.timeline.say("alpha: accounts pruned; shop's workloads and Namespace team stay")
    walk.settled("alpha")
