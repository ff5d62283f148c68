"""diff: switching placements between manual and automated sync, in words per environment and
engine ("prod: app web on Argo CD, automated sync off: ..."), from both sides' placements."""

from __future__ import annotations

from collections import defaultdict

from fleetgen.diffs.facts import Side
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
        f"{env}: {'app' if len(names) == 1 else 'apps'} {', '.join(sorted(names))} "
        f"on {_STATE[(engine, manual)]}"
        for (env, engine, manual), names in sorted(apps.items())
    ]
