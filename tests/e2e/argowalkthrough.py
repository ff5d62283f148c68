"""A walkthrough on Argo CD (`tests.e2e.walkthrough.Steps`): after each commit, hard-refresh
every Application as ``argocd app get --hard-refresh`` does, wait until the root Application
synced the commit, then compare the live objects with what ``fleetgen diff`` said of it
(`tests.e2e.argocheck`), saying each outcome on the timeline."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.argocd import APPS, NAMESPACE, refresh
from tests.e2e.argocheck import ArgoCheck, managed, resources
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.kube import Kube, NotFound
from tests.e2e.live import Obj
from tests.e2e.processes import wait_for
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Steps

ROOT = "fleetgen"


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


def settled_at(application: dict[str, Any], head: str) -> bool:
    """Compared at ``head``, Healthy, and Synced or its last sync of ``head`` succeeded (what
    stays OutOfSync then is what its sync leaves on purpose: ``Prune=false``)."""
    status = application.get("status", {})
    sync, operation = status.get("sync", {}), status.get("operationState", {})
    synced = sync.get("status") == "Synced" or (
        operation.get("phase") == "Succeeded"
        and operation.get("syncResult", {}).get("revision") == head
    )
    return (
        sync.get("revision") == head
        and status.get("health", {}).get("status") == "Healthy"
        and synced
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
                if automated(a) and not settled_at(a, head)
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

    def snapshot(self) -> dict[Obj, list[Obj]]:
        return managed(self.mgmt)

    def settle(self) -> None:
        self.settled()

    def placement(self, app: str, cluster: str, snapshot: dict[Obj, list[Obj]]) -> list[Obj]:
        """What the Application ``<app>-<cluster>`` managed (its ApplicationSet's template
        names it so)."""
        return snapshot.get(Obj(APPS, "Application", NAMESPACE, f"{app}-{cluster}"), [])

    def kick(self) -> None:
        refresh(self.mgmt, ROOT)

    def check(self, head: str, report: dict[str, Any], before: dict[Obj, list[Obj]]) -> None:
        self.kick()

        def root_synced() -> bool:
            root = self.mgmt.get(APPS, "Application", ROOT, NAMESPACE)
            return bool(settled_at(root, head))

        wait_for(f"root at {head[:7]}", root_synced, self.timeout, self.logs)
        self.timeline.say(f"mgmt: root Application {ROOT} synced {head[:7]} (and pruned)")
        self._refresh_all()
        check = ArgoCheck(self.mgmt, self.targets, self.timeline, self.logs, self.timeout)
        check.deletions(report, before)
        check.changes(report)
