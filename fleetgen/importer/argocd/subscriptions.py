"""Argo CD's notification subscriptions as `Notify`: the annotations of an Application (or of
an ApplicationSet's template) and of its AppProject, read as notifications-engine reads them
(``pkg/subscriptions/annotations.go``, ``Annotations.iterate`` and ``GetDestinations``):

- ``notifications.argoproj.io/subscribe.<trigger>.<service>: <recipients>``, the recipients
  ``;``-separated (an empty value: one empty recipient, a webhook's or GitHub's);
- ``notifications.argoproj.io/subscribe.<service>``: the service's default triggers
  (``defaultTriggers.<service>`` of argocd-notifications-cm, else ``defaultTriggers``);
- ``notifications.argoproj.io/subscriptions``: a YAML list of ``{trigger: [...], destinations:
  [{service, recipients}]}`` (no trigger: the default ones).

A trigger fleetgen writes (`fleetgen.rules.notify.TRIGGERS`) is its event; a service is a channel
of the kind argocd-notifications-cm here says (``service.<type>`` or ``service.<type>.<name>``,
``pkg/api/config.go`` ``ParseConfig``), else of the kind its name says (``slack``, ``teams``,
``github``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from fleetgen.importer.argocd.common import ARGO, NOTIFICATIONS, Path, Reader
from fleetgen.importer.draft import Instance
from fleetgen.importer.notify import channel_of, hear
from fleetgen.importer.repo import Doc, mapping, mappings, strings
from fleetgen.manifests.yamlio import load_one
from fleetgen.rules.notify import TRIGGERS
from fleetgen.util.templating import Call

PREFIX = NOTIFICATIONS  # what import maps to Notify, never to App(annotations=...)
_SUBSCRIBE = PREFIX + "subscribe."
_SUBSCRIPTIONS = PREFIX + "subscriptions"
_CONFIG = "argocd-notifications-cm"
_EVENTS = {trigger: event for event, trigger in TRIGGERS.items()}
_KINDS = {"slack": "Slack", "teams": "Teams", "webhook": "Webhook", "github": "GitHubStatus"}
_BY_HAND = "keep that subscription as App(annotations=...) by hand"


@dataclass(frozen=True, slots=True)
class _Config:
    """What argocd-notifications-cm here says of services: each one's type, the default
    triggers (all services', and per service)."""

    types: dict[str, str] = field(default_factory=dict)
    defaults: tuple[str, ...] = ()
    service_defaults: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Subscription:
    """One subscription: its triggers (empty: the defaults), service and recipients, and the
    annotation that says it."""

    triggers: tuple[str, ...]
    service: str
    recipients: tuple[str, ...]
    at: Path


def subscribe(
    reader: Reader, origin: Doc, instance: Instance, obj: Mapping[str, Any], project: str
) -> None:
    """What an Application ``obj`` (located at ``origin``: itself or its ApplicationSet) and
    its AppProject ``project`` subscribe ``instance`` to."""
    where: Path = ("spec", "template") if origin.kind == "ApplicationSet" else ()
    config = _config(reader)
    found = [(origin, s) for s in _subscriptions(mapping(obj.get("metadata")), where)]
    for doc in reader.repo.docs:
        if doc.is_(ARGO, "AppProject") and doc.name == project:
            found += [(doc, s) for s in _subscriptions(doc.meta, ())]
    for doc, subscription in found:
        for trigger, channel in _destinations(reader, doc, config, subscription):
            event = _EVENTS.get(trigger)
            if event is None:
                reader.draft.findings.append(
                    doc.finding(
                        f"{_named(doc, subscription)}: trigger {trigger!r} is not one fleetgen "
                        "writes",
                        f"fleetgen writes {', '.join(_EVENTS)} for Notify's events: {_BY_HAND}",
                        subscription.at,
                    )
                )
            elif channel is not None:
                hear(reader.draft, instance, channel, [event])


def _subscriptions(meta: Mapping[str, Any], where: Path) -> Iterator[_Subscription]:
    """The subscriptions of the annotations of ``meta`` (at ``where`` in its object)."""
    for key, value in mapping(meta.get("annotations")).items():
        at: Path = (*where, "metadata", "annotations", str(key))
        if str(key).startswith(_SUBSCRIBE):
            parts = str(key)[len(_SUBSCRIBE) :].split(".")
            triggers, service = ((parts[0],), parts[1]) if len(parts) > 1 else ((), parts[0])
            text = str(value or "")
            recipients = [r.strip() for r in text.split(";") if r.strip()] if text else [""]
            yield _Subscription(triggers, service, tuple(recipients), at)
        elif str(key) == _SUBSCRIPTIONS:
            yield from _listed(value, at)


def _listed(value: Any, at: Path) -> Iterator[_Subscription]:
    """The subscriptions of a ``subscriptions`` annotation (nothing when it is no YAML)."""
    try:
        items = mappings(load_one(str(value or "")))
    except yaml.YAMLError:
        items = []
    for item in items:
        for destination in mappings(item.get("destinations")):
            recipients = tuple(strings(destination.get("recipients"))) or ("",)
            service = str(destination.get("service") or "")
            yield _Subscription(tuple(strings(item.get("trigger"))), service, recipients, at)


def _destinations(
    reader: Reader, doc: Doc, config: _Config, subscription: _Subscription
) -> Iterator[tuple[str, Call | None]]:
    """(trigger, channel) of each trigger and recipient of ``subscription``; None (a finding)
    for a channel fleetgen cannot write."""
    service = subscription.service
    triggers = subscription.triggers or config.service_defaults.get(service, config.defaults)
    if not triggers:
        reader.draft.findings.append(
            doc.finding(
                f"{_named(doc, subscription)}: the default triggers of {service!r}, which no "
                f"{_CONFIG} here names",
                f"name the triggers in the annotation (subscribe.<trigger>.{service}), rerun "
                "import",
                subscription.at,
            )
        )
    for recipient in subscription.recipients:
        channel = _channel(reader, doc, config, subscription, recipient)
        for trigger in triggers:
            yield trigger, channel


def _channel(
    reader: Reader, doc: Doc, config: _Config, subscription: _Subscription, recipient: str
) -> Call | None:
    """The channel of ``recipient`` of a service, of the kind its type says; None (a finding)
    for one fleetgen cannot write."""
    service = subscription.service
    type_ = config.types.get(service, service)
    kind = _KINDS.get(type_)
    fields: dict[str, Any] = {}
    if kind in ("Slack", "Teams"):
        fields = {"channel": recipient.lstrip("#")}
    if kind == "Webhook":
        fields["name"] = service
    elif kind is not None and service != type_:
        fields["service"] = service
    if kind in ("Webhook", "GitHubStatus") and recipient:
        reader.draft.findings.append(
            doc.finding(
                f"{_named(doc, subscription)}: recipient of a {type_} service not mapped",
                "fleetgen writes none for it (its templates in argocd-notifications-cm say "
                "where): nothing to do, unless they read it",
                subscription.at,
            )
        )
    why = None
    if kind is None:
        known = service in config.types
        why = f"of type {type_}" if known else f"not in {_CONFIG} here, nor named after a kind"
    else:
        try:
            channel_of(Call(kind, fields))
        except ValidationError:  # its message holds the value: never shown
            why = "a recipient or service name the spec refuses (a name, never an address)"
    if why is None:
        return Call(kind or "", fields)
    reader.draft.findings.append(
        doc.finding(
            f"{_named(doc, subscription)}: service {service!r}: {why}",
            f"fleetgen's channels are Slack, Teams, webhooks, GitHub statuses: {_BY_HAND}",
            subscription.at,
        )
    )
    return None


def global_subscriptions(reader: Reader) -> None:
    """A finding for the subscriptions argocd-notifications-cm holds for every Application."""
    found = _config_map(reader)
    if found is not None and "subscriptions" in mapping(found.obj.get("data")):
        reader.draft.findings.append(
            found.finding(
                f"ConfigMap {_CONFIG!r}: data.subscriptions (of every Application) not mapped",
                "write them as Fleet(notify=[Notify(...)]) (or on the apps its selectors pick)",
                ("data", "subscriptions"),
            )
        )


def _named(doc: Doc, subscription: _Subscription) -> str:
    """The object and annotation a subscription is written in."""
    return f"{doc.kind} {doc.name!r}: annotation '{subscription.at[-1]}'"


def _config_map(reader: Reader) -> Doc | None:
    return next(
        (
            d
            for d in reader.repo.docs
            if d.kind == "ConfigMap" and not d.group and d.name == _CONFIG
        ),
        None,
    )


def _config(reader: Reader) -> _Config:
    """What argocd-notifications-cm here says of services (empty without one)."""
    found = _config_map(reader)
    data = mapping(found.obj.get("data")) if found is not None else {}
    types, defaults = {}, {}
    for key, value in data.items():
        parts = str(key).split(".")
        if parts[0] == "service" and len(parts) in (2, 3):
            types[parts[-1]] = parts[1]
        elif parts[0] == "defaultTriggers" and len(parts) > 1:
            defaults[".".join(parts[1:])] = _triggers(value)
    return _Config(types, _triggers(data.get("defaultTriggers")), defaults)


def _triggers(value: Any) -> tuple[str, ...]:
    """A YAML list of trigger names in a ConfigMap value (nothing for anything else)."""
    try:
        return tuple(strings(load_one(str(value or ""))))
    except yaml.YAMLError:
        return ()
