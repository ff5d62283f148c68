"""Flux's notifications as `Notify`: each Alert sends its Provider's channel the events of its
``eventSources`` that its severity and message lists let through, as notification-controller
filters them (``internal/server/event_handlers.go`` ``filterAlertsForEvent``):
``eventMatchesAlertSource`` matches a source's kind, namespace (the Alert's by default), name
(``*``: any) and ``matchLabels``, and lets every event through an ``eventSeverity: info`` Alert,
only error events through an ``error`` one; ``messageIsIncluded`` needs one ``inclusionList``
expression to match the message, ``messageIsExcluded`` none of ``exclusionList``.

Which events an Alert sends is read by running that filter over the messages the controllers
write for each event (`fleetgen.rules.notify`): an event is sent when its messages pass. A
Provider is a channel of its type; its Secret's material is never read: an ExternalSecret here
that makes it gives the channel's ``secret=ExternalSecretRef(...)``, else a placeholder."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import Finding, unmapped
from fleetgen.importer.flux.clusters import fleet_repo
from fleetgen.importer.flux.common import Walk, is_flux
from fleetgen.importer.flux.hub import EXTERNAL_SECRETS
from fleetgen.importer.notify import MODELS, channel_of, hear
from fleetgen.importer.repo import Doc, at, mapping, mappings, strings
from fleetgen.rules.notify import ERRORS
from fleetgen.scaffold import remote
from fleetgen.util.templating import Call

NOTIFICATION = "notification.toolkit.fluxcd.io"
STORE = "notify-secrets"  # the store a channel's placeholder secret names, for the user to fill
# The messages the controllers write for each event: (kind of the source, a commit status
# provider) -> (event, severity, message). On a Kustomization a corrected drift is a deploy.
_APPLIED = "Deployment/shop/web configured"
_FAILED = "Helm upgrade failed for release shop/web with chart web@1.2.3: "
_KUSTOMIZATION_ERRORS = (
    ("sync_failed", "error", "Deployment/shop/web dry-run failed (Invalid): spec: Invalid value"),
    ("health_degraded", "error", "health check failed after 5m0s: timeout waiting for: "),
)
_MESSAGES: dict[tuple[str, bool], tuple[tuple[str, str, str], ...]] = {
    ("Kustomization", False): (*_KUSTOMIZATION_ERRORS, ("deployed", "info", _APPLIED)),
    ("Kustomization", True): (
        *_KUSTOMIZATION_ERRORS,
        ("deployed", "info", "Reconciliation finished in 1.5s, next run in 10m0s"),
    ),
    ("HelmRelease", False): (
        ("sync_failed", "error", _FAILED + "template: web/templates/deployment.yaml: error"),
        ("health_degraded", "error", _FAILED + "context deadline exceeded"),
        ("deployed", "info", "Helm install succeeded for release shop/web.v1 with chart web@1.2.3"),
        ("deployed", "info", "Helm upgrade succeeded for release shop/web.v2 with chart web@1.2.4"),
        ("drift_corrected", "info", "Cluster state of release shop/web.v2 has been corrected"),
    ),
}
_KINDS = {"slack": "Slack", "msteams": "Teams", "generic": "Webhook", "generic-hmac": "Webhook"}
_KINDS["github"] = "GitHubStatus"
_ALERT_MAPPED: dict[str, tuple[str, ...]] = {
    "providerRef": ("name",),
    "eventSeverity": (),
    "eventSources": (),
    "inclusionList": (),
    "exclusionList": (),
    "suspend": (),
}
_SOURCE_MAPPED: dict[str, tuple[str, ...]] = {
    "kind": (),
    "name": (),
    "namespace": (),
    "matchLabels": (),
}
_PROVIDER_MAPPED: dict[str, tuple[str, ...]] = {
    "type": (),
    "channel": (),
    "address": (),
    "secretRef": ("name",),
}
_EXTERNAL_MAPPED: dict[str, tuple[str, ...]] = {
    "secretStoreRef": (),
    "target": ("name",),
    "data": (),
    "refreshInterval": (),
}
_TODO = "fleetgen's Alerts send Notify's events only: add it by hand if it matters"


def is_notice(doc: Doc) -> bool:
    """Whether ``doc`` is a Flux Alert or Provider."""
    return doc.is_(NOTIFICATION, "Alert") or doc.is_(NOTIFICATION, "Provider")


def provider_secrets(docs: Sequence[Doc]) -> list[Doc]:
    """The Secrets and ExternalSecrets among ``docs`` that make a Provider's Secret there."""
    wanted = {
        (doc.namespace, str(at(doc.spec, "secretRef", "name")))
        for doc in docs
        if doc.is_(NOTIFICATION, "Provider") and at(doc.spec, "secretRef", "name")
    }
    return [doc for doc in docs if _makes(doc) in wanted]


