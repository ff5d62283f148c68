"""A walkthrough on Argo CD (`tests.e2e.walkthrough.Steps`): after each commit, hard-refresh
every Application as ``argocd app get --hard-refresh`` does, wait until the root Application
synced the commit, then compare the live objects with what ``fleetgen diff`` said of it
(`tests.e2e.argocheck`), saying each outcome on the timeline."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.e2e.argocd import APPS, NAMESPACE, refresh, start_argocd
from tests.e2e.argocheck import ArgoCheck, Taken, resources
from tests.e2e.controlplane import ControlPlane, start_control_plane
from tests.e2e.externalsecrets import argocd_cluster_config, fake_store, start_external_secrets
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube, NotFound
from tests.e2e.live import Obj
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Steps

ROOT = "fleetgen"
ALPHA = 'clusters=[Cluster(name="alpha", env="prod", server="SERVER_ALPHA")]'


def state(application: dict[str, Any]) -> str:
    """An Application's sync status, revision and health, as ``argocd app list`` shows them."""
    status = application.get("status", {})
    sync, health = status.get("sync", {}), status.get("health", {})
    return f"{sync.get('status')} at {str(sync.get('revision'))[:7]}, {health.get('status')}" + (
        "" if automated(application) else ", automated sync off"
    )


def automated(application: dict[str, Any]) -> bool:
    """Whether Argo CD syncs ``application`` by itself, as ``SyncPolicy.IsAutomatedSyncEnabled``
    decides: ``automated`` set, and its ``enabled`` not false."""
    auto = (application["spec"].get("syncPolicy") or {}).get("automated")
    return auto is not None and auto.get("enabled", True) is not False


def settled_at(application: dict[str, Any], head: str, health: str = "Healthy") -> bool:
    """Compared at ``head``, of ``health``, and Synced or its last sync of ``head`` succeeded (what
    stays OutOfSync then is what its sync leaves on purpose: ``Prune=false``)."""
    status = application.get("status", {})
    sync, operation = status.get("sync", {}), status.get("operationState", {})
    synced = sync.get("status") == "Synced" or (
        operation.get("phase") == "Succeeded"
        and operation.get("syncResult", {}).get("revision") == head
    )
    return (
        sync.get("revision") == head and status.get("health", {}).get("status") == health and synced
    )


@dataclass
class ArgoWalkthrough(Steps):
    """The fleet ``repo`` synced by Argo CD on ``mgmt`` onto ``targets`` (name → API)."""

    repo: FleetRepo
    mgmt: Kube
    targets: dict[str, Kube]
    logs: list[Path]
    timeline: Timeline
    timeout: float = 180
    planes: dict[str, ControlPlane] = field(default_factory=dict)
    # Applications expected to settle at another health than Healthy (name → health)
    health: dict[str, str] = field(default_factory=dict)

    def _settled(self, application: dict[str, Any], head: str) -> bool:
        expected = self.health.get(application["metadata"]["name"], "Healthy")
        return settled_at(application, head, expected)

    def _refresh_all(self) -> None:
        for doc in self.mgmt.list(APPS, "Application", NAMESPACE):
            with contextlib.suppress(NotFound):  # deleted meanwhile
                refresh(self.mgmt, doc["metadata"]["name"])

    def settled(self) -> None:
        """Wait until the root and every Application with automated sync settled at the head
        commit; say each Application's state and what it manages."""
        head = self.repo.head()

        waiting: list[str] = []

        def done() -> bool:
            apps = self.mgmt.list(APPS, "Application", NAMESPACE)
            waiting[:] = [
                f"{a['metadata']['name']}: {state(a)}; "
                f"{a.get('status', {}).get('operationState', {}).get('message')}"
                for a in apps
                if automated(a) and not self._settled(a, head)
            ]
            return not waiting

        try:
            wait_for(f"settled at {head[:7]}", done, self.timeout, self.logs)
        except TimeoutError as error:
            raise TimeoutError("\n".join([*waiting, str(error)])) from None
        apps = {a["metadata"]["name"]: a for a in self.mgmt.list(APPS, "Application", NAMESPACE)}
        listed = "\n".join(
            f"  {name} ({state(app)}): {', '.join(map(str, resources(app))) or 'nothing'}"
            for name, app in sorted(apps.items())
        )
        self.timeline.say(f"settled at {head[:7]}; Applications and what they manage:\n{listed}")

    def snapshot(self) -> Taken:
        return Taken.take(self.mgmt, self.targets)

    def settle(self) -> None:
        self.settled()

    def placement(self, app: str, cluster: str, snapshot: Taken) -> list[Obj]:
        """What the Application ``<app>-<cluster>`` managed (its ApplicationSet's template
        names it so)."""
        return snapshot.managed.get(Obj(APPS, "Application", NAMESPACE, f"{app}-{cluster}"), [])

    def kick(self) -> None:
        refresh(self.mgmt, ROOT)

    def check(self, head: str, report: dict[str, Any], before: Taken) -> None:
        self.kick()

        def root_synced() -> bool:
            root = self.mgmt.get(APPS, "Application", ROOT, NAMESPACE)
            return self._settled(root, head)

        wait_for(f"root at {head[:7]}", root_synced, self.timeout, self.logs)
        self.timeline.say(f"mgmt: root Application {ROOT} synced {head[:7]} (and pruned)")
        self._refresh_all()
        check = ArgoCheck(self.mgmt, self.targets, self.timeline, self.logs, self.timeout)
        check.deletions(report, before)
        check.renames(report, before)
        check.changes(report)


