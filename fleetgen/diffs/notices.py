"""diff: what a change does to who hears about what, in words per environment ("prod:
sync_failed of api no longer sent to #prod-alerts"), from the `Notify` of both sides' specs."""

from __future__ import annotations

from collections import defaultdict

from fleetgen.diffs.facts import Side
from fleetgen.resolver.notify import notices

Heard = dict[tuple[str, str], dict[str, set[str]]]  # (app, env) -> channel as shown -> events


def _heard(side: Side) -> Heard:
    """What each placed (app, env) of ``side`` sends to each channel."""
    if side.loaded is None:
        return {}
    fleet = side.loaded.fleet
    env_of = {cluster.name: cluster.env for cluster in fleet.clusters}
    placed = {(app, env_of[cluster]) for app, cluster in side.facts.engine if cluster in env_of}
    return {
        key: {route.channel.shown: set(route.events) for route in found.routes}
        for key, found in notices(fleet, placed).items()
    }


def notification_notes(base: Side, head: Side) -> list[str]:
    """One line per (environment, event, channel, now or no longer sent), naming the apps (an
    app placed or removed by the change included)."""
    before, after = _heard(base), _heard(head)
    apps: dict[tuple[str, str, str, bool], list[str]] = defaultdict(list)
    for key in sorted(set(before) | set(after)):
        app, env = key
        was, now = before.get(key, {}), after.get(key, {})
        for shown in sorted(set(was) | set(now)):
            old, new = was.get(shown, set()), now.get(shown, set())
            for event in sorted(old - new):
                apps[(env, event, shown, False)].append(app)
            for event in sorted(new - old):
                apps[(env, event, shown, True)].append(app)
    return [
        f"{env}: {event} of {', '.join(names)} {'now' if sent else 'no longer'} sent to {shown}"
        for (env, event, shown, sent), names in sorted(apps.items())
    ]