def _makes(doc: Doc) -> tuple[str, str] | None:
    """(namespace, name) of the Secret a Secret or ExternalSecret makes."""
    if doc.is_(EXTERNAL_SECRETS, "ExternalSecret"):
        return doc.namespace, str(at(doc.spec, "target", "name") or doc.name)
    return (doc.namespace, doc.name) if doc.kind == "Secret" and not doc.group else None


def alerts(walk: Walk, instances: Sequence[Instance]) -> None:
    """What the Alerts applied on the walk's cluster send of ``instances``, and a finding for
    each Provider no Alert sends to."""
    providers = {(d.namespace, d.name): d for d in walk.notices if d.is_(NOTIFICATION, "Provider")}
    channels: dict[tuple[str, str], Call | None] = {}
    for alert in (d for d in walk.notices if d.is_(NOTIFICATION, "Alert")):
        walk.draft.findings += unmapped(alert, _ALERT_MAPPED, {})
        ref = (alert.namespace, str(at(alert.spec, "providerRef", "name") or ""))
        if ref in providers and ref not in channels:
            channels[ref] = _channel(walk, providers[ref])
        severity = alert.spec.get("eventSeverity", "info")
        why = None
        if ref not in providers:
            why = f"its Provider {ref[1]!r} is not applied beside it"
        elif channels[ref] is None:
            why = f"its Provider {ref[1]!r} is not"
        elif alert.spec.get("suspend") is True:
            why = "suspended: spec.suspend"
        elif severity not in ("info", "error"):
            why = f"eventSeverity {severity!r} is neither info nor error"
        channel = channels.get(ref)
        if why is None and channel is not None:
            _sent(walk, alert, channel, instances)
        else:
            walk.draft.findings.append(
                alert.finding(f"Alert {alert.name!r} not mapped ({why})", _TODO)
            )
    walk.draft.findings += [
        doc.finding(f"Provider {doc.name!r}: no Alert sends to it: not mapped", "nothing to do")
        for key, doc in providers.items()
        if key not in channels
    ]
    walk.draft.findings += [
        f for d in walk.notices if d.kind in ("Secret", "ExternalSecret") for f in _kept(d)
    ]


def _kept(doc: Doc) -> list[Finding]:
    """What is said of the Secret or ExternalSecret of a Provider (its channel's secret)."""
    if doc.kind == "Secret":
        return [
            doc.finding(
                f"Secret {doc.name!r}: a Provider's address or token, kept in the repository: "
                "not copied",
                "put it in a store; name its entry in the channel's secret=ExternalSecretRef(...)",
            )
        ]
    spec = {k: v for k, v in doc.spec.items() if (k, v) != ("refreshInterval", "1h")}
    return unmapped(doc, _EXTERNAL_MAPPED, {}, spec)


def _sent(walk: Walk, alert: Doc, channel: Call, instances: Sequence[Instance]) -> None:
    """What ``alert`` sends ``channel`` of each app its event sources name."""
    commit = channel.name == "GitHubStatus"
    lists = _lists(alert)
    matched: set[tuple[str, int]] = set()
    for index, source in enumerate(mappings(alert.spec.get("eventSources"))):
        where = ("spec", "eventSources", index)
        label = f"eventSources[{index}]"
        walk.draft.findings += unmapped(alert, _SOURCE_MAPPED, {}, source, where, label)
        kind = str(source.get("kind") or "")
        messages = _MESSAGES.get((kind, commit))
        targets = _targets(walk, alert, source, instances)
        if messages is None or not targets:
            kinds = "Kustomizations" + ("" if commit else " and HelmReleases")
            why = (
                f"{kind} events: fleetgen's Alerts send those of {kinds}"
                if messages is None
                else f"{kind} {source.get('name')!r} is no app import made here"
            )
            walk.draft.findings.append(
                alert.finding(f"Alert {alert.name!r}: {label}: {why}: not mapped", _TODO, where)
            )
            continue
        events, partial = _events(alert, messages, lists, matched)
        if partial:
            walk.draft.findings.append(
                alert.finding(
                    f"Alert {alert.name!r}: its lists let through part of what fleetgen sends "
                    f"for {', '.join(sorted(partial))} of {kind} events: mapped as all of it",
                    "check the channel may hear all of it",
                )
            )
        for instance in targets:
            hear(walk.draft, instance, channel, events)
    walk.draft.findings += _unmatched(alert, lists, matched)


