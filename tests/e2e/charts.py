"""Chart repositories on loopback, as a user publishes to them: a Helm repository over HTTPS
(a static folder: the charts ``helm package`` wrote and the ``index.yaml`` of ``helm repo
index``) and an OCI registry (distribution's ``registry``, built from its module, which
``helm push`` fills), both with certificates of the test's authority (the controllers trust it
through ``SSL_CERT_FILE``, Argo CD through its TLS data path)."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

from tests.e2e.loopback import in_process, in_tree, require
from tests.e2e.pki import Authority
from tests.e2e.processes import LOOPBACK, Processes, free_port, wait_for
from tests.e2e.serving import serving
from tests.e2e.tools import program


class _Static(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the controllers poll."""


@contextmanager
def helm_repository(root: Path, authority: Authority) -> Iterator[str]:
    """Serve the folder ``root`` (index.yaml and the charts' archives) over HTTPS on loopback;
    yields the base URL (``https://127.0.0.1:PORT``)."""
    root.mkdir(parents=True, exist_ok=True)
    with serving(partial(_Static, directory=str(root)), authority, "helm") as port:
        yield f"https://{LOOPBACK}:{port}"


def _answers(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((LOOPBACK, port)) == 0


def start_registry(processes: Processes, folder: Path, authority: Authority) -> str:
    """distribution's registry serving TLS on a loopback port, storing under ``folder``; its
    charts' base, ``oci://127.0.0.1:PORT/charts``. The address and certificate are given as
    the ``REGISTRY_HTTP_*`` variables that override its configuration (so `Processes.start`
    checks the address); tracing off (no exporter dialled)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "config.yml"
    config.write_text(f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {folder}/data\n")
    cert, key = authority.serving("registry")
    port = free_port()
    log = processes.start(
        "registry",
        [program("registry", "registry"), "serve", config],
        env={
            "REGISTRY_HTTP_ADDR": f"{LOOPBACK}:{port}",
            "REGISTRY_HTTP_TLS_CERTIFICATE": str(cert),
            "REGISTRY_HTTP_TLS_KEY": str(key),
            "REGISTRY_LOG_LEVEL": "info",
            "OTEL_TRACES_EXPORTER": "none",
        },
    )
    wait_for("registry", lambda: _answers(port), 30, [log])
    return f"oci://{LOOPBACK}:{port}/charts"


@dataclass(frozen=True)
class Publisher:
    """Publishes versions of the chart at ``source`` to the Helm repository served from
    ``root`` at ``url`` and to the registry path ``oci``, with Helm's own commands (its
    configuration and caches in ``folder``)."""

    source: Path
    folder: Path
    root: Path
    url: str
    oci: str
    authority: Authority

    def helm(self, *args: str | Path) -> str:
        """Run the built Helm with its homes in ``folder``; refused if an address it is given
        is not on loopback."""
        env = {
            "HELM_CONFIG_HOME": str(self.folder / "config"),
            "HELM_CACHE_HOME": str(self.folder / "cache"),
            "HELM_DATA_HOME": str(self.folder / "data"),
            "PATH": "/usr/bin:/bin",
        }
        require(in_process("helm", ["helm", *args], env))
        argv = [program("helm", "helm"), *args]
        ran = subprocess.run(argv, env=env, capture_output=True, text=True)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        return ran.stdout + ran.stderr

    def publish(self, version: str) -> Path:
        """Package the chart as ``version`` (its Chart.yaml's version set), add it to the Helm
        repository (``helm repo index --url``, every archive there) and push it to the
        registry; the archive."""
        chart = self.folder / "src" / version / self.source.name
        shutil.copytree(self.source, chart)
        meta = chart / "Chart.yaml"
        meta.write_text(re.sub(r"(?m)^version: .*$", f"version: {version}", meta.read_text()))
        archive = Path(self.helm("package", chart, "-d", self.root).split()[-1])
        self.helm("repo", "index", self.root, "--url", self.url)
        require(in_tree(self.root, self.root))  # the index's chart URLs
        self.helm("push", archive, self.oci, "--ca-file", self.authority.cert)
        return archive


@contextmanager
def chart_repositories(
    processes: Processes, folder: Path, authority: Authority, source: Path
) -> Iterator[Publisher]:
    """A Helm repository and a registry on loopback, the chart at ``source`` published to both
    at its own version; yields the `Publisher` of later versions."""
    with helm_repository(folder / "helm", authority) as url:
        oci = start_registry(processes, folder / "registry", authority)
        publisher = Publisher(source, folder / "helm-home", folder / "helm", url, oci, authority)
        version = re.search(r"(?m)^version: (.*)$", (source / "Chart.yaml").read_text())
        assert version is not None, source
        publisher.publish(version.group(1).strip())
        yield publisher
