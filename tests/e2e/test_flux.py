"""Flux itself reconciles fleetgen's output: source-, kustomize- and helm-controller built from
their modules, against a real API server, reading the fleet from a Git server on loopback."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.controlplane import ControlPlane, start_control_plane
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import NAMESPACE, bootstrap, ready, reconcile, start_flux
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for

HELM = "helm.toolkit.fluxcd.io/v2"
KUSTOMIZE = "kustomize.toolkit.fluxcd.io/v1"
SOURCE = "source.toolkit.fluxcd.io/v1"


def _image(kube: Kube, namespace: str, name: str) -> str:
    deployment = kube.get("apps/v1", "Deployment", name, namespace)
    return str(deployment["spec"]["template"]["spec"]["containers"][0]["image"])


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _applied(obj: dict[str, Any], manager: str) -> datetime:
    """When ``manager`` last wrote ``obj`` (its managedFields entry)."""
    times = [_time(m["time"]) for m in obj["metadata"]["managedFields"] if m["manager"] == manager]
    return max(times)


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_applies_the_fleet_and_holds_depends_on_a_chart_app_on_upgrades(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """Steady state, then issue #38 point 2 on the real controllers: web depends_on the chart app
    echo; a commit that upgrades both applies web only once helm-controller has upgraded echo.
    kustomize-controller queues every Kustomization of the GitRepository at the new revision
    (``requestsForRevisionChangeOf``); the gate ``echo.ready`` depends on the root, so
    ``checkDependencies`` holds it until the root applied that revision, and its health check
    (kstatus ``checkGeneration``) holds it until helm-controller observed the new HelmRelease."""
    with git_server(tmp_path / "repos" / "served", authority) as base:
        plane: ControlPlane = start_control_plane(
            processes, "alpha", tmp_path / "alpha", etcd, authority
        )
        repo = FleetRepo.create("flux", tmp_path / "repos", base)
        start_flux(processes, plane, release, tmp_path / "flux", authority)
        kube = plane.kube()
        bootstrap(kube, repo.url, "main", "output/flux/clusters/alpha")
        head = repo.head()
        logs = sorted((tmp_path / "logs").glob("alpha-*-controller.log"))
        wait_for(
            "web applied", lambda: ready(kube, KUSTOMIZE, "Kustomization", "web", head), 180, logs
        )
        assert _image(kube, "echo", "echo") == "registry.invalid/echo:1.0.0"
        assert _image(kube, "web", "web") == "registry.invalid/web:1.0.0"
        release_obj = kube.get(HELM, "HelmRelease", "echo", NAMESPACE)
        installed = _time(release_obj["status"]["history"][0]["lastDeployed"])
        web = kube.get("apps/v1", "Deployment", "web", "web")
        assert _applied(web, "kustomize-controller") >= installed

        repo.edit(
            "fleet.py", '{"replicas": 1}', '{"replicas": 1, "image": "registry.invalid/echo:2.0.0"}'
        )
        repo.edit("apps/web/deployment.yaml", "web:1.0.0", "web:2.0.0")
        upgraded = repo.commit("upgrade echo and web")
        reconcile(kube, SOURCE, "GitRepository", NAMESPACE)
        wait_for(
            "web upgraded",
            lambda: ready(kube, KUSTOMIZE, "Kustomization", "web", upgraded),
            180,
            logs,
        )
        assert _image(kube, "echo", "echo") == "registry.invalid/echo:2.0.0"
        assert _image(kube, "web", "web") == "registry.invalid/web:2.0.0"
        history = kube.get(HELM, "HelmRelease", "echo", NAMESPACE)["status"]["history"]
        echo_upgraded = _time(history[0]["lastDeployed"])
        web_updated = _applied(
            kube.get("apps/v1", "Deployment", "web", "web"), "kustomize-controller"
        )
        assert web_updated >= echo_upgraded, (web_updated, echo_upgraded)
