"""Charts from repositories, not from the fleet's: a Helm repository over HTTPS and an OCI
registry on loopback (`tests.e2e.charts`), with certificates of the test's authority, read by
Flux's source-controller and Argo CD's repo-server; the chart published at 0.1.0, deployed from
both, then 0.2.0 published and fleet.py bumped to it: the chart versions ``fleetgen diff``
reports are the ones the engines deploy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fleetgen.manifests.yamlio import load_all
from tests.e2e.argocd import application, refresh, start_argocd, synced_and_healthy
from tests.e2e.charts import Publisher, chart_repositories
from tests.e2e.controlplane import start_control_plane
from tests.e2e.fleetrepo import FLEETS, FleetRepo
from tests.e2e.flux import NAMESPACE, bootstrap, ready, reconcile, start_flux
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube
from tests.e2e.live import helm_release
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for

HELM = "helm.toolkit.fluxcd.io/v2"
SOURCE = "source.toolkit.fluxcd.io/v1"
CHART = FLEETS / "charts" / "published" / "greet"
# The fleet's chart apps: app → its chart's source kind on Flux, as fleetgen writes it.
APPS = {"hello": "HelmRepository", "ohai": "OCIRepository"}


def _fleet(folder: Path, base: str, charts: Publisher) -> FleetRepo:
    return FleetRepo.create(
        "charts", folder, base, {"HELM_REPO": charts.url, "OCI_REPO": charts.oci}
    )


def _deployed(kube: Kube, app: str) -> tuple[str, str]:
    """The chart version the app's live Deployment was rendered from (the chart's
    ``chart-version`` annotation: an annotation, since Flux's version of an OCI chart is no
    label value, `_semver`) and its image (the app's values)."""
    deployment = kube.get("apps/v1", "Deployment", "greet", app)
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    return deployment["metadata"]["annotations"]["chart-version"], str(image)


def _semver(version: str) -> str:
    """A chart version without its build metadata: helm-controller's
    ``mutateChartWithSourceRevision`` appends the OCIRepository artifact's digest (``0.1.0`` →
    ``0.1.0+b035707ca7d2``) to the chart it installs from one, so that a tag pushed again is an
    upgrade; a HelmRepository chart keeps its version."""
    return version.split("+", 1)[0]


def _bumps(report: dict[str, Any]) -> dict[str, tuple[str, str, list[str]]]:
    """Each app's chart version change in a diff report: (old, new, clusters)."""
    return {b["app"]: (b["old"], b["new"], b["clusters"]) for b in report["charts"]["versions"]}


def _released(kube: Kube, app: str, version: str) -> bool:
    """Whether the HelmRelease is Ready at its generation with ``version`` released last."""
    release = kube.get(HELM, "HelmRelease", app, NAMESPACE)
    history = release.get("status", {}).get("history") or [{}]
    released = _semver(history[0].get("chartVersion", ""))
    return ready(kube, HELM, "HelmRelease", app) and released == version


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_deploys_charts_from_a_helm_repository_and_a_registry_and_bumps_them(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """hello's chart from the Helm repository (HelmRepository + the HelmChart helm-controller
    writes: source-controller's ``HelmRepositoryReconciler`` fetches index.yaml, its
    ``HelmChartReconciler.buildFromHelmRepository`` the archive), ohai's from the registry
    (OCIRepository: ``OCIRepositoryReconciler.reconcileSource`` pulls the tag's layer of Helm's
    chart media type; the HelmRelease's ``chartRef``). Both over TLS with the authority trusted
    through SSL_CERT_FILE alone (no ``certSecretRef``: Go's system roots). helm-controller's
    ``AtomicRelease`` installs, then upgrades them; the live Deployments carry the values and
    the chart version (an annotation the chart renders: rendered into a label, an OCI chart's
    version, ``0.1.0+<digest>`` (`_semver`), fails the install: the API server refuses ``+``).

    The bump: 0.2.0 is published, then the HelmRepository reconciled as ``flux reconcile source
    helm`` does (its index is fetched every spec.interval, 10m, and a HelmChart for a version
    not in the fetched index fails until then); the OCIRepository needs none (the commit changes
    its tag, so its generation)."""
    with git_server(tmp_path / "repos" / "served", authority) as base:
        plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        with chart_repositories(processes, tmp_path / "charts", authority, CHART) as charts:
            repo = _fleet(tmp_path / "repos", base, charts)
            start_flux(processes, plane, release, tmp_path / "flux", authority)
            kube = plane.kube()
            bootstrap(kube, repo.url, "main", "output/flux/clusters/alpha")
            logs = sorted((tmp_path / "logs").glob("alpha-*.log"))
            for app, kind in APPS.items():
                wait_for(f"{app} 0.1.0", lambda a=app: _released(kube, a, "0.1.0"), 180, logs)
                deployed, image = _deployed(kube, app)
                assert (_semver(deployed), image) == ("0.1.0", f"registry.invalid/{app}:1.0.0")
                assert (deployed != "0.1.0") == (kind == "OCIRepository"), (app, deployed)

            first = repo.head()
            charts.publish("0.2.0")
            index = kube.get(SOURCE, "HelmRepository", "hello", NAMESPACE)["status"]["artifact"]
            reconcile(kube, SOURCE, "HelmRepository", "hello")

            def refetched() -> bool:
                status = kube.get(SOURCE, "HelmRepository", "hello", NAMESPACE)["status"]
                return bool(status["artifact"]["digest"] != index["digest"])

            wait_for("the index with 0.2.0 fetched", refetched, 60, logs)
            repo.edit("fleet.py", 'version="0.1.0"', 'version="0.2.0"')
            bumped = repo.commit("greet 0.2.0")
            bumps = _bumps(repo.diff(first, bumped))
            reconcile(kube, SOURCE, "GitRepository", NAMESPACE)
            for app, kind in APPS.items():
                old, new, clusters = bumps[app]
                assert (old, new) == ("0.1.0", "0.2.0") and "alpha" in clusters, bumps[app]
                wait_for(f"{app} {new}", lambda a=app, n=new: _released(kube, a, n), 180, logs)
                deployed, image = _deployed(kube, app)
                assert (_semver(deployed), image) == (new, f"registry.invalid/{app}:1.0.0")
                stored = helm_release(kube, kube.get(HELM, "HelmRelease", app, NAMESPACE))
                assert stored is not None and stored["version"] == 2, (app, kind)
                assert _semver(stored["chart"]["metadata"]["version"]) == new, (app, kind)


def test_argocd_deploys_charts_from_a_helm_repository_and_a_registry_and_bumps_them(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """The same charts on Argo CD, placed on mgmt, the cluster it runs on: hello's from the Helm
    repository (repo-server's ``newHelmClientResolveRevision``, then the helm client's
    ``ExtractChart``: ``helm pull --repo``), ohai's from the registry (a scheme-less
    ``127.0.0.1:PORT/charts`` repoURL, which ``IsHelmOciRepo`` makes OCI with no repository
    Secret: ``helm pull oci://``). Both trust the authority through the TLS data path:
    ``GetHelmCreds`` sets ``CAPath`` to its file for the host (``getCAPath``), which the helm
    client hands to its index fetch (``newTLSConfig``) and to ``helm pull --ca-file``. An
    exact version is the Application's sync revision (``versions.IsVersion``: no index read).

    The bump: 0.2.0 published, fleet.py bumped; the root Application syncs the commit (refreshed
    as ``argocd app get --hard-refresh`` does, else within ``timeout.reconciliation``), the
    ApplicationSets write the new targetRevision and the Applications sync to it."""
    with git_server(tmp_path / "repos" / "served", authority) as base:
        mgmt = start_control_plane(processes, "mgmt", tmp_path / "mgmt", etcd, authority)
        with chart_repositories(processes, tmp_path / "charts", authority, CHART) as charts:
            repo = _fleet(tmp_path / "repos", base, charts)
            start_argocd(processes, mgmt, tmp_path / "argocd", authority)
            kube = mgmt.kube()
            bootstrap_file = repo.work / "output" / "argocd" / "bootstrap.yaml"
            for doc in load_all(bootstrap_file.read_text()):  # kubectl apply -n argocd -f …
                kube.apply(doc, namespace="argocd")
            logs = sorted((tmp_path / "logs").glob("argocd-*.log"))

            def synced(commit: str, version: str) -> bool:
                processes.check()
                return synced_and_healthy(kube, "fleetgen", commit) and all(
                    synced_and_healthy(kube, f"{app}-mgmt", version) for app in APPS
                )

            first = repo.head()
            wait_for("the charts at 0.1.0", lambda: synced(first, "0.1.0"), 300, logs)
            for app in APPS:
                assert _deployed(kube, app) == ("0.1.0", f"registry.invalid/{app}:1.0.0")

            charts.publish("0.2.0")
            repo.edit("fleet.py", 'version="0.1.0"', 'version="0.2.0"')
            bumped = repo.commit("greet 0.2.0")
            bumps = _bumps(repo.diff(first, bumped))
            refresh(kube, "fleetgen")
            for app in APPS:
                old, new, clusters = bumps[app]
                assert (old, new) == ("0.1.0", "0.2.0") and "mgmt" in clusters, bumps[app]
            wait_for("the charts at 0.2.0", lambda: synced(bumped, "0.2.0"), 300, logs)
            for app in APPS:
                assert _deployed(kube, app) == ("0.2.0", f"registry.invalid/{app}:1.0.0")
                source = application(kube, f"{app}-mgmt")["spec"]["source"]
                assert source["targetRevision"] == "0.2.0", source
