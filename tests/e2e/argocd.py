"""Argo CD outside the cluster it runs on, as its own Procfile runs it for its e2e tests: the
multi-call binary ``argocd`` named ``argocd-repo-server``, ``argocd-application-controller``,
``argocd-applicationset-controller`` (``cmd/main.go`` picks the program by the name it is run as),
``ARGOCD_FAKE_IN_CLUSTER=true`` and KUBECONFIG (``Cluster.rawRestConfig`` then reaches
https://kubernetes.default.svc with the kubeconfig), ``--namespace argocd``, GPG off, TLS and SSH
data paths, Debian's redis-server; its CRDs from its module; ``argocd-cm`` and ``argocd-secret``
present, with a 10 s reconciliation (``timeout.reconciliation``, which the manifests hand the
controller and repo-server as ARGOCD_RECONCILIATION_TIMEOUT) and progressive syncs on. On
request its notifications controller too (``argocd-notifications``), reading
argocd-notifications-cm and argocd-notifications-secret, which the test writes as a user does.

Every port is on loopback but the metrics of the application controller, which
``NewApplicationController`` binds on 0.0.0.0, and of the notifications controller
(``NewCommand`` of cmd/argocd-notification: ``0.0.0.0:<--metrics-port>``); nothing connects to
them.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.e2e.controlplane import ControlPlane
from tests.e2e.externalsecrets import argocd_cluster_config
from tests.e2e.flux import install_crds
from tests.e2e.kube import Kube
from tests.e2e.pki import Authority
from tests.e2e.processes import LOOPBACK, Processes, free_port, wait_for
from tests.e2e.tools import program

NAMESPACE = "argocd"
APPS = "argoproj.io/v1alpha1"
RECONCILIATION = "10s"
PROGRAMS = (
    "argocd-repo-server",
    "argocd-application-controller",
    "argocd-applicationset-controller",
    "argocd-notifications",
)
SCRIPTS = ("git-verify-wrapper.sh", "gpg-wrapper.sh")
PART_OF = {"app.kubernetes.io/part-of": "argocd"}


def _answers(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((LOOPBACK, port)) == 0


def start_redis(processes: Processes) -> int:
    """Debian's redis-server on a loopback port, as Argo CD's hack/start-redis-with-password.sh
    starts it locally (no password, no persistence); its port."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise FileNotFoundError("redis-server is missing: apt-get install redis-server")
    port = free_port()
    log = processes.start(
        "redis",
        [binary, "--port", str(port), "--bind", LOOPBACK, "--save", "", "--appendonly", "no"],
    )
    wait_for("redis", lambda: _answers(port), 30, [log])
    return port


def _settings(kube: Kube, authority: Authority, settings: Mapping[str, str]) -> None:
    """The ConfigMaps and Secret Argo CD's settings manager reads (labelled part-of argocd, as
    its informers select them); the Git server's CA in argocd-tls-certs-cm under its host;
    ``settings`` added to argocd-cm."""
    config_maps = {
        "argocd-cm": {
            "timeout.reconciliation": RECONCILIATION,
            "timeout.reconciliation.jitter": "0s",
            **settings,
        },
        "argocd-cmd-params-cm": {"applicationsetcontroller.enable.progressive.syncs": "true"},
        "argocd-rbac-cm": {},
        "argocd-tls-certs-cm": {LOOPBACK: authority.cert.read_text()},
        "argocd-ssh-known-hosts-cm": {},
        "argocd-gpg-keys-cm": {},
    }
    for name, data in config_maps.items():
        kube.apply(_settings_object("ConfigMap", name, data=data))
    secret_key = {"server.secretkey": secrets.token_hex(32)}
    kube.apply(_settings_object("Secret", "argocd-secret", stringData=secret_key))


def _settings_object(kind: str, name: str, **content: dict[str, str]) -> dict[str, Any]:
    meta = {"name": name, "namespace": NAMESPACE, "labels": PART_OF}
    return {"apiVersion": "v1", "kind": kind, "metadata": meta, **content}


