"""A tenant's chart app on a Flux hub's spoke: a HelmRelease that runs as the tenant through the
spoke's kubeConfig, and cannot wait for ``namespaces.fleetgen.io`` (fleetgen.emit.flux.hub).

What the controllers do, from their source (helm-controller v1.4.5 = Flux 2.7, the floor, to
v1.6.3 = Flux 2.9, the newest shipped CRDs):

- ``internal/controller/helmrelease_controller.go`` ``checkDependencies`` gets every
  ``dependsOn`` entry as a ``v2.HelmRelease``: a HelmRelease cannot wait for a Kustomization;
- ``buildRESTClientGetter`` impersonates ``serviceAccountName`` of the HelmRelease's namespace
  (``kube.WithImpersonate``) on the kubeConfig's cluster, and ``reconcileRelease`` builds Helm's
  storage (Secrets of ``storageNamespace``) from that getter;
- ``internal/reconcile/state.go`` ``DetermineReleaseState`` reads the release history first
  (``internal/action/verify.go`` ``LastRelease``; Helm ``pkg/storage/driver/secrets.go``
  ``Secrets.Query`` lists Secrets): refused, that is a plain error, which ``reconcileRelease``
  returns and controller-runtime retries with the rate limiter's exponential backoff (fluxcd/pkg
  ``runtime/controller`` ``GetRateLimiter``: 750ms to 15m) — not an install failure;
- ``internal/reconcile/install.go`` ``Install.Reconcile`` counts a failed install only when a
  release was stored; only counted failures exhaust ``install.remediation.retries``
  (``api/v2`` ``InstallRemediation.RetriesExhausted``: failures > retries, so after one with
  none set), after which ``AtomicRelease.Reconcile`` marks Stalled ``RetriesExceeded`` and the
  controller stops requeueing (``reconcile.TerminalError``) until the spec, chart or values
  change.

Moving the HelmRelease behind a hub-side Kustomization that waits would hand existing releases to
a new owner: kustomize-controller's ``prune`` (``internal/controller/kustomization_controller.go``)
deletes what left the old owner's build and still carries its owner labels (fluxcd/pkg
``ssa`` ``DeleteAll`` with ``Inclusions``), and a deleted HelmRelease is uninstalled
(helm-controller ``reconcileDelete``).

So the release is safe without waiting as long as the tenant can neither read nor store a
release before ``namespaces.fleetgen.io`` has applied: its storage is in the app's namespace,
which that Kustomization creates (as the controller) together with the only RoleBinding of the
impersonated account there. These tests pin that, and the objects' validity on both releases.
"""

from __future__ import annotations

from typing import Any

import pytest

from fleetgen.emit.flux.hub import NAMESPACES_KUSTOMIZATION
from fleetgen.manifests.yamlio import load_all
from fleetgen.tools.kustomize import Kustomize, build as kustomize_build
from fleetgen.validate import schemas as crd
from tests.crd_schemas import strict_errors
from tests.emit.test_flux import HUB_FLEET, Built, build, cel_errors

ACCOUNT = "shop-deployer"
TENANT_FLEET = (
    HUB_FLEET.replace("GitSource, IgnoreDifference,", "GitSource, HelmChart, IgnoreDifference,")
    .replace(
        'Project(name="orders", namespaces=["orders"])',
        'Project(name="orders", namespaces=["orders"]),\n'
        f'              Project(name="shop", namespaces=["shop"], '
        f'service_account="{ACCOUNT}")',
    )
    .replace(
        "    apps=[\n",
        "    apps=[\n"
        '        App(name="status-page", project="shop", namespace="shop",\n'
        '            chart=HelmChart(path="charts/status-page"),\n'
        '            targets=Selector(envs=["staging", "prod"])),\n',
    )
)


@pytest.fixture(scope="module")
def tenant_hub(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory, "hub-tenant-charts", TENANT_FLEET)


def _spoke_objects(built: Built, spoke: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, name) -> object of the spoke's file on the hub."""
    text = (built.out / f"flux/clusters/mgmt/spokes/{spoke}.yaml").read_text()
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in load_all(text)}


def _spokes(built: Built) -> list[str]:
    return sorted({p.cluster for p in built.plan.placements if p.app == "status-page"})


def test_every_object_validates_on_the_newest_and_the_floor_flux(tenant_hub: Built) -> None:
    assert {"Flux 2.7", "Flux 2.9"} <= {str(s.name) for s in crd.shipped()}  # both checked
    found = 0
    for path, doc in tenant_hub.flux_objects():
        assert strict_errors(doc) == [], (path, doc["metadata"])
        assert cel_errors(doc) == [], (path, doc["metadata"])
        found += doc["kind"] == "HelmRelease"
    assert found == len(_spokes(tenant_hub)) > 1


def test_the_release_reads_and_stores_only_where_namespaces_fleetgen_io_lets_the_tenant(
    tenant_hub: Built, kustomize: Kustomize
) -> None:
    """Same cluster, same identity, same namespace: until ``namespaces.fleetgen.io`` (applied
    as the controller: no serviceAccountName) has created the app's namespace and the account's
    RoleBinding in it, helm-controller's first storage lookup is refused and retried, and no
    release can be stored, so no install failure is counted and none stalls the release."""
    for spoke in _spokes(tenant_hub):
        objects = _spoke_objects(tenant_hub, spoke)
        namespaces = objects[("Kustomization", NAMESPACES_KUSTOMIZATION)]["spec"]
        release = objects[("HelmRelease", "status-page")]["spec"]
        assert "serviceAccountName" not in namespaces
        assert release["kubeConfig"] == namespaces["kubeConfig"]
        assert release["serviceAccountName"] == ACCOUNT
        assert release["storageNamespace"] == release["targetNamespace"] == "shop"
        assert "createNamespace" not in release["install"]  # the tenant may not create it
        assert "dependsOn" not in release  # a HelmRelease's names HelmReleases only
        built = list(load_all(kustomize_build(tenant_hub.repo / namespaces["path"], kustomize)))
        assert {"kind": "Namespace", "name": "shop"} in [
            {"kind": d["kind"], "name": d["metadata"]["name"]} for d in built
        ]
        bindings = [d for d in built if d["kind"] == "RoleBinding"]
        assert [b["metadata"]["namespace"] for b in bindings] == ["shop"]
        # kube.WithImpersonate(serviceAccountName, HelmRelease namespace): the spoke's name.
        assert bindings[0]["subjects"] == [
            {"kind": "ServiceAccount", "name": ACCOUNT, "namespace": spoke}
        ]


def test_a_release_with_no_sync_retry_gets_no_install_retries_or_strategy(
    tenant_hub: Built,
) -> None:
    """The first install need not be retried: the refusals before the RoleBinding exists are
    not install failures (above). ``install`` stays what any chart app gets."""
    for spoke in _spokes(tenant_hub):
        install = _spoke_objects(tenant_hub, spoke)[("HelmRelease", "status-page")]["spec"][
            "install"
        ]
        assert install == {"crds": "Create"}