def _targets(
    walk: Walk, alert: Doc, source: Mapping[str, Any], instances: Sequence[Instance]
) -> list[Instance]:
    """The instances an event source names (``eventMatchesAlertSource``)."""
    namespace = str(source.get("namespace") or alert.namespace or walk.namespace)
    name, labels = str(source.get("name") or ""), mapping(source.get("matchLabels"))
    return [
        instance
        for instance in instances
        if is_flux(instance.origin)
        and instance.origin.kind == source.get("kind")
        and (instance.origin.namespace or walk.namespace) == namespace
        and name in ("*", instance.origin.name)
        and labels.items() <= mapping(instance.origin.meta.get("labels")).items()
    ]


_Lists = tuple[list[re.Pattern[str] | None], list[re.Pattern[str] | None]]


def _lists(alert: Doc) -> _Lists:
    """The Alert's inclusion and exclusion expressions (None: one that does not compile, which
    notification-controller skips)."""

    def compiled(text: str) -> re.Pattern[str] | None:
        try:
            return re.compile(text)
        except re.error:
            return None

    return (
        [compiled(text) for text in strings(alert.spec.get("inclusionList"))],
        [compiled(text) for text in strings(alert.spec.get("exclusionList"))],
    )


def _events(
    alert: Doc,
    messages: Iterable[tuple[str, str, str]],
    lists: _Lists,
    matched: set[tuple[str, int]],
) -> tuple[set[str], set[str]]:
    """(The events the Alert sends of sources whose events are ``messages``, those of which it
    lets only part through); the list entries that matched a message added to ``matched``."""
    info = alert.spec.get("eventSeverity", "info") != "error"
    sent: dict[str, list[bool]] = {}
    for event, severity, message in messages:
        included = [i for i, p in enumerate(lists[0]) if p is not None and p.search(message)]
        excluded = [i for i, p in enumerate(lists[1]) if p is not None and p.search(message)]
        matched |= {("inclusionList", i) for i in included}
        matched |= {("exclusionList", i) for i in excluded}
        passes = (info or severity == "error") and (included or not lists[0]) and not excluded
        sent.setdefault(event, []).append(bool(passes))
    events = {event for event, passed in sent.items() if any(passed)}
    partial = {event for event, passed in sent.items() if any(passed) and not all(passed)}
    if events & ERRORS:  # one Alert at severity error sends both
        partial |= ERRORS - events
        events |= ERRORS
    return events, partial


def _unmatched(alert: Doc, lists: _Lists, matched: set[tuple[str, int]]) -> list[Finding]:
    """A finding for each list entry that matches no message fleetgen's Alerts send, and for
    an info Alert without inclusionList (which also sends every other event)."""
    found = [
        alert.finding(
            f"Alert {alert.name!r}: {field}[{index}] matches no message of the events fleetgen "
            "sends: not mapped",
            _TODO,
            ("spec", field, index),
        )
        for field, patterns in zip(("inclusionList", "exclusionList"), lists, strict=True)
        for index in range(len(patterns))
        if (field, index) not in matched
    ]
    if alert.spec.get("eventSeverity", "info") != "error" and not lists[0]:
        found.append(
            alert.finding(
                f"Alert {alert.name!r}: eventSeverity info without inclusionList also sends "
                "every other event of its sources (progress, dependencies, reconciliations)",
                "fleetgen's Alerts send Notify's events only: check that is enough",
                ("spec", "eventSeverity"),
            )
        )
    return found