def cluster_line(names: Sequence[str], servers: Mapping[str, str]) -> str:
    """fleet.py's ``clusters=[...]`` of argowalk with ``names`` in prod, each at its server."""
    listed = ", ".join(
        f'Cluster(name="{name}", env="prod", server="{servers[name]}")' for name in names
    )
    return f"clusters=[{listed}]"


@contextlib.contextmanager
def argo_walk(
    tmp_path: Path,
    processes: Processes,
    authority: Authority,
    etcd: str,
    title: str,
    fleet: str = "argowalk",
    clusters: Sequence[str] = ("alpha",),
    edits: Mapping[str, str] = {},
    aliases: Mapping[str, str] = {},
    prepare: Callable[[ArgoWalkthrough], None] = lambda walk: None,
) -> Iterator[ArgoWalkthrough]:
    """Argo CD 3.6.2 on a management cluster syncing the e2e ``fleet`` onto ``clusters`` (one
    control plane each, fleet.py's ``SERVER_<NAME>`` set to its URL, its credentials the entry
    ``clusters/<name>`` of the ClusterSecretStore e2e, and each alias's — a name a cluster takes
    later, ``aliases[new] = old``: a rename — those of the cluster it names), fleet.py changed
    by ``edits`` (old → new, before the servers are set) before the first commit; ``prepare``
    run once bootstrap.yaml is applied, then settled at the first commit."""
    timeline = Timeline(f"Argo CD 3.6.2: {title} on fleet {fleet}")
    with git_server(tmp_path / "repos" / "served", authority) as base:
        mgmt_plane = start_control_plane(processes, "mgmt", tmp_path / "mgmt", etcd, authority)
        planes = {
            name: start_control_plane(processes, name, tmp_path / name, etcd, authority)
            for name in clusters
        }
        servers = {f"SERVER_{name.upper()}": plane.server for name, plane in planes.items()}
        repo = FleetRepo.create(fleet, tmp_path / "repos", base, {**edits, **servers})
        start_external_secrets(processes, mgmt_plane)
        config = {name: argocd_cluster_config(plane) for name, plane in planes.items()}
        config |= {alias: config[name] for alias, name in aliases.items()}
        fake_store(mgmt_plane, "e2e", {f"clusters/{name}": c for name, c in config.items()})
        start_argocd(
            processes,
            mgmt_plane,
            tmp_path / "argocd",
            authority,
            # fleetgen's note for tenants; and not enforced, else every Application of a
            # project without destinationServiceAccounts fails its sync ("no matching service
            # account found": argo-cd 3.6.2 controller/sync.go, enforced by default)
            {
                "application.sync.impersonation.enabled": "true",
                "application.sync.impersonation.enforced": "false",
            },
        )
        mgmt = mgmt_plane.kube()
        bootstrap = repo.work / "output" / "argocd" / "bootstrap.yaml"
        for doc in load_all(bootstrap.read_text()):  # kubectl apply -n argocd -f bootstrap.yaml
            mgmt.apply(doc, namespace=NAMESPACE)
        timeline.say(f"mgmt: bootstrap.yaml applied at {repo.head()[:7]}")
        logs = sorted((tmp_path / "logs").glob("*.log"))
        targets = {name: plane.kube() for name, plane in planes.items()}
        walkthrough = ArgoWalkthrough(repo, mgmt, targets, logs, timeline, 300, planes)
        prepare(walkthrough)
        walkthrough.settled()
        walkthrough.timeout = 180
        yield walkthrough
