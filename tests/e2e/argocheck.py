"""The live objects under Argo CD against what ``fleetgen diff --format json`` said of the commit
it just synced (docs/diff.md): each deletion's verdict on its workloads, each field a generated
object changes. Argo CD's own objects live on the management cluster; an Application's
workloads, and a tenant's accounts (``output/tenants/<cluster>/``), on the cluster it names.

What the verdicts rely on, in argo-cd v3.6.2's source:
- an ApplicationSet removed by the root's prune takes its generated Applications with it
  (their ownerReference; Kubernetes' garbage collector, ``preserveResourcesOnDeletion: false``);
- ``deleted``/``orphaned`` of an Application: ``finalizeApplicationDeletion`` deletes the
  workloads (``getPermittedAppLiveObjects``, as the project's destination service account:
  ``applyImpersonationConfig``) only when ``CascadedDeletion()`` (the resources finalizer), and
  removes the finalizer only once they are gone; without the finalizer the API server deletes
  the Application at once and nothing else goes;
- a removed object of an Application's folder goes by its automated sync's prune
  (``autoSync`` → gitops-engine ``syncContext.Sync``), but for ``Prune=false``
  (``syncContext.pruneObject`` → ``isPruningDisabled``);
- a renamed Application (a cluster renamed) is a deletion and a creation: the old one's
  finalizer acts as above, and the new one's first sync applies its workloads again (adopting
  the ones left: the tracking-id annotation is rewritten to its name, ``SetAppInstance``), so a
  ``deleted`` workload comes back with a new uid and an ``orphaned`` one keeps its uid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.argocd import APPS, NAMESPACE
from tests.e2e.diffcheck import at, leaves
from tests.e2e.kube import Kube
from tests.e2e.live import VERSIONS, Obj, get, kept, stuck
from tests.e2e.processes import wait_for
from tests.e2e.timeline import Timeline

MGMT = "mgmt"
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"


def resources(application: dict[str, Any]) -> list[Obj]:
    """What an Application manages: its ``status.resources``."""
    found = []
    for entry in application.get("status", {}).get("resources") or []:
        group, version = entry.get("group", ""), entry["version"]
        api_version = f"{group}/{version}" if group else version
        found.append(Obj(api_version, entry["kind"], entry.get("namespace", ""), entry["name"]))
    return found


@dataclass(frozen=True)
class Taken:
    """Every Application with what it manages, the cluster it names (by server: a removed
    cluster's name is in no report) and the uid of each of these workloads there."""

    managed: dict[Obj, list[Obj]]
    uids: dict[Obj, dict[Obj, str]]
    clusters: dict[Obj, str]

    @classmethod
    def take(cls, mgmt: Kube, targets: dict[str, Kube]) -> Taken:
        by_server = {kube.server: name for name, kube in targets.items()}
        managed, uids, clusters = {}, {}, {}
        for doc in mgmt.list(APPS, "Application", NAMESPACE):
            app = Obj(APPS, "Application", NAMESPACE, doc["metadata"]["name"])
            managed[app] = resources(doc)
            name = by_server.get(doc["spec"].get("destination", {}).get("server", ""))
            live = {o: get(targets[name], o) for o in managed[app]} if name else {}
            uids[app] = {o: d["metadata"]["uid"] for o, d in live.items() if d is not None}
            if name:
                clusters[app] = name
        return cls(managed, uids, clusters)


def _uid(kube: Kube, obj: Obj) -> str | None:
    live = get(kube, obj)
    return None if live is None else str(live["metadata"]["uid"])


def _obj(entry: dict[str, Any]) -> Obj:
    return Obj(VERSIONS[entry["group"]], entry["kind"], entry["namespace"] or "", entry["name"])


class ArgoCheck:
    """The management cluster ``mgmt`` and the workload clusters ``targets`` (name → API)
    compared with one commit's diff report."""

    def __init__(
        self,
        mgmt: Kube,
        targets: dict[str, Kube],
        timeline: Timeline,
        logs: Sequence[Path],
        timeout: float,
    ) -> None:
        self.kubes = {MGMT: mgmt, **targets}
        self.timeline, self.logs, self.timeout = timeline, list(logs), timeout

    def _where(self, entry: dict[str, Any]) -> str:
        """The cluster an object of the report lives on."""
        file = str(entry["file"])
        if file.startswith("output/tenants/"):
            return file.split("/")[2]
        return MGMT

    def _gone(self, where: str, obj: Obj) -> None:
        kube = self.kubes[where]
        wait_for(f"{where}: {obj} gone", lambda: get(kube, obj) is None, self.timeout, self.logs)

    def _stays(self, where: str, obj: Obj, why: str) -> None:
        kept(self.kubes[where], obj, f"{obj} on {where} {why}")

    def deletions(self, report: dict[str, Any], before: Taken) -> None:
        """Each deletion: the object gone, and an Application's workloads as the verdict says."""
        for entry in report["deletions"]:
            if entry["engine"] not in ("argocd", None):
                continue
            obj, verdict, where = _obj(entry), entry["workloads"], self._where(entry)
            if verdict == "kept-prune-disabled":
                self._stays(where, obj, "kept (prune disabled)")
                self.timeline.say(f"{where}: {obj} kept (prune disabled), as diff said")
                continue
            if verdict == "stuck":
                stuck(self.kubes[where], obj, self.timeout, self.logs)
                self.timeline.say(f"{where}: {obj} stuck terminating, as diff said")
                continue
            self._gone(where, obj)
            self.timeline.say(f"{where}: {obj} deleted (diff: workloads {verdict})")
            for workload in before.managed.get(obj, []) if obj.kind == "Application" else []:
                target = entry["cluster"] or before.clusters[obj]
                if verdict == "deleted":
                    self._gone(target, workload)
                    self.timeline.say(f"{target}:   {workload} deleted, as diff said")
                elif verdict == "orphaned" and workload in before.uids[obj]:
                    # (an object the Application's status still listed, gone before the commit,
                    # is nothing to keep: its status lags its last prune)
                    self._stays(target, workload, verdict)
                    kept = _uid(self.kubes[target], workload) == before.uids[obj][workload]
                    assert kept, f"diff: {workload} on {target} orphaned; live: another object"
                    self.timeline.say(f"{target}:   {workload} kept (orphaned), as diff said")

    def renames(self, report: dict[str, Any], before: Taken) -> None:
        """Each renamed Application: the old one gone, the new one managing the old one's
        workloads, each created anew (``deleted``) or kept with its uid (``orphaned``)."""
        for entry in report["renames"]:
            if entry["kind"] != "Application" or entry["engine"] != "argocd":
                continue
            old = Obj(APPS, "Application", NAMESPACE, entry["from"])
            new = Obj(APPS, "Application", NAMESPACE, entry["to"])
            verdict, target = entry["workloads"], entry["cluster"]
            self._gone(MGMT, old)
            kube = self.kubes[target]

            def arrived(n: Obj = new, o: Obj = old) -> bool:
                live = get(self.kubes[MGMT], n)
                return live is not None and set(resources(live)) >= set(before.managed[o])

            wait_for(f"{new} manages {old.name}'s workloads", arrived, self.timeout, self.logs)
            self.timeline.say(f"{MGMT}: {old} gone, {new} manages its workloads")
            for workload, uid in sorted(before.uids[old].items()):
                if verdict == "deleted":
                    wait_for(
                        f"{target}: {workload} created anew",
                        lambda k=kube, w=workload, u=uid: _uid(k, w) not in (None, u),
                        self.timeout,
                        self.logs,
                    )
                    self.timeline.say(f"{target}:   {workload} deleted and created anew")
                else:
                    assert _uid(kube, workload) == uid, (
                        f"diff: {workload} on {target} {verdict}; live: not the same object"
                    )
                    self.timeline.say(f"{target}:   {workload} kept ({verdict}) and adopted")

    def changes(self, report: dict[str, Any]) -> None:
        """Each generated object added or changed (Argo CD's own on mgmt, a tenant's account on
        its cluster) comes live with every field the report gives its new value; each removed
        one is pruned (deletions above aside)."""
        deleted = {(d["kind"], d["namespace"], d["name"]) for d in report["deletions"]}
        for change in report["changes"]:
            if change["source"] != "generated" or change["file"].startswith("output/overlays/"):
                continue
            if "/flux/" in f"/{change['file']}":
                continue  # Flux's, on a fleet with both engines: `tests.e2e.diffcheck`
            if change["group"] == "kustomize.config.k8s.io":
                continue  # a folder's kustomization.yaml: what it builds is checked
            obj, where = _obj(change), self._where(change)
            kube = self.kubes[where]
            if change["op"] == "removed":
                if (change["kind"], change["namespace"], change["name"]) in deleted:
                    continue
                live = get(kube, obj) or {}
                options = live.get("metadata", {}).get("annotations", {}).get(SYNC_OPTIONS, "")
                if "Prune=false" in options:
                    assert any(
                        f"{obj.kind} {obj.name}" in note and "Prune=false" in note
                        for note in report["notes"]
                    ), f"{obj} on {where}: Prune=false live, diff notes nothing"
                    self._stays(where, obj, "stays (Prune=false)")
                    self.timeline.say(f"{where}: {obj} stays (Prune=false), as diff notes")
                    continue
                self._gone(where, obj)
                self.timeline.say(f"{where}: {obj} pruned (diff: removed)")
                continue

            def matches(c: dict[str, Any] = change, o: Obj = obj, k: Kube = kube) -> bool:
                live = get(k, o)
                return live is not None and all(
                    at(live, f["path"]) == f["new"] for f in leaves(c["fields"])
                )

            fields = ", ".join(f"{f['path']} → {f['new']!r}" for f in change["fields"][:4])
            try:
                wait_for(f"{where}: {obj} {change['op']}: {fields}", matches, 60, self.logs)
            except TimeoutError:
                live = get(kube, obj) or {}
                seen = {f["path"]: at(live, f["path"]) for f in change["fields"]}
                owners = [
                    (m.get("manager"), m.get("operation"))
                    for m in live.get("metadata", {}).get("managedFields", [])
                ]
                raise AssertionError(
                    f"diff: {obj} on {where} {fields}; live: {seen}; field managers: {owners}"
                ) from None
            self.timeline.say(f"{where}: {obj} {change['op']}: {fields}"[:200])
