"""External Secrets Operator outside the cluster it serves, as its own tests run it: KUBECONFIG,
leader election off (its default), metrics on a loopback port (its webhook server, port 9443,
starts only in its ``webhook`` command); its CRDs installed from its module. The credentials it
hands out are held by a ``ClusterSecretStore`` of its own ``fake`` provider."""

from __future__ import annotations

import base64
import json

from tests.e2e.controlplane import ControlPlane
from tests.e2e.flux import install_crds
from tests.e2e.processes import LOOPBACK, Processes, free_port
from tests.e2e.tools import program


def start_external_secrets(processes: Processes, plane: ControlPlane) -> None:
    """Install External Secrets' CRDs on ``plane`` and start its controller against it."""
    binary = program("external-secrets", "external-secrets")
    install_crds(plane.kube(), binary.parent / "config" / "crds" / "bases")
    processes.start(
        f"{plane.name}-external-secrets",
        [
            binary,
            "--metrics-addr",
            f"{LOOPBACK}:{free_port()}",
            "--enable-leader-election=false",
            "--loglevel",
            "debug",
        ],
        env={"KUBECONFIG": str(plane.kubeconfig)},
    )


def fake_store(plane: ControlPlane, name: str, entries: dict[str, str]) -> None:
    """The ClusterSecretStore ``name`` on ``plane``: the fake provider holding ``entries``."""
    plane.kube().apply(
        {
            "apiVersion": "external-secrets.io/v1",
            "kind": "ClusterSecretStore",
            "metadata": {"name": name},
            "spec": {
                "provider": {"fake": {"data": [{"key": k, "value": v} for k, v in entries.items()]}}
            },
        }
    )


def argocd_cluster_config(plane: ControlPlane) -> str:
    """Argo CD's cluster config JSON reaching ``plane`` (its admin token, its CA): what a
    registration's store entry holds."""
    ca = base64.b64encode(plane.authority.cert.read_bytes()).decode()
    return json.dumps({"bearerToken": plane.token, "tlsClientConfig": {"caData": ca}})


def flux_kubeconfig(plane: ControlPlane) -> str:
    """The store entry a Flux hub reads a spoke's kubeconfig from (its ``kubeconfig``
    property): a kubeconfig reaching ``plane`` with its admin token, its CA inline."""
    ca = base64.b64encode(plane.authority.cert.read_bytes()).decode()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": plane.name,
        "clusters": [
            {
                "name": plane.name,
                "cluster": {"server": plane.server, "certificate-authority-data": ca},
            }
        ],
        "users": [{"name": plane.name, "user": {"token": plane.token}}],
        "contexts": [{"name": plane.name, "context": {"cluster": plane.name, "user": plane.name}}],
    }
    return json.dumps({"kubeconfig": json.dumps(config)})