def _channel(walk: Walk, provider: Doc) -> Call | None:
    """The channel of a Provider, its secret a store reference; None (a finding) for one
    fleetgen cannot write."""
    walk.draft.findings += unmapped(provider, _PROVIDER_MAPPED, {})
    spec = provider.spec
    type_ = str(spec.get("type") or "")
    kind = _KINDS.get(type_)
    name = f"Provider {provider.name!r}"
    fields: dict[str, Any] = {}
    if kind in ("Slack", "Teams"):
        fields["channel"] = str(spec.get("channel") or provider.name).lstrip("#")
    elif kind == "Webhook":
        fields["name"] = provider.name
    said = _said(walk, provider, kind, type_)
    walk.draft.findings += said
    why = None
    if kind is None:
        why = f"type {type_!r}: fleetgen's channels are Slack, Teams, webhooks, GitHub statuses"
    else:
        try:
            channel_of(Call(kind, fields))
        except ValidationError:  # its message holds the value: never shown
            why = "its channel (or name) is no name the spec takes (a name, never an address)"
    if why is not None:
        walk.draft.findings.append(provider.finding(f"{name} not mapped ({why})", _TODO))
        return None
    return Call(kind or "", {**fields, "secret": _secret(walk, provider, kind or "")})


def _said(walk: Walk, provider: Doc, kind: str | None, type_: str) -> list[Finding]:
    """What a Provider says that its channel does not carry: no channel name, an address
    written in it, another repository than the fleet's, HMAC signing."""
    spec, name = provider.spec, f"Provider {provider.name!r}"
    found = []
    if kind in ("Slack", "Teams") and not spec.get("channel"):
        found.append(
            provider.finding(
                f"{name}: no channel: named after the Provider",
                "set the channel's name in fleet.py",
            )
        )
    if spec.get("address") and kind != "GitHubStatus":
        found.append(
            provider.finding(
                f"{name}: spec.address is written in the Provider: not copied",
                "keep it in the store entry the channel's secret=ExternalSecretRef(...) names",
                ("spec", "address"),
            )
        )
    if kind == "GitHubStatus":
        found += _repository(walk, provider)
    if type_ == "generic-hmac":
        found.append(
            provider.finding(
                f"{name}: type generic-hmac: mapped as a Webhook, which fleetgen's Provider "
                "posts unsigned (type generic)",
                "check the receiver accepts that",
                ("spec", "type"),
            )
        )
    return found


def _repository(walk: Walk, provider: Doc) -> list[Finding]:
    """A finding when a GitHub Provider marks another repository than the fleet's."""
    address, repo = str(provider.spec.get("address") or ""), fleet_repo(walk.repo) or ""
    if remote.https_url(address).url == remote.https_url(repo).url:
        return []
    return [
        provider.finding(
            f"Provider {provider.name!r}: spec.address is another repository than the one Flux "
            "reads here",
            "fleetgen's GitHub statuses mark the commits of Fleet(repo=...): add others by hand",
            ("spec", "address"),
        )
    ]


def _secret(walk: Walk, provider: Doc, kind: str) -> Call:
    """``ExternalSecretRef(...)`` of the store entry holding the channel's address or token:
    the ExternalSecret here that makes the Provider's Secret, else a placeholder (a finding)."""
    secret_key = MODELS[kind].secret_key
    secret = str(at(provider.spec, "secretRef", "name") or "")
    made = next((d for d in walk.notices if _makes(d) == (provider.namespace, secret)), None)
    if made is not None and made.is_(EXTERNAL_SECRETS, "ExternalSecret"):
        store = mapping(made.spec.get("secretStoreRef"))
        entry = next(
            (
                mapping(item.get("remoteRef"))
                for item in mappings(made.spec.get("data"))
                if item.get("secretKey") == secret_key
            ),
            {},
        )
        if store.get("name") and entry.get("key"):
            fields: dict[str, Any] = {"store": str(store["name"]), "key": str(entry["key"])}
            if store.get("kind", "SecretStore") != "ClusterSecretStore":
                fields["store_kind"] = "SecretStore"  # External Secrets' default kind
            if entry.get("property"):
                fields["property"] = str(entry["property"])
            return Call("ExternalSecretRef", fields)
    placeholder = f"notify/{provider.name}"
    walk.draft.findings.append(
        provider.finding(
            f"Provider {provider.name!r}: its {secret_key} is in a Secret (spec.secretRef) "
            "import does not read (made outside the repository, or kept in it)",
            f"put it in the store {STORE!r} under {placeholder!r}, as the channel's "
            "secret=ExternalSecretRef(...) says, or name the entry that holds it",
            ("spec", "secretRef"),
        )
    )
    return Call("ExternalSecretRef", {"store": STORE, "key": placeholder})
