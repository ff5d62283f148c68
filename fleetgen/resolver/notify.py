"""Who hears about what: each (app, environment)'s `Notices`, from the `Notify` of the fleet, the
environment and the app, deeper layers adding to shallower ones; ``Notify(on=[])`` silences what
shallower layers send to its channels (and says so in `explain`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from fleetgen.errors import Problem, at
from fleetgen.model import (
    EVENTS,
    App,
    Channel,
    Engine,
    Environment,
    ExternalSecretRef,
    Fleet,
    Notify,
)
from fleetgen.rules.notify import DRIFT_TRIGGER, indistinct


@dataclass(frozen=True, slots=True)
class Route:
    """The events of one channel, each with the layer that asked for it."""

    channel: Channel
    events: tuple[str, ...]  # in `EVENTS` order
    layers: Mapping[str, str] = field(default_factory=dict)  # event -> 'fleet', 'env X', 'app X'


@dataclass(frozen=True, slots=True)
class Notices:
    """An (app, environment)'s routes, by channel id, and the silences that removed some."""

    routes: tuple[Route, ...] = ()
    silenced: tuple[tuple[str, str], ...] = ()  # (channel as shown, the layer that silenced it)


def layers(fleet: Fleet, env: Environment, app: App) -> list[tuple[str, list[Notify]]]:
    """The Notify of each layer over (app, env), shallowest first, with the layer's name."""
    return [
        ("fleet", fleet.notify),
        (f"env {env.name}", env.notify),
        (f"app {app.name}", app.notify),
    ]


def notices_of(stack: Iterable[tuple[str, list[Notify]]]) -> Notices:
    """The `Notices` the layers of ``stack`` make."""
    events: dict[str, dict[str, str]] = {}  # channel id -> event -> layer
    channels: dict[str, Channel] = {}
    silenced: list[tuple[str, str]] = []
    for layer, notifies in stack:
        for notify in notifies:
            for channel in notify.to:
                if not notify.on:
                    events.pop(channel.id, None)
                    silenced.append((channel.shown, layer))
                    continue
                channels[channel.id] = channel
                asked = events.setdefault(channel.id, {})
                for event in notify.on:
                    asked.setdefault(event, layer)
    routes = tuple(
        Route(channels[cid], tuple(e for e in EVENTS if e in asked), asked)
        for cid, asked in sorted(events.items())
    )
    return Notices(routes, tuple(silenced))


def notices(fleet: Fleet, placed: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Notices]:
    """(app, env) -> its Notices, for each placed (app, env) the spec says something about."""
    if not (fleet.notify or any(e.notify for e in fleet.environments)) and not any(
        a.notify for a in fleet.apps
    ):
        return {}
    apps = {app.name: app for app in fleet.apps}
    envs = {env.name: env for env in fleet.environments}
    found = {}
    for app, env in sorted(set(placed)):
        made = notices_of(layers(fleet, envs[env], apps[app]))
        if made.routes or made.silenced:
            found[(app, env)] = made
    return found


def _all(fleet: Fleet) -> Iterator[Notify]:
    yield from fleet.notify
    for env in fleet.environments:
        yield from env.notify
    for app in fleet.apps:
        yield from app.notify


_ADDRESS = (
    "a channel's secret names a store entry (key=, property=), not the address or token "
    "itself: keep the URL in the secret store and name its entry"
)


def _address_like(ref: ExternalSecretRef) -> bool:
    """Whether a store reference holds what looks like an address rather than an entry name."""
    return any("://" in text for text in (ref.key, ref.property or ""))


def problems(fleet: Fleet) -> list[Problem]:
    """Channels of one name (their `id`) declared differently (the output names a Provider, a
    Secret and Alerts after it, so two would collide); a channel's secret that holds an address
    instead of naming a store entry (never repeated in the message)."""
    first: dict[str, Channel] = {}
    found, pasted = [], {}
    for notify in _all(fleet):
        for channel in notify.to:
            if channel.secret is not None and _address_like(channel.secret):
                pasted[id(channel.secret)] = at(channel.secret, _ADDRESS, fleet)
            if not notify.on:
                continue  # a silence names a channel; its other fields do not matter
            seen = first.setdefault(channel.id, channel)
            if (type(seen), seen.model_dump()) != (type(channel), channel.model_dump()):
                found.append(
                    at(
                        channel,
                        f"channel {channel.id!r} is declared differently elsewhere in the spec "
                        "(its Flux Provider, Secret and Alerts are named after it): declare it "
                        "once, e.g. as a variable, and use it everywhere",
                        fleet,
                    )
                )
    return [*pasted.values(), *found]


def explained(notices: Notices, engine: Engine, kind: str) -> list[tuple[str, object, str]]:
    """(key, value, layer) of what `explain` shows of a placement's ``notices`` on ``engine``
    (``kind``: its Flux object's): each channel's events and the layers that asked for them,
    each silence, and what the engine cannot tell apart."""
    rows: list[tuple[str, object, str]] = []
    for route in notices.routes:
        asked = ", ".join(dict.fromkeys(route.layers[event] for event in route.events))
        rows.append((f"notify/{route.channel.shown}", list(route.events), asked))
    rows += [(f"notify/{shown}", "silenced", layer) for shown, layer in notices.silenced]
    events = {event for route in notices.routes for event in route.events}
    if engine == "flux" and events:
        rows.append(("notify/engine", "; ".join(indistinct([kind])), "flux"))
    if engine == "argocd" and "drift_corrected" in events:
        note = f"drift_corrected: define the trigger {DRIFT_TRIGGER} in argocd-notifications-cm"
        rows.append(("notify/engine", note, "argocd"))
    return rows
