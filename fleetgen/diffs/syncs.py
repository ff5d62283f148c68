"""diff: sync in words, per environment and engine, from both sides' placements: placements
switching between manual and automated sync ("prod: app web on Argo CD, automated sync off:
..."), and changes a manual placement holds back ("held: prod is manual (suspended): ...")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from fleetgen.diffs.blast import FLUX_GROUP, HELM_GROUP
from fleetgen.diffs.facts import ARGO_GROUP, Change, Context, Pair, Side
from fleetgen.resolver.plan import SUSPENDED

# (engine, now manual) -> the state the placements are in, and what it means
_STATE = {
    ("argocd", True): "Argo CD, automated sync off: a change reaches the clusters only when "
    "someone syncs the Application by hand",
    ("argocd", False): "Argo CD, automated sync on: every change syncs by itself again",
    ("flux", True): f"Flux, {SUSPENDED} (the parent Kustomization re-applies suspend: true, so "
    "a `flux resume` by hand does not last)",
    ("flux", False): "Flux, resumed: every change deploys by itself again",
}
_SUSPENDED_STATE, _, _SUSPENDED_MEANS = SUSPENDED.partition(": ")
# engine -> how a change of its manual placements waits, after "held: <env> "
_HELD = {
    "argocd": "has automated sync off: Argo CD shows these apps OutOfSync until someone syncs them",
    "flux": f"is manual ({_SUSPENDED_STATE}): {_SUSPENDED_MEANS}",
}
# the objects that sync a placement: what they say takes effect only when it syncs
_SYNCING = {
    (ARGO_GROUP, "Application"),
    (ARGO_GROUP, "ApplicationSet"),
    (FLUX_GROUP, "Kustomization"),
    (HELM_GROUP, "HelmRelease"),
}


def sync_notes(base: Side, head: Side) -> list[str]:
    """One line per (environment, engine, manual or automated now) naming the apps whose sync
    switches there, of the placements both sides have on the same engine (a moved placement's
    own line says whether the new engine holds it suspended)."""
    before, after = base.facts, head.facts
    apps: dict[tuple[str, str, bool], set[str]] = defaultdict(set)
    for pair, engine in after.engine.items():
        manual = pair in after.manual
        if before.engine.get(pair) == engine and manual != (pair in before.manual):
            apps[(after.cluster_env[pair[1]], engine, manual)].add(pair[0])
    return [
        f"{env}: {_apps(names)} on {_STATE[(engine, manual)]}"
        for (env, engine, manual), names in sorted(apps.items())
    ]


def held_notes(base: Side, head: Side, changes: Iterable[Change]) -> list[str]:
    """One line per (environment, engine) naming the apps whose changes wait for a sync: of
    placements manual at both sides on the same engine, or added manual (the switch itself is
    `sync_notes`', a move's its own), the changes that would deploy something (`_deploys`)."""
    ctx, after = Context(base.facts, head.facts), head.facts
    apps: dict[tuple[str, str], set[str]] = defaultdict(set)
    for change in changes:
        if change.where.apps and _deploys(change):
            for app, cluster in ctx.reached(change.where) & _manual_both(base, head):
                apps[(after.cluster_env[cluster], after.engine[(app, cluster)])].add(app)
    return [
        f"held: {env} {_HELD[engine]} ({_apps(names)})"
        for (env, engine), names in sorted(apps.items())
    ]


def _manual_both(base: Side, head: Side) -> set[Pair]:
    """Head's manual placements that were manual on the same engine at base, or not there."""
    before, after = base.facts, head.facts
    return {
        pair
        for pair in after.manual
        if before.engine.get(pair) is None
        or (before.engine[pair] == after.engine[pair] and pair in before.manual)
    }


def _deploys(change: Change) -> bool:
    """Whether a change would deploy something at its placements' next sync: anything of an
    overlay the engines build or of their rendered objects, an object that syncs a placement
    (Application, ApplicationSet, Flux Kustomization, HelmRelease) added or with its ``spec``
    changed outside the sync policy — not one removed (the deletions say what that does)."""
    if change.source == "rendered" or change.obj.file.startswith("overlays/"):
        return True
    if (change.obj.key.group, change.obj.key.kind) not in _SYNCING or change.op == "removed":
        return False
    return change.op == "added" or any(
        f.path.startswith("spec.") and "syncPolicy" not in f.path for f in change.fields
    )


def _apps(names: set[str]) -> str:
    """``app web`` or ``apps api, web``."""
    return f"{'app' if len(names) == 1 else 'apps'} {', '.join(sorted(names))}"
