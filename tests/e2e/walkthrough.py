"""A walkthrough (`Steps`: edit, build with ``--drained`` where the step says, commit, push,
check against ``fleetgen diff``) and its Flux part: each step asks every cluster's Flux to
reconcile as ``flux reconcile source git`` does; waits until each root Kustomization applied the
commit; then compares the live objects with what ``fleetgen diff`` said of the commit
(`tests.e2e.diffcheck`), saying each outcome on the timeline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.diffcheck import Check
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import NAMESPACE, ready, reconcile
from tests.e2e.kube import Kube
from tests.e2e.live import HELM, KUSTOMIZE, VERSIONS, Snapshot
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
    for change in report["changes"]:
        if change["source"] == "generated" and change["op"] != "removed":
            fields = ", ".join(
                f"{f['path']}: {f['old']!r} → {f['new']!r}" for f in change["fields"]
            )
            lines.append(
                f"  diff: ~ {change['kind']} {change['name']} ({change['op']}) {fields}"[:160]
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
    ``check`` of the live objects against the commit's diff, given what ``before`` saw."""

    repo: FleetRepo
    timeline: Timeline

    def before(self) -> Any:
        raise NotImplementedError

    def check(self, head: str, report: dict[str, Any], before: Any) -> None:
        raise NotImplementedError

    def step(self, title: str, edit: Callable[[], None], *build: str) -> dict[str, Any]:
        """Edit, build, commit; sync and check the live objects against the commit's diff."""
        before = self.before()
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
    """The fleet ``repo`` reconciled by Flux on each of ``clusters`` (name → API, the logs of
    its controllers)."""

    repo: FleetRepo
    clusters: dict[str, tuple[Kube, list[Path]]]
    timeline: Timeline
    timeout: float = 180

    def settled(self, name: str) -> None:
        """Wait until cluster ``name``'s root and every Kustomization applied the head commit
        and every HelmRelease not suspended is Ready at its generation."""
        kube, logs = self.clusters[name]
        head = self.repo.head()

        def done() -> bool:
            for doc in kube.list(KUSTOMIZE, "Kustomization", NAMESPACE):
                if not ready(kube, KUSTOMIZE, "Kustomization", doc["metadata"]["name"], head):
                    return False
            for doc in kube.list(HELM, "HelmRelease", NAMESPACE):
                status = doc.get("status", {})
                if not doc["spec"].get("suspend") and not (
                    ready(kube, HELM, "HelmRelease", doc["metadata"]["name"])
                    and status.get("observedGeneration") == doc["metadata"]["generation"]
                ):
                    return False
            return ready(kube, KUSTOMIZE, "Kustomization", NAMESPACE, head)

        wait_for(f"{name}: settled at {head[:7]}", done, self.timeout, logs)
        managed = Snapshot.take(kube).managed
        listed = "\n".join(
            f"  {obj}: {', '.join(map(str, objs)) or 'nothing'}"
            for obj, objs in sorted(managed.items())
        )
        self.timeline.say(
            f"{name}: settled at {head[:7]}; Flux objects and what they manage:\n{listed}"
        )

    def before(self) -> dict[str, Snapshot]:
        return {name: Snapshot.take(kube) for name, (kube, _) in self.clusters.items()}

    def check(self, head: str, report: dict[str, Any], before: dict[str, Snapshot]) -> None:
        """Reconcile every cluster's source as ``flux reconcile source git`` does, wait for its
        root to apply ``head``, then compare it with the report."""
        for name, (kube, logs) in self.clusters.items():
            reconcile(kube, SOURCE, "GitRepository", NAMESPACE)
            wait_for(
                f"{name}: root at {head[:7]}",
                lambda k=kube: ready(k, KUSTOMIZE, "Kustomization", NAMESPACE, head),
                self.timeout,
                logs,
            )
            self.timeline.say(f"{name}: root Kustomization applied {head[:7]} (and pruned)")
            check = Check(kube, name, self.timeline, logs, self.timeout)
            check.deletions(report, before[name])
            check.changes(report)
            check.releases(report, before[name])
