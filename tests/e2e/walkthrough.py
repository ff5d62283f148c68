"""A walkthrough (`Steps`: edit, build with ``--drained`` where the step says, commit, push,
check against ``fleetgen diff``) and its Flux part: each step asks every cluster's Flux to
reconcile as ``flux reconcile source git`` does; waits until each root Kustomization applied the
commit; then compares the live objects with what ``fleetgen diff`` said of the commit
(`tests.e2e.diffcheck`), saying each outcome on the timeline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.e2e.diffcheck import Check
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import NAMESPACE, ready, reconcile
from tests.e2e.live import HELM, KUSTOMIZE, VERSIONS, Obj, Site, Snapshot
from tests.e2e.processes import wait_for
from tests.e2e.timeline import Timeline

SOURCE = VERSIONS["source.toolkit.fluxcd.io"]


def summary(report: dict[str, Any]) -> str:
    """What diff said, a line each: deletions with their verdict, changes, charts, notes."""
    lines = [
        f"  diff: - {d['kind']} {d['name']} on {','.join(d['clusters'])}: workloads "
        f"{d['workloads']}"
        for d in report["deletions"]
    ]
    lines += [
        f"  diff: renamed {r['kind']} {r['from']} on {r['from_cluster']} → {r['to']} on "
        f"{r['cluster']}: workloads of the old one {r['workloads']}"
        for r in report["renames"]
    ]
    for change in report["changes"]:
        if change["source"] == "generated" and change["op"] != "removed":
            fields = ", ".join(
                f"{f['path']}: {f['old']!r} → {f['new']!r}" for f in change["fields"]
            )
            lines.append(
                f"  diff: ~ {change['kind']} {change['name']} ({change['op']}) {fields}"[:160]
            )
    for move in report["placements"]["moved"]:
        lines.append(
            f"  diff: moved {move['app']} on {move['cluster']}: {move['from']} → {move['to']}, "
            f"workloads {move['workloads']}"
        )
    for bump in report["charts"]["versions"]:
        lines.append(f"  diff: chart {bump['app']} {bump['old']} → {bump['new']}")
    for value in report["charts"]["values"]:
        lines.append(
            f"  diff: values of {value['app']}: {value['path']} {value['old']} → {value['new']}"
        )
    lines += [f"  diff note: {note}" for note in report["notes"]]
    return "\n".join(lines) or "  diff: no changes"


class Steps:
    """Each step of a walkthrough on ``repo``: edit, build, commit and push; then the engine's
    ``check`` of the live objects against the commit's diff, given the ``snapshot`` taken before
    it (kept in ``taken``). What every engine's walkthrough offers: ``settle`` (all of it at the
    head commit), ``kick`` (read the repository now) and ``placement`` (what the object of a
    placement managed in a snapshot), so one walkthrough can drive both engines
    (`tests.e2e.bothengines`)."""

    repo: FleetRepo
    timeline: Timeline
    taken: Any = None

    def snapshot(self) -> Any:
        raise NotImplementedError

    def settle(self) -> None:
        raise NotImplementedError

    def kick(self) -> None:
        """Ask the engine to read the repository now (its ``check`` does first)."""
        raise NotImplementedError

    def placement(self, app: str, cluster: str, snapshot: Any) -> list[Obj]:
        raise NotImplementedError

    def check(self, head: str, report: dict[str, Any], before: Any) -> None:
        raise NotImplementedError

    def step(self, title: str, edit: Callable[[], None], *build: str) -> dict[str, Any]:
        """Edit, build, commit; sync and check the live objects against the commit's diff."""
        before = self.taken = self.snapshot()
        base = self.repo.head()
        edit()
        head = self.repo.commit(title, *build)
        report = self.repo.diff(base, head)
        built = f" (fleetgen build {' '.join(build)})" if build else ""
        self.timeline.say(f"commit {head[:7]}: {title}{built}\n{summary(report)}")
        self.check(head, report, before)
        return report


@dataclass
class Walkthrough(Steps):
    """The fleet ``repo`` reconciled by Flux on each of ``clusters`` (name → `Site`: where its
    Flux objects and workloads are)."""

    repo: FleetRepo
    clusters: dict[str, Site]
    timeline: Timeline
    timeout: float = 180

    def settled(self, name: str) -> None:
        """Wait until the root of cluster ``name``'s Flux and each of its Kustomizations applied
        the head commit and each HelmRelease not suspended is Ready at its generation."""
        site = self.clusters[name]
        kube, namespace, head = site.flux, site.namespace, self.repo.head()

        def done() -> bool:
            for doc in kube.list(KUSTOMIZE, "Kustomization", namespace):
                name = doc["metadata"]["name"]
                if not ready(kube, KUSTOMIZE, "Kustomization", name, head, namespace):
                    return False
            for doc in kube.list(HELM, "HelmRelease", namespace):
                name = doc["metadata"]["name"]
                if not doc["spec"].get("suspend") and not ready(
                    kube, HELM, "HelmRelease", name, "", namespace
                ):
                    return False
            return ready(kube, KUSTOMIZE, "Kustomization", NAMESPACE, head)

        wait_for(f"{name}: settled at {head[:7]}", done, self.timeout, site.logs)
        managed = site.snapshot().managed
        listed = "\n".join(
            f"  {obj}: {', '.join(map(str, objs)) or 'nothing'}"
            for obj, objs in sorted(managed.items())
        )
        self.timeline.say(
            f"{name}: settled at {head[:7]}; Flux objects and what they manage:\n{listed}"
        )

    def snapshot(self) -> dict[str, Snapshot]:
        return {name: site.snapshot() for name, site in self.clusters.items()}

    def settle(self) -> None:
        for name in self.clusters:
            self.settled(name)

    def kick(self) -> None:
        for site in self.clusters.values():
            reconcile(site.flux, SOURCE, "GitRepository", NAMESPACE)

    def placement(self, app: str, cluster: str, snapshot: dict[str, Snapshot]) -> list[Obj]:
        """What the Kustomization or HelmRelease ``app`` on ``cluster`` managed (fleetgen
        names a placement's Flux object after its app)."""
        namespace = self.clusters[cluster].namespace
        managed = snapshot[cluster].managed
        kustomization = Obj(KUSTOMIZE, "Kustomization", namespace, app)
        return managed.get(kustomization) or managed.get(
            Obj(HELM, "HelmRelease", namespace, app), []
        )

    def check(self, head: str, report: dict[str, Any], before: dict[str, Snapshot]) -> None:
        """Reconcile every cluster's source as ``flux reconcile source git`` does, wait for its
        root to apply ``head``, then compare it with the report."""
        self.kick()
        for name, site in self.clusters.items():
            wait_for(
                f"{name}: root at {head[:7]}",
                lambda k=site.flux: ready(k, KUSTOMIZE, "Kustomization", NAMESPACE, head),
                self.timeout,
                site.logs,
            )
            self.timeline.say(f"{name}: root Kustomization applied {head[:7]} (and pruned)")
            check = Check(site, name, self.timeline, self.timeout)
            check.deletions(report, before[name])
            check.changes(report)
            check.releases(report, before[name])

    def arrived(self, name: str, report: dict[str, Any], before: Snapshot) -> None:
        """Cluster ``name`` settled, then checked against the renames of an earlier commit's
        ``report`` (``before`` it): a renamed cluster's Flux applies them only once its root
        reads the new name's folder."""
        self.settled(name)
        Check(self.clusters[name], name, self.timeline, self.timeout).arrivals(report, before)
