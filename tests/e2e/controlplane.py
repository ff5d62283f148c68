"""A Kubernetes control plane per fleet cluster on loopback: etcd (one, shared under distinct
prefixes), kube-apiserver, kube-controller-manager, kube-scheduler, and kwok for fake nodes.

Each API server serves a certificate of the test's authority on 127.0.0.1 and accepts a static
admin token (group ``system:masters``); controllers reach it with a kubeconfig of that token.
Each API server keeps an audit log of the deletions alone (`ControlPlane.deleters`): who deleted
an object, as whom (a controller impersonating an account).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.kube import Kube
from tests.e2e.pki import Authority, signing_key
from tests.e2e.processes import LOOPBACK, Processes, free_port, wait_for
from tests.e2e.tools import program

FAKE_NODE = {"kwok.x-k8s.io/node": "fake"}
# Deletions only, at Metadata level (user, impersonated user, object): the API server's audit
# policy (audit.k8s.io/v1; JSON is YAML).
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [{"level": "Metadata", "verbs": ["delete", "deletecollection"]}, {"level": "None"}],
}


def start_etcd(processes: Processes, folder: Path) -> str:
    """One etcd for every control plane of the test; its client URL."""
    client, peer = free_port(), free_port()
    url = f"http://{LOOPBACK}:{client}"
    log = processes.start(
        "etcd",
        [
            program("etcd", "etcd"),
            "--data-dir",
            folder / "etcd",
            "--name",
            "e2e",
            "--listen-client-urls",
            url,
            "--advertise-client-urls",
            url,
            "--listen-peer-urls",
            f"http://{LOOPBACK}:{peer}",
            "--initial-advertise-peer-urls",
            f"http://{LOOPBACK}:{peer}",
            "--initial-cluster",
            f"e2e=http://{LOOPBACK}:{peer}",
            "--listen-metrics-urls",
            f"http://{LOOPBACK}:{free_port()}",
            "--quota-backend-bytes",
            str(2 * 1024**3),
        ],
    )
    wait_for("etcd", lambda: _answers(client), 60, [log])
    return url


def _answers(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        return probe.connect_ex((LOOPBACK, port)) == 0


@dataclass(frozen=True)
class ControlPlane:
    """A running cluster: its name, API server address, admin token and kubeconfig."""

    name: str
    server: str
    token: str
    authority: Authority
    kubeconfig: Path
    audit_log: Path

    def kube(self) -> Kube:
        return Kube(self.server, self.token, self.authority.cert)

    def deleters(self, resource: str, namespace: str, name: str) -> list[str]:
        """Who deleted ``resource`` (plural, ``deployments``) ``namespace/name`` successfully,
        from the audit log: the user, ``as`` the impersonated user where one is."""
        found = []
        lines = self.audit_log.read_text().splitlines() if self.audit_log.exists() else []
        for event in map(json.loads, lines):
            ref, status = event.get("objectRef", {}), event.get("responseStatus", {})
            if (ref.get("resource"), ref.get("namespace", ""), ref.get("name")) != (
                resource,
                namespace,
                name,
            ) or status.get("code", 0) >= 300:
                continue
            user = event["user"]["username"]
            impersonated = event.get("impersonatedUser", {}).get("username")
            found.append(f"{user} as {impersonated}" if impersonated else user)
        return found


def kubeconfig(path: Path, name: str, server: str, ca: Path, token: str) -> Path:
    """A kubeconfig (JSON is YAML) reaching ``server`` with ``token``."""
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": name,
                "clusters": [
                    {"name": name, "cluster": {"server": server, "certificate-authority": str(ca)}}
                ],
                "users": [{"name": name, "user": {"token": token}}],
                "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            }
        )
    )
    return path


def start_control_plane(
    processes: Processes, name: str, folder: Path, etcd: str, authority: Authority
) -> ControlPlane:
    """Start cluster ``name``'s API server, controller manager, scheduler and kwok."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = f"https://{LOOPBACK}:{port}"
    token = secrets.token_hex(16)
    (folder / "tokens.csv").write_text(f'{token},admin,admin,"system:masters"\n')
    crt, key = authority.serving(f"{name}-apiserver")
    sa_key, sa_pub = signing_key(folder)
    (folder / "audit-policy.yaml").write_text(json.dumps(AUDIT_POLICY))
    log = processes.start(
        f"{name}-apiserver",
        [
            program("kubernetes", "kube-apiserver"),
            "--etcd-servers",
            etcd,
            "--etcd-prefix",
            f"/clusters/{name}",
            "--bind-address",
            LOOPBACK,
            "--advertise-address",
            LOOPBACK,
            "--secure-port",
            str(port),
            "--tls-cert-file",
            crt,
            "--tls-private-key-file",
            key,
            "--cert-dir",
            folder / "certs",
            "--token-auth-file",
            folder / "tokens.csv",
            "--authorization-mode",
            "RBAC",
            "--service-account-issuer",
            server,
            "--service-account-key-file",
            sa_pub,
            "--service-account-signing-key-file",
            sa_key,
            "--service-cluster-ip-range",
            "10.96.0.0/16",
            "--enable-priority-and-fairness=false",
            "--profiling=false",
            "--endpoint-reconciler-type",
            "none",
            "--audit-policy-file",
            folder / "audit-policy.yaml",
            "--audit-log-path",
            folder / "audit.log",
        ],
    )
    config = kubeconfig(folder / "kubeconfig", name, server, authority.cert, token)
    plane = ControlPlane(name, server, token, authority, config, folder / "audit.log")
    wait_for(f"{name}: kube-apiserver", plane.kube().ready, 120, [log])
    common = ["--kubeconfig", config, "--bind-address", LOOPBACK, "--leader-elect=false"]
    processes.start(
        f"{name}-controller-manager",
        [
            program("kubernetes", "kube-controller-manager"),
            *common,
            "--secure-port",
            str(free_port()),
            "--service-account-private-key-file",
            sa_key,
            "--root-ca-file",
            authority.cert,
            "--use-service-account-credentials=false",
            "--controllers",
            "*,-nodeipam,-nodelifecycle,-cloud-node-lifecycle,-service,-route",
        ],
    )
    processes.start(
        f"{name}-scheduler",
        [
            program("kubernetes", "kube-scheduler"),
            *common,
            "--secure-port",
            str(free_port()),
        ],
    )
    _start_kwok(processes, plane, folder)
    return plane


