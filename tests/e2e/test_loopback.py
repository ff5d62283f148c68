"""Issue #41 point 2's guard: nothing the e2e tests apply or connect to is off loopback. Fast
(no upstream program): every e2e fleet as the harness commits it, its spec and its output; and
each of the harness's guards, shown to refuse an address elsewhere with its location."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

import fleetgen
from fleetgen.manifests.yamlio import load_all
from tests.e2e import loopback
from tests.e2e.charts import Publisher
from tests.e2e.fleetrepo import FLEETS, FleetRepo
from tests.e2e.kube import Kube
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes

# The URL the harness's Git server has (a port of 127.0.0.1); nothing listens there.
GIT_BASE = "https://127.0.0.1:1"
# The chart repositories' placeholders and URLs as `tests.e2e.charts` serves them.
CHART_REPOS = {"HELM_REPO": "https://127.0.0.1:2", "OCI_REPO": "oci://127.0.0.1:3/charts"}


def _findings(work: Path) -> list[str]:
    """Every non-loopback address of the fleet in ``work``: fields of its loaded spec (cluster
    servers, the repository, chart repositories, …), URLs in any of its files (fleet.py, app
    bases, charts, output), and address fields of every object of its output."""
    found = list(loopback.in_value(fleetgen.load(work / "fleet.py").fleet.model_dump(), "Fleet"))
    found += loopback.in_tree(work, work)
    for path in sorted((work / "output").rglob("*.yaml")):
        for doc in load_all(path.read_text()):
            found += loopback.in_value(doc, str(path.relative_to(work)))
    return found


@pytest.mark.parametrize("name", sorted(p.name for p in FLEETS.iterdir() if p.is_dir()))
def test_every_e2e_fleet_is_on_loopback(tmp_path: Path, name: str) -> None:
    """Each e2e fleet, with its Git URL as FleetRepo sets it and built, addresses only
    127.0.0.0/8: what Flux and Argo CD read from it (GitRepository URLs, chart repositories,
    cluster servers) can reach nothing else. Its API server placeholders (``SERVER_ALPHA``)
    get a loopback URL, as the harness gives them its control planes', and its chart
    repositories' (``HELM_REPO``, ``OCI_REPO``) those of `tests.e2e.charts`."""
    text = (FLEETS / name / "fleet.py").read_text()
    found = sorted(set(re.findall(r"\bSERVER_[A-Z]+\b", text)))
    servers = {p: f"https://127.0.0.1:{port}" for port, p in enumerate(found, 10)}
    servers |= {p: url for p, url in CHART_REPOS.items() if p in text}
    repo = FleetRepo.create(name, tmp_path, GIT_BASE, servers)
    assert (repo.work / "output").is_dir()
    assert _findings(repo.work) == []


def test_the_fleet_scan_names_each_address_elsewhere(tmp_path: Path) -> None:
    """The scan can fail: a cluster server, the Git URL and a URL in an app base off loopback
    are each reported where they are."""
    repo = FleetRepo.create("flux", tmp_path, "https://git.example.com")
    repo.edit("fleet.py", "https://127.0.0.1:6443", "https://10.1.2.3:6443")
    repo.edit("apps/web/deployment.yaml", "name: web\n", "name: web  # http://169.254.169.254/\n")
    repo.fleetgen("build")
    found = "\n".join(_findings(repo.work))
    assert "Fleet.clusters[0].server: https://10.1.2.3:6443" in found
    assert "Fleet.repo: https://git.example.com/fleet.git" in found
    assert "fleet.py:" in found and "https://git.example.com/fleet.git" in found
    assert "apps/web/deployment.yaml:" in found and "http://169.254.169.254/" in found


def test_the_fleet_scan_names_chart_repositories_elsewhere(tmp_path: Path) -> None:
    """A chart repository off loopback is reported in fleet.py's spec and wherever the output
    names it: Flux's HelmRepository and OCIRepository URLs, Argo CD's scheme-less OCI repoURL
    and the AppProject's sourceRepos."""
    elsewhere = {"HELM_REPO": "https://charts.example.com", "OCI_REPO": "oci://ghcr.io/acme"}
    repo = FleetRepo.create("charts", tmp_path, GIT_BASE, elsewhere)
    found = "\n".join(_findings(repo.work))
    assert "Fleet.apps[0].chart.repo: https://charts.example.com" in found
    assert "Fleet.apps[1].chart.repo: oci://ghcr.io/acme" in found
    flux = "output/flux/clusters/alpha/kustomizations.yaml.spec.url"
    assert f"{flux}: https://charts.example.com" in found
    assert f"{flux}: oci://ghcr.io/acme/greet" in found
    ohai = "output/argocd/applicationsets/ohai.yaml.spec.template.spec.source.repoURL"
    assert f"{ohai}: ghcr.io/acme" in found
    assert "output/argocd/projects/apps.yaml.spec.sourceRepos[2]: ghcr.io/acme" in found


def test_the_harness_refuses_addresses_elsewhere(tmp_path: Path) -> None:
    """Each guard of the harness fails before anything leaves loopback: a controller's flag, an
    API server, the registry's address, a ``helm push`` target, an applied object's URL, a
    connection of the test process."""
    processes = Processes(tmp_path / "logs")
    with pytest.raises(loopback.NotLoopback, match=re.escape("argument 2: 10.0.0.1:9090")):
        processes.start("source", ["true", "--storage-adv-addr", "10.0.0.1:9090"])
    with pytest.raises(loopback.NotLoopback, match=r"\$KUBE_API: https://kube.example.com"):
        processes.start("kwok", ["true"], env={"KUBE_API": "https://kube.example.com"})
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text('{"clusters": [{"cluster": {"server": "https://192.168.1.5:6443"}}]}')
    with pytest.raises(loopback.NotLoopback, match=re.escape("192.168.1.5")):
        processes.start("helm", ["true", "--kubeconfig", kubeconfig])
    with pytest.raises(loopback.NotLoopback, match=re.escape("$REGISTRY_HTTP_ADDR: 0.0.0.0:5000")):
        processes.start("registry", ["true"], env={"REGISTRY_HTTP_ADDR": "0.0.0.0:5000"})
    assert processes.running == {}
    publisher = Publisher(
        FLEETS / "charts" / "published" / "greet",
        tmp_path / "helm-home",
        tmp_path / "helm",
        "https://127.0.0.1:1",
        "oci://10.0.0.1:5000/charts",
        Authority(tmp_path / "pki"),
    )
    with pytest.raises(loopback.NotLoopback, match=re.escape("argument 3: oci://10.0.0.1:5000")):
        publisher.helm("push", tmp_path / "greet-0.1.0.tgz", publisher.oci)
    with pytest.raises(loopback.NotLoopback, match=r"Kube.server: https://192.168.1.5:6443"):
        Kube("https://192.168.1.5:6443", "token", tmp_path / "ca.crt")
    kube = Kube("https://127.0.0.1:1", "token", tmp_path / "ca.crt")
    source = {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "GitRepository",
        "metadata": {"name": "flux-system"},
        "spec": {"url": "ssh://git@github.com/acme/fleet"},
    }
    with pytest.raises(loopback.NotLoopback, match=r"flux-system.spec.url: ssh://git@github"):
        kube.apply(source)
    with pytest.raises(loopback.NotLoopback, match=re.escape("connection to 10.255.255.1:443")):
        socket.create_connection(("10.255.255.1", 443), timeout=1)
