"""Flux's controllers run outside the cluster they reconcile, as their own tests run them:
kubeconfig by KUBECONFIG, RUNTIME_NAMESPACE, leader election off, loopback ports; the CRDs
installed from the controllers' own modules; the bootstrap objects applied as ``flux bootstrap``
writes them."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.e2e.controlplane import ControlPlane
from tests.e2e.kube import Kube, NotFound
from tests.e2e.pki import Authority
from tests.e2e.processes import LOOPBACK, Processes, free_port, wait_for
from tests.e2e.tools import program

NAMESPACE = "flux-system"
KUSTOMIZE = "kustomize.toolkit.fluxcd.io/v1"
RELEASES = {
    "2.9": {"source": "v1.9.3", "kustomize": "v1.9.3", "helm": "v1.6.2", "notification": "v1.9.2"},
    "2.7": {"source": "v1.7.3", "kustomize": "v1.7.2", "helm": "v1.4.3"},
}
# What only installs its CRDs: notification-controller v1.7.4 (Flux 2.7.3) is not served by the
# module proxy, its api module is (scripts/e2e-modules/notification-controller-crds-v1.7.4).
CRDS_ONLY = {"2.7": ["notification-controller-crds-v1.7.4"]}


@dataclass(frozen=True)
class Flux:
    """The Flux running for ``plane`` at ``release``."""

    plane: ControlPlane
    release: str


def install_crds(kube: Kube, folder: Path) -> None:
    """Apply every CRD under ``folder`` and wait until the API server serves them."""
    names = []
    for path in sorted(folder.rglob("*.yaml")):
        for doc in load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                kube.apply(doc)
                names.append(doc["metadata"]["name"])

    def established() -> bool:
        for name in names:
            crd = kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
            conditions = crd.get("status", {}).get("conditions") or []
            if not any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
                return False
        return True

    wait_for("CRDs established", established, 60)


def start_flux(
    processes: Processes, plane: ControlPlane, release: str, folder: Path, authority: Authority
) -> Flux:
    """Install Flux ``release``'s CRDs on ``plane`` and start its controllers against it,
    trusting ``authority`` (the loopback Git server's certificate). Where the release runs
    notification-controller, it starts first and the others post their events to its event
    server (their ``--events-addr``, fluxcd/pkg ``runtime/events`` ``NewRecorder``)."""
    kube = plane.kube()
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    for component in CRDS_ONLY.get(release, []):
        install_crds(kube, program(component, "controller-gen").parent / "config")
    versions = RELEASES[release]
    events = free_port()
    env = {
        "KUBECONFIG": str(plane.kubeconfig),
        "RUNTIME_NAMESPACE": NAMESPACE,
        "SSL_CERT_FILE": str(authority.cert),
    }
    for short, version in sorted(versions.items(), key=lambda item: item[0] != "notification"):
        name = f"{short}-controller"
        binary = program(f"{name}-{version}", name)
        install_crds(kube, binary.parent / "config")
        args: list[str | Path] = [
            binary,
            "--enable-leader-election=false",
            "--log-level=debug",
            "--metrics-addr",
            f"{LOOPBACK}:{free_port()}",
            "--health-addr",
            f"{LOOPBACK}:{free_port()}",
        ]
        if short == "notification":
            args += ["--events-addr", f"{LOOPBACK}:{events}"]
            args += ["--receiverAddr", f"{LOOPBACK}:{free_port()}"]
        elif "notification" in versions:
            args += ["--events-addr", f"http://{LOOPBACK}:{events}"]
        if short == "source":
            storage = free_port()
            (folder / "storage").mkdir(parents=True, exist_ok=True)
            args += [
                "--storage-path",
                folder / "storage",
                "--storage-addr",
                f"{LOOPBACK}:{storage}",
                "--storage-adv-addr",
                f"{LOOPBACK}:{storage}",
            ]
        elif short != "notification":
            args += ["--requeue-dependency", "2s"]
        processes.start(f"{plane.name}-{name}", args, env=env)
    return Flux(plane, release)


def sync_objects(url: str, branch: str, path: str) -> list[dict[str, Any]]:
    """The GitRepository and Kustomization ``flux bootstrap git --url=URL --branch=BRANCH
    --path=PATH`` writes (flux2's ``sync.Generate``, its ``gotk-sync.yaml``)."""
    source: dict[str, Any] = {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "GitRepository",
        "metadata": {"name": NAMESPACE, "namespace": NAMESPACE},
        "spec": {"interval": "1m0s", "ref": {"branch": branch}, "url": url},
    }
    root: dict[str, Any] = {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": NAMESPACE, "namespace": NAMESPACE},
        "spec": {
            "interval": "10m0s",
            "path": f"./{path}",
            "prune": True,
            "sourceRef": {"kind": "GitRepository", "name": NAMESPACE},
        },
    }
    return [source, root]


def bootstrap(kube: Kube, url: str, branch: str, path: str) -> None:
    """Apply what ``flux bootstrap`` applies to sync (`sync_objects`) directly: the controllers
    run outside the cluster, so no ``gotk-components``. Refused, as flux2's
    ``ReconcileSyncConfig`` refuses it (``kustomizationPathDiffers``), where the root
    Kustomization is there with another path."""
    try:
        current = kube.get(KUSTOMIZE, "Kustomization", NAMESPACE, NAMESPACE)["spec"]["path"]
    except NotFound:
        current = f"./{path}"
    if current.removeprefix("./").rstrip("/") != path.rstrip("/"):
        raise RuntimeError(
            f'sync path configuration ("{path}") would overwrite path ("{current}") of '
            "existing Kustomization"
        )
    for doc in sync_objects(url, branch, path):
        kube.apply(doc)


def bootstrap_files(work: Path, url: str, branch: str, path: str) -> None:
    """What ``flux bootstrap`` commits in ``PATH/flux-system/`` of the working copy ``work``:
    ``gotk-sync.yaml`` and the ``kustomization.yaml`` listing it (without
    ``gotk-components.yaml``: the controllers run outside the cluster), so the root applies
    itself, as on a bootstrapped cluster."""
    folder = work / path / NAMESPACE
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gotk-sync.yaml").write_text(
        "---\n".join(json.dumps(doc) + "\n" for doc in sync_objects(url, branch, path))
    )
    (folder / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources:\n- gotk-sync.yaml\n"
    )


def move_bootstrap(work: Path, url: str, branch: str, old: str, new: str) -> None:
    """What a user commits to move a bootstrapped root from folder ``old`` to ``new`` (which
    ``flux bootstrap`` refuses: `bootstrap`): ``new/flux-system/`` as bootstrap writes it, and
    the same path in ``old``'s ``gotk-sync.yaml``, so the root, reading ``old``, applies its new
    path itself and then reads ``new``, which holds its objects too."""
    bootstrap_files(work, url, branch, new)
    sync = work / new / NAMESPACE / "gotk-sync.yaml"
    shutil.copyfile(sync, work / old / NAMESPACE / "gotk-sync.yaml")


def ready(
    kube: Kube,
    api_version: str,
    kind: str,
    name: str,
    revision: str = "",
    namespace: str = NAMESPACE,
) -> bool:
    """Whether the Flux object is Ready at its generation (at ``revision``, a commit's sha,
    where given): a Kustomization that applied a change of its own spec (the root applying its
    ``gotk-sync.yaml``) is Ready at the generation it started with until it reconciled again."""
    obj = kube.get(api_version, kind, name, namespace)
    status = obj.get("status", {})
    conditions = {c["type"]: c for c in status.get("conditions", [])}
    applied = status.get("lastAppliedRevision") or status.get("artifact", {}).get("revision", "")
    return (
        conditions.get("Ready", {}).get("status") == "True"
        and status.get("observedGeneration") == obj["metadata"]["generation"]
        and applied.endswith(revision)
    )


def reconcile(
    kube: Kube, api_version: str, kind: str, name: str, namespace: str = NAMESPACE
) -> None:
    """What ``flux reconcile`` does: the requestedAt annotation, which the controllers'
    predicates pass (``ReconcileRequestedPredicate``)."""
    path = kube.path(api_version, kind, namespace, name)
    stamp = datetime.now().isoformat()
    patch = {"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": stamp}}}
    kube.request("PATCH", path, patch, kind="merge")