def start_argocd(
    processes: Processes,
    plane: ControlPlane,
    folder: Path,
    authority: Authority,
    settings: Mapping[str, str] = {},
    notifications: bool = False,
) -> None:
    """Install Argo CD's CRDs and settings (``settings`` added to argocd-cm) on ``plane`` and
    start its repo-server, application controller and ApplicationSet controller against it
    (and its notifications controller with ``notifications``),
    trusting ``authority`` for the Git server (the TLS data path holds argocd-tls-certs-cm's
    entries, one file per host, as hack/dev-mounter writes them: ``GetCertificateForConnect``
    reads it for go-git and ``runCmdOutput`` hands it to git as GIT_SSL_CAINFO)."""
    kube = plane.kube()
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    binary = program("argocd", "argocd")
    install_crds(kube, binary.parent / "manifests" / "crds")
    _settings(kube, authority, settings)

    bin_dir, tls, ssh = folder / "bin", folder / "tls", folder / "ssh"
    for path in (bin_dir, tls, ssh):
        path.mkdir(parents=True, exist_ok=True)
    (tls / LOOPBACK).write_text(authority.cert.read_text())
    (ssh / "ssh_known_hosts").write_text("")
    for name in PROGRAMS:
        (bin_dir / name).symlink_to(binary)
    for script in SCRIPTS:  # on the image's PATH (its Dockerfile's COPY hack/...)
        shutil.copy(binary.parent / "hack" / script, bin_dir / script)
        (bin_dir / script).chmod(0o755)  # the module zip keeps no mode
    tools = [program("helm", "helm").parent, program("kustomize", "kustomize").parent]
    env = {
        "KUBECONFIG": str(plane.kubeconfig),
        "ARGOCD_FAKE_IN_CLUSTER": "true",
        "ARGOCD_TLS_DATA_PATH": str(tls),
        "ARGOCD_SSH_DATA_PATH": str(ssh),
        "ARGOCD_GPG_ENABLED": "false",
        "ARGOCD_RECONCILIATION_TIMEOUT": RECONCILIATION,
        "PATH": os.pathsep.join([str(bin_dir), *map(str, tools), os.environ["PATH"]]),
    }
    redis = f"{LOOPBACK}:{start_redis(processes)}"
    repo_port = free_port()
    repo_log = processes.start(
        "argocd-repo-server",
        [
            bin_dir / "argocd-repo-server",
            "--loglevel=debug",
            "--address",
            LOOPBACK,
            "--port",
            str(repo_port),
            "--metrics-address",
            LOOPBACK,
            "--metrics-port",
            str(free_port()),
            "--redis",
            redis,
        ],
        env=env,
    )
    wait_for("argocd-repo-server", lambda: _answers(repo_port), 60, [repo_log])
    repo_server = f"{LOOPBACK}:{repo_port}"
    processes.start(
        "argocd-application-controller",
        [
            bin_dir / "argocd-application-controller",
            "--loglevel=debug",
            "--namespace",
            NAMESPACE,
            "--redis",
            redis,
            "--repo-server",
            repo_server,
            "--app-resync",
            "10",
            "--metrics-port",
            str(free_port()),
        ],
        env=env,
    )
    processes.start(
        "argocd-applicationset-controller",
        [
            bin_dir / "argocd-applicationset-controller",
            "--loglevel=debug",
            "--namespace",
            NAMESPACE,
            "--argocd-repo-server",
            repo_server,
            "--metrics-addr",
            f"{LOOPBACK}:{free_port()}",
            "--probe-addr",
            f"{LOOPBACK}:{free_port()}",
            "--webhook-addr",
            f"{LOOPBACK}:{free_port()}",
        ],
        env={
            **env,
            "ARGOCD_APPLICATIONSET_CONTROLLER_ENABLE_PROGRESSIVE_SYNCS": "true",
            "ARGOCD_APPLICATIONSET_CONTROLLER_REFRESH_GRACE_PERIOD_SECONDS": "0",
        },
    )
    if notifications:
        processes.start(
            "argocd-notifications",
            [
                bin_dir / "argocd-notifications",
                "--loglevel=debug",
                "--namespace",
                NAMESPACE,
                "--argocd-repo-server",
                repo_server,
                "--metrics-port",
                str(free_port()),
            ],
            env=env,
        )


def notifications_catalog() -> dict[str, str]:
    """The data of argocd-notifications-cm as notifications_catalog/install.yaml of the built
    argo-cd module has it: the catalog's ``trigger.*`` and ``template.*`` entries."""
    catalog = program("argocd", "argocd").parent / "notifications_catalog" / "install.yaml"
    (config_map,) = [doc for doc in load_all(catalog.read_text()) if doc]
    return dict(config_map["data"])


def application(kube: Kube, name: str) -> dict[str, Any]:
    """The Application ``name`` in argocd."""
    return dict(kube.get(APPS, "Application", name, NAMESPACE))


def synced_and_healthy(kube: Kube, name: str, revision: str) -> bool:
    """Whether Application ``name`` is Synced at ``revision`` (a commit's sha) and Healthy."""
    status = application(kube, name).get("status", {})
    sync, health = status.get("sync", {}), status.get("health", {})
    return (
        sync.get("status") == "Synced"
        and sync.get("revision") == revision
        and health.get("status") == "Healthy"
    )


def refresh(kube: Kube, name: str) -> None:
    """Ask for a hard refresh of Application ``name``, as ``argocd app get --hard-refresh`` does
    (the annotation the controller's ``needRefreshAppStatus`` reads, then removes)."""
    path = kube.path(APPS, "Application", NAMESPACE, name)
    patch = {"metadata": {"annotations": {"argocd.argoproj.io/refresh": "hard"}}}
    kube.request("PATCH", path, patch, kind="merge")


def register(
    kube: Kube,
    name: str,
    plane: ControlPlane,
    labels: Mapping[str, str],
    annotations: Mapping[str, str] = {},
) -> None:
    """Argo CD's cluster Secret ``cluster-<name>`` reaching ``plane`` (its admin token, its CA),
    as a tool other than fleetgen writes it (``Cluster(registration="external")``): Argo CD's
    cluster config JSON, the secret-type label, ``labels`` and ``annotations``."""
    meta = {
        "name": f"cluster-{name}",
        "namespace": NAMESPACE,
        "labels": {"argocd.argoproj.io/secret-type": "cluster", **labels},
        "annotations": dict(annotations),
    }
    data = {"name": name, "server": plane.server, "config": argocd_cluster_config(plane)}
    kube.apply({"apiVersion": "v1", "kind": "Secret", "metadata": meta, "stringData": data})
