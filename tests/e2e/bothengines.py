"""A walkthrough driving both engines at once (`Steps` made of an Argo CD and a Flux one): each
commit is checked by both engines' checks (`tests.e2e.argocheck`, `tests.e2e.diffcheck`), then
each placement ``fleetgen diff`` says moves between them (``placements.moved``) against its
``workloads``: ``orphaned``, the same objects (same uid) now managed by the new engine;
``deleted``, deleted by the old engine and created anew (a new uid) by the new one. A `Watch`
polls the moving workloads from before the commit to the end of its check, so the timeline
shows when each went and came back, and by whom."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.kube import Kube
from tests.e2e.live import Obj, get
from tests.e2e.processes import wait_for
from tests.e2e.timeline import Timeline
from tests.e2e.walkthrough import Steps


def owners(live: dict[str, Any] | None) -> str:
    """Who wrote an object last, by field manager (``argocd-controller``,
    ``kustomize-controller``, ``helm-controller``), with its uid's start."""
    if live is None:
        return "absent"
    managers = sorted({m.get("manager", "?") for m in live["metadata"].get("managedFields", [])})
    return f"uid {live['metadata']['uid'][:8]}, managers {', '.join(managers)}"


@dataclass
class Watch:
    """Polls ``objs`` on ``kube`` every ``period`` seconds in a thread, saying on the timeline
    each time one goes or comes back (or comes with another uid); ``seen`` keeps each object's
    uids in order (None while absent)."""

    kube: Kube
    objs: list[Obj]
    timeline: Timeline
    period: float = 0.3
    seen: dict[Obj, list[str | None]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _poll(self) -> None:
        for obj in self.objs:
            try:
                live = get(self.kube, obj)
            except OSError:
                continue
            uid = live["metadata"]["uid"] if live else None
            history = self.seen.setdefault(obj, [])
            if not history or history[-1] != uid:
                if history:
                    self.timeline.say(
                        f"  watch: {obj} {'deleted' if uid is None else owners(live)}"
                    )
                history.append(uid)

    def start(self) -> Watch:
        self._poll()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self._poll()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._poll()


@dataclass
class BothEngines(Steps):
    """The fleet's Argo CD and Flux walkthroughs (``engines``: "argocd", "flux" → `Steps`) on
    the same commits; ``targets``: each fleet cluster's API server, where the workloads are."""

    engines: dict[str, Steps]
    targets: dict[str, Kube]
    timeline: Timeline
    timeout: float = 180
    watches: list[Watch] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.repo = next(iter(self.engines.values())).repo

    def settle(self) -> None:
        for engine in self.engines.values():
            engine.settle()

    def placement(self, app: str, cluster: str, snapshot: dict[str, Any]) -> list[Obj]:
        return [
            obj
            for name, engine in self.engines.items()
            for obj in engine.placement(app, cluster, snapshot[name])
        ]

    def snapshot(self) -> dict[str, Any]:
        """Each engine's snapshot; ``uids``: the uid of every workload either manages now; and
        a `Watch` on those workloads started per cluster."""
        taken: dict[str, Any] = {name: e.snapshot() for name, e in self.engines.items()}
        uids: dict[tuple[str, Obj], str] = {}
        for cluster, kube in self.targets.items():
            held: set[Obj] = set()
            for name, engine in self.engines.items():
                for app in self._apps(cluster):
                    held.update(engine.placement(app, cluster, taken[name]))
            for obj in held:
                live = get(kube, obj)
                if live is not None:
                    uids[cluster, obj] = live["metadata"]["uid"]
            self.watches.append(Watch(kube, sorted(held), self.timeline).start())
        taken["uids"] = uids
        return taken

    def _apps(self, cluster: str) -> set[str]:
        """The apps placed on ``cluster`` at the head commit (``fleetgen explain``)."""
        clusters = self.repo.explain()["clusters"]
        return {p["app"] for c in clusters if c["name"] == cluster for p in c["apps"]}

    def check(self, head: str, report: dict[str, Any], before: dict[str, Any]) -> None:
        try:
            for engine in self.engines.values():  # both read the commit at once
                engine.kick()
            for name, engine in self.engines.items():
                engine.check(head, report, before[name])
            self.moves(report, before)
        finally:
            for watch in self.watches:
                watch.stop()
            self.watches.clear()

    def moves(self, report: dict[str, Any], before: dict[str, Any]) -> None:
        """Each moved placement's workloads (what the old engine's object managed before the
        commit) end up managed by the new engine, as ``workloads`` says: the same uid
        (``orphaned``: adopted) or a new one (``deleted``: recreated)."""
        for move in report["placements"]["moved"]:
            self._move(move, before)

    def _move(self, move: dict[str, Any], before: dict[str, Any]) -> None:
        """One moved placement: waited for until the old engine's object is gone and the new
        one manages what it managed; then each object's uid against the verdict."""
        app, cluster, verdict = move["app"], move["cluster"], move["workloads"]
        old, new = self.engines[move["from"]], self.engines[move["to"]]
        held = [o for o in old.placement(app, cluster, before[move["from"]]) if o.namespace]
        assert held, f"{move['from']} managed nothing of {app} on {cluster} before the move"
        kube = self.targets[cluster]
        self.timeline.say(
            f"{cluster}: {app} moves {move['from']} → {move['to']} (diff: workloads "
            f"{verdict}); {move['from']} managed {', '.join(map(str, held))}"
        )

        def adopted(objs: list[Obj] = held) -> bool:
            if old.placement(app, cluster, old.snapshot()):
                return False  # the old engine's object (and its finalizer) not done yet
            now = set(new.placement(app, cluster, new.snapshot()))
            return all(o in now and get(kube, o) is not None for o in objs)

        try:
            wait_for(f"{cluster}: {app} moved to {move['to']}", adopted, self.timeout)
        except TimeoutError as error:
            live = ", ".join(f"{o}: {owners(get(kube, o))}" for o in held)
            now = ", ".join(map(str, new.placement(app, cluster, new.snapshot())))
            raise AssertionError(
                f"diff: {app} on {cluster} moves to {move['to']}, workloads {verdict}; "
                f"live: {live}; {move['to']} manages {now or 'nothing'} ({error})"
            ) from None
        for obj in held:
            was, live = before["uids"].get((cluster, obj)), get(kube, obj)
            assert live is not None and was is not None, (str(obj), was)
            same = live["metadata"]["uid"] == was
            outcome = "adopted (same uid)" if same else "recreated (new uid)"
            self.timeline.say(f"{cluster}:   {obj} {outcome} by {move['to']}: {owners(live)}")
            expected = "orphaned" if same else "deleted"
            assert verdict == expected, f"diff: {obj} {verdict}; live: {outcome}"
