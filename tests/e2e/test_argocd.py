"""Argo CD itself reconciles fleetgen's output: its repo-server, application controller and
ApplicationSet controller built from its module, on a management cluster, placing apps on two
workload clusters registered by External Secrets, reading the fleet from a Git server on
loopback."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.e2e.argocd import APPS, NAMESPACE, application, start_argocd, synced_and_healthy
from tests.e2e.controlplane import ControlPlane, start_control_plane
from tests.e2e.externalsecrets import argocd_cluster_config, fake_store, start_external_secrets
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for

# The images the fleet's bases write (charts/echo/values.yaml, apps/web/deployment.yaml).
BASE_IMAGES = {"echo": "registry.invalid/echo:1.0.0", "web": "registry.invalid/web:1.0.0"}
FLEET_NAMESPACES = {"echo", "web"}
SYSTEM_NAMESPACES = {"kube-system", "kube-public", "kube-node-lease", "default", NAMESPACE}


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _expected(explained: dict[str, Any]) -> dict[str, dict[tuple[str, str], str]]:
    """Cluster → (namespace, Deployment) → image, as ``fleetgen explain`` places the apps:
    a chart app's ``values/image``, a Kustomize app's ``image/<name>/version``, else the base's."""
    expected: dict[str, dict[tuple[str, str], str]] = {}
    for app in explained["apps"]:
        for placement in app["placements"]:
            values = {v["key"]: v["value"] for v in placement["values"]}
            image = values.get("values/image", BASE_IMAGES[app["name"]])
            for key, value in values.items():
                if key.startswith("image/") and key.endswith("/version"):
                    image = values[key.replace("/version", "/name")] + value
            where = expected.setdefault(placement["cluster"], {})
            where[(app["namespace"], app["name"])] = image
    return expected


def _deployments(kube: Kube) -> dict[tuple[str, str], dict[str, Any]]:
    """Every Deployment outside the system namespaces and Argo CD's, by (namespace, name)."""
    return {
        (d["metadata"]["namespace"], d["metadata"]["name"]): d
        for d in kube.list("apps/v1", "Deployment")
        if d["metadata"]["namespace"] not in SYSTEM_NAMESPACES
    }


def _available_since(deployment: dict[str, Any]) -> datetime:
    """When the Deployment last became Available."""
    conditions = {c["type"]: c for c in deployment["status"]["conditions"]}
    assert conditions["Available"]["status"] == "True", deployment["status"]
    return _time(conditions["Available"]["lastTransitionTime"])


def test_argocd_applies_the_fleet_on_the_clusters_explain_names_in_waves(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """Steady state on Argo CD: bootstrap.yaml applied as a user would; the root Application
    syncs output/argocd/ (``CompareAppState``, gitops-engine's ``syncContext.Sync``), External
    Secrets builds the workload clusters' registrations from the fake store, the cluster
    generator (``ClusterGenerator.GenerateParams``) selects them by fleetgen's labels and
    ``createOrUpdateInCluster`` writes one Application per placement, which the application
    controller syncs to the cluster named by its destination (``Cluster.rawRestConfig``: a
    workload cluster's bearer token and CA from the registration; https://kubernetes.default.svc
    through KUBECONFIG, ``ARGOCD_FAKE_IN_CLUSTER``). Every placement of ``fleetgen explain`` has
    its Deployment, image and namespace on its cluster, tracked by its Application
    (``argocd.argoproj.io/tracking-id``), and no cluster has another Deployment or fleet
    namespace; every Application Synced at the pushed commit and Healthy.

    The prod rollout (RollingSync, progressive syncs on): ``SyncDesiredApplications`` turns
    automated sync off on the generated Applications and ``syncApplication`` sets the operation
    (initiated by ``applicationset-controller``) on the Pending ones; ``getAppsToSync`` allows
    wave 2 only once every wave-1 Application's status is Healthy
    (``UpdateApplicationSetApplicationStatus``), which follows the Application's health: Healthy
    once the Deployment is Available (gitops-engine's ``getDeploymentHealth``). So beta's sync
    starts no earlier than alpha's Deployment became Available (both second-precision API
    timestamps, hence >=); without progressive syncs beta's sync is automated (no username) and
    the test fails, as a run with them off showed."""
    with git_server(tmp_path / "repos" / "served", authority) as base:
        planes: dict[str, ControlPlane] = {
            name: start_control_plane(processes, name, tmp_path / name, etcd, authority)
            for name in ("mgmt", "alpha", "beta")
        }
        mgmt = planes["mgmt"]
        servers = {f"SERVER_{name.upper()}": planes[name].server for name in ("alpha", "beta")}
        repo = FleetRepo.create("argocd", tmp_path / "repos", base, servers)
        start_external_secrets(processes, mgmt)
        fake_store(
            mgmt,
            "e2e",
            {f"clusters/{name}": argocd_cluster_config(planes[name]) for name in ("alpha", "beta")},
        )
        start_argocd(processes, mgmt, tmp_path / "argocd", authority)
        kube = mgmt.kube()
        bootstrap = repo.work / "output" / "argocd" / "bootstrap.yaml"
        for doc in load_all(bootstrap.read_text()):  # kubectl apply -n argocd -f bootstrap.yaml
            kube.apply(doc, namespace=NAMESPACE)
        head = repo.head()
        expected = _expected(repo.explain())
        names = {f"{app}-{cluster}" for cluster, placed in expected.items() for _, app in placed}
        logs = sorted((tmp_path / "logs").glob("*.log"))

        def all_synced() -> bool:
            processes.check()
            return all(synced_and_healthy(kube, name, head) for name in ["fleetgen", *names])

        wait_for("every Application Synced and Healthy", all_synced, 300, logs)

        live = {a["metadata"]["name"] for a in kube.list(APPS, "Application", NAMESPACE)}
        assert live == {"fleetgen", *names}
        for cluster, placed in expected.items():
            target = planes[cluster].kube()
            deployments = _deployments(target)
            assert set(deployments) == set(placed), cluster
            for (namespace, app), image in placed.items():
                spec = deployments[(namespace, app)]["spec"]["template"]["spec"]
                assert spec["containers"][0]["image"] == image, (cluster, app)
                annotations = deployments[(namespace, app)]["metadata"]["annotations"]
                tracking = annotations["argocd.argoproj.io/tracking-id"]
                assert tracking.startswith(f"{app}-{cluster}:"), tracking
            namespaces = {n["metadata"]["name"] for n in target.list("v1", "Namespace")}
            assert namespaces & FLEET_NAMESPACES == {ns for ns, _ in placed}, cluster

        for app in ("echo", "web"):
            beta = application(kube, f"{app}-beta")["status"]["operationState"]
            initiated = beta["operation"]["initiatedBy"]
            assert initiated.get("username") == "applicationset-controller", initiated
            alpha_available = _available_since(
                planes["alpha"].kube().get("apps/v1", "Deployment", app, app)
            )
            assert _time(beta["startedAt"]) >= alpha_available, (app, beta["startedAt"])