def _start_kwok(processes: Processes, plane: ControlPlane, folder: Path) -> None:
    """kwok, managing the nodes labelled as fake, with its fast node and pod stages; one node."""
    binary = program("kwok", "kwok")
    stages = binary.parent / "kustomize" / "stage"
    configs = [
        f for kind in ("node", "pod") for f in sorted((stages / kind / "fast").glob("*.yaml"))
    ]
    processes.start(
        f"{plane.name}-kwok",
        [
            binary,
            "--kubeconfig",
            plane.kubeconfig,
            "--manage-all-nodes=false",
            "--manage-nodes-with-label-selector",
            "kwok.x-k8s.io/node=fake",
            "--server-address",
            f"{LOOPBACK}:{free_port()}",
            *[arg for config in configs for arg in ("--config", config)],
        ],
    )
    plane.kube().apply(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"{plane.name}-node",
                "labels": FAKE_NODE,
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
            },
            "status": {
                "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "500"},
                "capacity": {"cpu": "32", "memory": "256Gi", "pods": "500"},
            },
        }
    )
    # Admission taints a new node not-ready; the node lifecycle controller, which would lift it,
    # is off (it would also mark kwok's nodes unreachable): the harness lifts it.
    node = plane.kube().path("v1", "Node", None, f"{plane.name}-node")
    plane.kube().request("PATCH", node, {"spec": {"taints": None}}, kind="merge")
