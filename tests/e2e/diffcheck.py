"""The live objects of a cluster under Flux against what ``fleetgen diff --format json`` said of
the commit it just applied (docs/diff.md): each deletion's verdict on its workloads, each field a
generated object changes, each chart version and value a release changes. A disagreement fails,
whichever side is wrong; each outcome is said on the timeline as it is observed.

What the verdicts rely on, in Flux's source:
- ``deleted``/``orphaned``/``kept-suspended`` of a Kustomization: kustomize-controller's
  ``finalize`` deletes the inventory (``deleteObjects``) only where
  ``finalizerShouldDeleteResources`` holds (not suspended, ``deletionPolicy`` Delete, or
  MirrorPrune with prune) and removes its finalizer only afterwards — so once the object is gone,
  what it kept stays kept;
- the same of a HelmRelease: helm-controller's ``reconcileDelete`` uninstalls only when not
  suspended (``reconcileReleaseDeletion``), and Helm's uninstall keeps what carries
  ``helm.sh/resource-policy: keep`` (fleetgen's post-renderer in orphan mode);
- ``kept-prune-disabled``: kustomize-controller's prune (``deleteObjects`` through the
  ``ssa`` resource manager) skips an object annotated ``kustomize.toolkit.fluxcd.io/prune:
  disabled``;
- a suspended HelmRelease deploys nothing: helm-controller's ``Reconcile`` returns early
  ("reconciliation is suspended for this object") after its finalizer;
- a rename is a deletion and a creation (docs/diff.md): the old object goes as a deletion with
  the rename's verdict; the new one, applied by kustomize-controller's server-side apply (the
  ``ssa`` resource manager's ``ApplyAllStaged``), takes over what is still there (its uid stays)
  and creates what was deleted (a new uid).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tests.e2e.flux import reconcile
from tests.e2e.kube import Kube
from tests.e2e.live import (
    HELM,
    VERSIONS,
    Obj,
    Site,
    Snapshot,
    get,
    helm_release,
    kept,
    stuck,
)
from tests.e2e.processes import wait_for
from tests.e2e.timeline import Timeline

_STEP = re.compile(r'\.?([^.\[\]]+)|\["([^"]*)"\]|\[(\d+)\]|\[([^\]=]+)=([^\]]*)\]|\[([^\]=]+)\]')
_ABSENT = object()


def at(value: Any, path: str) -> Any:
    """The value at a diff field ``path`` (``spec.values.replicas``, ``labels["a/b"]``,
    ``items[0]``, ``entries[name=x]``, ``destinations[name=a,namespace=b]``,
    ``syncOptions[CreateNamespace]`` in a list of ``KEY=value`` strings); None where it is
    absent."""
    for key, quoted, index, field, wanted, assigned in _STEP.findall(path):
        if isinstance(value, dict) and (key or quoted):
            value = value.get(key or quoted, _ABSENT)
        elif isinstance(value, list) and index:
            value = value[int(index)] if int(index) < len(value) else _ABSENT
        elif isinstance(value, list) and field:
            keys = [pair.partition("=") for pair in f"{field}={wanted}".split(",")]
            value = next(
                (i for i in value if all(str(i.get(k, "")) == v for k, _, v in keys)), _ABSENT
            )
        elif isinstance(value, list) and assigned:
            prefix = f"{assigned}="
            found = (i.removeprefix(prefix) for i in value if str(i).startswith(prefix))
            value = next(found, _ABSENT)
        else:
            value = _ABSENT
        if value is _ABSENT:
            return None
    return value


def leaves(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A change's fields as a live object shows them: an empty list's leaf (``destinations:
    []``) that gets items reads ``new: null`` beside its items' paths (`flatten` keys a list by
    its items), so it is left out where a deeper path of the same field has a value."""
    paths = [f["path"] for f in fields if f["new"] is not None]
    return [
        f
        for f in fields
        if f["new"] is not None
        or not any(p.startswith((f"{f['path']}[", f"{f['path']}.")) for p in paths)
    ]


def _obj(entry: dict[str, Any]) -> Obj:
    return Obj(VERSIONS[entry["group"]], entry["kind"], entry["namespace"], entry["name"])


