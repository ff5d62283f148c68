"""Notifications: what each app instance notifies, through which channel, as the engines'
objects say it (Argo CD's subscription annotations: `fleetgen.importer.argocd.subscriptions`;
Flux's Alerts and Providers: `fleetgen.importer.flux.alerts`), laid out as `Notify` on the
shallowest layer that holds it (the fleet, an environment, the app), and compared after the build
with what the imported fleet's Notify sends."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from fleetgen.importer.apps import Folded
from fleetgen.importer.draft import Draft, Instance
from fleetgen.importer.findings import Finding
from fleetgen.model import EVENTS, Channel, ExternalSecretRef, GitHubStatus, Slack, Teams, Webhook
from fleetgen.resolver.plan import Placement, Plan
from fleetgen.util.templating import Call, py_literal

MODELS: dict[str, type[Channel]] = {
    "Slack": Slack,
    "Teams": Teams,
    "Webhook": Webhook,
    "GitHubStatus": GitHubStatus,
}
Pair = tuple[str, str]  # (channel as text, event)


def channel_of(call: Call) -> Channel:
    """The channel ``call`` (``Slack(...)`` …) writes; raises pydantic's ValidationError for one
    the spec refuses (its message may hold the value: never show it)."""
    fields = {
        key: ExternalSecretRef(**value.kwargs) if isinstance(value, Call) else value
        for key, value in call.kwargs.items()
    }
    return MODELS[call.name](**fields)


def hear(draft: Draft, instance: Instance, channel: Call, events: Iterable[str]) -> None:
    """``instance`` notifies ``channel`` of ``events``; drift_corrected of a GitHub commit
    status, which the spec refuses (no commit to mark), left out with a finding."""
    wanted = set(events)
    if channel.name == "GitHubStatus" and "drift_corrected" in wanted:
        wanted.discard("drift_corrected")
        draft.findings.append(
            instance.origin.finding(
                f"{instance.name}: drift_corrected sent as a GitHub commit status: not mapped",
                "the engines correct drift without a new commit: send it to a chat channel",
            )
        )
    if not wanted:
        return
    key = py_literal(channel)
    draft.channels.setdefault(key, channel)
    instance.heard.setdefault(key, set()).update(wanted)


@dataclass(slots=True)
class Layered:
    """The `Notify` calls of each layer: the fleet's, by environment and by app."""

    fleet: list[Call] = field(default_factory=list)
    envs: dict[str, list[Call]] = field(default_factory=dict)
    apps: dict[str, list[Call]] = field(default_factory=dict)


def layered(draft: Draft, apps: Sequence[Folded]) -> Layered:
    """What the apps' instances notify, on the shallowest layer that holds it: what every
    placement of a fleet of several apps notifies, the fleet's; what every app of an environment
    of several does, the environment's; the rest the app's. Notify has no layer per cluster, nor
    per app and environment: what only some of an app's clusters notify is sent on all of them
    (the faithfulness check says so, `compared`)."""
    env_of = {cluster.name: cluster.env for cluster in draft.clusters}
    heard: dict[tuple[str, str], set[Pair]] = {}
    for app in apps:
        for instance in app.instances:
            heard.setdefault((app.name, env_of[instance.cluster]), set()).update(
                (key, event) for key, events in instance.heard.items() for event in events
            )
    if not any(heard.values()):
        return Layered()
    several = len({app for app, _ in heard}) > 1
    fleet = set.intersection(*heard.values()) if several else set()
    envs: dict[str, set[Pair]] = {}
    for env in draft.envs:
        here = [pairs - fleet for (_, e), pairs in heard.items() if e == env]
        envs[env] = set.intersection(*here) if len(here) > 1 else set()
    own: dict[str, set[Pair]] = {}
    for (name, env), pairs in heard.items():
        own.setdefault(name, set()).update(pairs - fleet - envs[env])
    return Layered(
        _calls(draft, fleet),
        {env: _calls(draft, pairs) for env, pairs in envs.items() if pairs},
        {app: _calls(draft, pairs) for app, pairs in own.items() if pairs},
    )


def _calls(draft: Draft, pairs: set[Pair]) -> list[Call]:
    """``Notify(on=[...], to=[...])`` of ``pairs``: one per set of events, its channels those
    notified of exactly those."""
    events: dict[str, list[str]] = {}
    for key, event in pairs:
        events.setdefault(key, []).append(event)
    by_events: dict[tuple[str, ...], list[Call]] = {}
    for key in sorted(events):
        on = tuple(event for event in EVENTS if event in events[key])
        by_events.setdefault(on, []).append(draft.channels[key])
    ordered = sorted(by_events.items(), key=lambda item: [EVENTS.index(e) for e in item[0]])
    return [Call("Notify", {"on": list(on), "to": channels}) for on, channels in ordered]


def compared(
    channels: Mapping[str, Call],
    pairs: Iterable[tuple[str, Instance, Placement | None]],
    plan: Plan,
) -> list[Finding]:
    """What the imported fleet's Notify sends of each placement against what its instance sent
    on the original: (channel, event) both ways."""
    found = []
    for name, instance, placement in pairs:
        notices = plan.notices.get((name, placement.env)) if placement is not None else None
        ours = {(r.channel.id, e) for r in notices.routes for e in r.events} if notices else set()
        theirs = {
            (channel_of(channels[key]).id, event)
            for key, events in instance.heard.items()
            for event in events
        }
        for what, differ in (("also sends", ours - theirs), ("does not send", theirs - ours)):
            if differ and placement is not None:
                said = ", ".join(f"{event} to {cid}" for cid, event in sorted(differ))
                found.append(
                    instance.origin.finding(
                        f"{name} on {instance.cluster!r}: the import {what} {said}", _TODO
                    )
                )
    return found


_TODO = (
    "Notify holds on every cluster of an environment and in every environment of an app: the "
    "import sends what any of them did on all of them; check the Notify in fleet.py"
)