def leaving(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's deletions and, as deletions, the old side of each rename: the old object on
    its old cluster, with the verdict the rename gives its workloads."""
    renamed = [
        {**entry, "name": entry["from"], "clusters": [entry["from_cluster"] or entry["cluster"]]}
        for entry in report["renames"]
    ]
    return [*report["deletions"], *renamed]


class Check:
    """One cluster's live objects (`Site`) compared with one commit's diff report."""

    def __init__(self, site: Site, cluster: str, timeline: Timeline, timeout: float) -> None:
        self.site, self.cluster, self.timeline = site, cluster, timeline
        self.kube, self.logs, self.timeout = site.flux, site.logs, timeout

    def _gone(self, kube: Kube, obj: Obj) -> None:
        wait_for(
            f"{self.cluster}: {obj} gone", lambda: get(kube, obj) is None, self.timeout, self.logs
        )

    def deletions(self, report: dict[str, Any], before: Snapshot) -> None:
        """Each deletion on this cluster (a rename's old side too): the object and its
        workloads as the verdict says."""
        workloads = self.site.workloads
        for entry in leaving(report):
            if entry["engine"] != "flux" or self.cluster not in entry["clusters"]:
                continue
            obj, verdict = _obj(entry), entry["workloads"]
            kube = self.site.plane(entry["file"])
            held = before.managed.get(obj, [])
            if verdict == "kept-prune-disabled":
                kept(kube, obj, f"{obj} kept (prune disabled)")
                self.timeline.say(f"{self.cluster}: {obj} kept (prune disabled), as diff said")
                continue
            if verdict == "stuck":
                stuck(kube, obj, self.timeout, self.logs)
                self.timeline.say(f"{self.cluster}: {obj} stuck terminating, as diff said")
                continue
            self._gone(kube, obj)
            self.timeline.say(f"{self.cluster}: {obj} deleted (diff: workloads {verdict})")
            for workload in held:
                if verdict == "deleted":
                    self._gone(workloads, workload)
                    self.timeline.say(f"{self.cluster}:   {workload} deleted, as diff said")
                elif verdict in ("orphaned", "kept-suspended"):
                    kept(workloads, workload, f"{workload} {verdict}")
                    self.timeline.say(
                        f"{self.cluster}:   {workload} kept ({verdict}), as diff said"
                    )

    def changes(self, report: dict[str, Any]) -> None:
        """Each generated object added or changed for this cluster reaches every field the
        report gives its new value (on the API server its file is applied to; a hub spoke's
        folder is applied by its own Kustomization, queued at the new revision too)."""
        for change in report["changes"]:
            applied = change["source"] == "generated" and "/flux/" in f"/{change['file']}"
            if not applied or change.get("cluster") != self.cluster:
                continue
            if change["op"] == "removed":
                continue  # the deletions above
            obj, kube = _obj(change), self.site.plane(change["file"])

            def reached(o: Obj = obj, k: Kube = kube, c: dict[str, Any] = change) -> bool:
                live = get(k, o)
                return live is not None and all(
                    at(live, f["path"]) == f["new"] for f in leaves(c["fields"])
                )

            wait_for(f"{self.cluster}: {obj} as diff said", reached, self.timeout, self.logs)
            paths = ", ".join(f"{f['path']} → {f['new']!r}" for f in change["fields"][:4])
            self.timeline.say(f"{self.cluster}: {obj} {change['op']}: {paths}")

    def arrivals(self, report: dict[str, Any], before: Snapshot) -> None:
        """Each object renamed onto this cluster from one on the same API server (a renamed
        cluster; ``before`` taken before the rename): live with every field the rename gives
        it; what the old one left (its workloads ``orphaned``, itself ``kept-prune-disabled``)
        adopted, the same objects; what it ``deleted`` created anew, in the new one's hands."""
        now = self.site.snapshot()
        for entry in report["renames"]:
            if entry["engine"] != "flux" or entry["cluster"] != self.cluster:
                continue
            obj = _obj({**entry, "name": entry["to"]})
            live = get(self.kube, obj)
            assert live is not None, f"diff: {obj} renamed onto {self.cluster}; live: absent"
            for field in entry["fields"]:
                seen = at(live, field["path"])
                assert seen == field["new"], (str(obj), field["path"], field["new"], seen)
            verdict, old = entry["workloads"], replace(obj, name=entry["from"])
            held = [old] if verdict == "kept-prune-disabled" else before.managed.get(old, [])
            assert held, f"{old} managed nothing before the rename"
            for workload in held:
                if verdict != "kept-prune-disabled":
                    assert workload in now.managed.get(obj, []), f"{obj} does not hold {workload}"
                same = now.uids.get(workload) == before.uids[workload]
                fate = "created anew" if verdict == "deleted" else "adopted, same uid"
                assert same == (verdict != "deleted"), f"diff: {workload} {verdict}; live: {same=}"
                self.timeline.say(
                    f"{self.cluster}: {obj} (renamed from {entry['from_cluster']}'s): "
                    f"{workload} {fate} ({verdict} by the old one, as diff said)"
                )

    def releases(self, report: dict[str, Any], before: Snapshot) -> None:
        """Each HelmRelease: suspended, helm-controller saw it and released nothing; else its
        latest release is of its current spec, with the chart versions and values diff said."""
        for doc in self.kube.list(HELM, "HelmRelease", self.site.namespace):
            obj = Obj(HELM, "HelmRelease", self.site.namespace, doc["metadata"]["name"])
            if doc["spec"].get("suspend"):
                self._held(obj, before)
                continue
            wait_for(
                f"{self.cluster}: {obj} released",
                lambda o=obj: self._released(o),
                self.timeout,
                self.logs,
            )
            live = get(self.kube, obj) or {}
            stored = helm_release(self.site.workloads, live)
            assert stored is not None
            if not live["spec"].get("valuesFrom"):
                assert stored.get("config") == live["spec"].get("values"), str(obj)
            name = obj.name
            for bump in report["charts"]["versions"]:
                if bump["app"] == name and self.cluster in bump["clusters"]:
                    assert stored["chart"]["metadata"]["version"] == bump["new"], bump
            for value in report["charts"]["values"]:
                if value["app"] == name and self.cluster in value["clusters"]:
                    assert at(stored.get("config") or {}, value["path"]) == value["new"], value
            self.timeline.say(
                f"{self.cluster}: {obj}: Helm release v{stored['version']} "
                f"(v{before.versions.get(obj, 0)} before), chart "
                f"{stored['chart']['metadata']['version']}, values {stored.get('config')}"
            )

    def _released(self, obj: Obj) -> bool:
        live = get(self.kube, obj) or {}
        status = live.get("status", {})
        ready = any(
            c["type"] == "Ready" and c["status"] == "True" for c in status.get("conditions", [])
        )
        history = status.get("history") or [{}]
        return bool(
            ready
            and status.get("observedGeneration") == live["metadata"]["generation"]
            and history[0].get("chartVersion") == live["spec"]["chart"]["spec"]["version"]
        )

    def _held(self, obj: Obj, before: Snapshot) -> None:
        """Suspended: request a reconcile as ``flux reconcile`` does (helm-controller's
        predicates pass the requestedAt annotation) and wait until helm-controller logs that it
        skipped the object — read from its cache after the root's apply, so with the commit's
        spec — then its release is the one before the commit."""
        log = next(p for p in self.logs if p.name.endswith("helm-controller.log"))
        mark = f'"HelmRelease":{{"name":"{obj.name}","namespace":"{obj.namespace}"}}'

        def skips() -> int:
            return sum(
                "reconciliation is suspended" in line and mark in line
                for line in log.read_text().splitlines()
            )

        seen = skips()
        reconcile(self.kube, HELM, "HelmRelease", obj.name, obj.namespace)
        wait_for(f"{obj} skipped while suspended", lambda: skips() > seen, self.timeout)
        stored = helm_release(self.site.workloads, get(self.kube, obj) or {})
        version = stored["version"] if stored else 0
        assert version == before.versions.get(obj), (str(obj), version, before.versions)
        self.timeline.say(
            f"{self.cluster}: {obj} suspended: helm-controller skipped it, release stays "
            f"v{version} (values {stored.get('config') if stored else None})"
        )
