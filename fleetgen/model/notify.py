"""Notifications: who hears about what (`Notify`), through which channel (`Slack`, `Teams`,
`Webhook`, `GitHubStatus`). A channel's address or token is a reference to a secret store
(`ExternalSecretRef`), never material: Flux reads it through an ExternalSecret; on Argo CD a
channel is a service configured in argocd-notifications-cm, which fleetgen does not own."""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import AfterValidator, Field, model_validator

from fleetgen.model.base import Spec
from fleetgen.model.stores import ExternalSecretRef

Event = Literal["sync_failed", "health_degraded", "deployed", "drift_corrected"]
EVENTS: tuple[str, ...] = get_args(Event)

# A chat channel's name as Slack spells it (lowercase letters, digits, '-', '_'), short enough
# for the Flux object names made of it.
_CHANNEL = re.compile(r"[a-z0-9]([a-z0-9_-]{0,55}[a-z0-9])?")
_WEBHOOK = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
# The service part of an Argo CD subscription annotation key (a label key's name part).
_SERVICE = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,40}[A-Za-z0-9])?")


def channel_name(value: str) -> str:
    """A channel's name (never its address: the message does not repeat the value)."""
    if not _CHANNEL.fullmatch(value):
        raise ValueError(
            "channel= is the channel's name as the chat service shows it, without '#' "
            "(lowercase letters, digits, '-' and '_', at most 57 characters), never its "
            "address: keep a webhook URL or token in the secret store and reference it with "
            "secret=ExternalSecretRef(store=..., key=...)"
        )
    return value


def service_name(value: str) -> str:
    """An Argo CD notifications service name, as a subscription annotation key carries it."""
    if not _SERVICE.fullmatch(value):
        raise ValueError(
            "service= is the name of a service in argocd-notifications-cm (letters, digits, "
            "'-', '_' and '.', at most 42 characters), never its address"
        )
    return value


def webhook_name(value: str) -> str:
    """A webhook's name, a DNS-1123 label (never its address: the message does not repeat it)."""
    if len(value) > 63 or not _WEBHOOK.fullmatch(value):
        raise ValueError(
            "name= is the webhook's name (a DNS-1123 label: lowercase letters, digits and '-'), "
            "never its address: keep the URL in the secret store and reference it with "
            "secret=ExternalSecretRef(store=..., key=...)"
        )
    return value


ChannelName = Annotated[str, AfterValidator(channel_name)]
WebhookName = Annotated[str, AfterValidator(webhook_name)]
ServiceName = Annotated[str, AfterValidator(service_name)]


class _Channel(Spec):
    """What every channel has: the secret Flux reads its address or token from.

    Attributes:
        secret: The store entry holding the channel's address or token (its `property` when
            set), which Flux's Provider reads through an ExternalSecret; required where a Flux
            placement notifies the channel (Argo CD reads argocd-notifications-secret instead).
    """

    secret: ExternalSecretRef | None = None
    flux_type: ClassVar[str]  # the Provider type of notification-controller
    secret_key: ClassVar[str] = "address"  # the Secret key the Provider reads the entry as

    @property
    def id(self) -> str:
        """The channel's name in the output: Flux Provider, Secret and Alert names."""
        raise NotImplementedError

    @property
    def recipient(self) -> str:
        """Argo CD's recipient (the annotation's value); empty for a webhook or GitHub."""
        return ""

    @property
    def shown(self) -> str:
        """How reports name it."""
        return self.id


class _ChatChannel(_Channel):
    """A channel of a chat service, named by its ``channel`` (Argo CD's recipient)."""

    channel: ChannelName
    prefix: ClassVar[str]  # of its id

    @property
    def id(self) -> str:
        return f"{self.prefix}-" + self.channel.replace("_", "-")

    @property
    def recipient(self) -> str:
        return self.channel


class Slack(_ChatChannel):
    """A Slack channel.

    Attributes:
        channel: The channel's name without '#' (lowercase letters, digits, '-', '_').
        service: Argo CD: the notifications service posting to Slack (``service.slack`` in
            argocd-notifications-cm); the recipient is the channel.
    """

    service: ServiceName = "slack"
    flux_type: ClassVar[str] = "slack"
    prefix: ClassVar[str] = "slack"

    @property
    def shown(self) -> str:
        return "#" + self.channel


class Teams(_ChatChannel):
    """A Microsoft Teams channel, reached by its incoming webhook.

    Attributes:
        channel: Its name: on Argo CD the key of its webhook in the service's
            ``recipientUrls``; on Flux a name only (the webhook in `secret` says where).
        service: Argo CD: the notifications service posting to Teams (``service.teams``).
    """

    service: ServiceName = "teams"
    flux_type: ClassVar[str] = "msteams"
    prefix: ClassVar[str] = "teams"


class Webhook(_Channel):
    """A generic webhook: Flux posts each event as JSON (Provider type generic) to the address
    in `secret`; Argo CD sends what the templates of ``service.webhook.<name>`` say.

    Attributes:
        name: The webhook's name (Argo CD's ``service.webhook.<name>``).
    """

    name: WebhookName
    flux_type: ClassVar[str] = "generic"

    @property
    def id(self) -> str:
        return "webhook-" + self.name

    @property
    def service(self) -> str:
        """Argo CD's notifications service: the webhook's name."""
        return self.name


class GitHubStatus(_Channel):
    """GitHub commit statuses on the commit the engines deploy (the fleet's repository, or
    `FluxOptions.source`): Flux's Provider type github with the token in `secret`; Argo CD's
    GitHub service, whose templates must carry a ``github:`` section (the catalog's have none).

    Attributes:
        service: Argo CD: the GitHub notifications service (``service.github``).
    """

    service: ServiceName = "github"
    flux_type: ClassVar[str] = "github"
    secret_key: ClassVar[str] = "token"

    @property
    def id(self) -> str:
        return "github-status"


Channel = Slack | Teams | Webhook | GitHubStatus


class Notify(Spec):
    """Who hears about what: the events ``on`` of the placements of this layer and below, sent
    to each channel ``to``. Deeper layers add to shallower ones (Fleet, Environment, App); an
    empty ``on`` silences what shallower layers send to its channels (`fleetgen explain` shows
    it). What each engine reports as each event: docs/notify.md.

    Attributes:
        on: The events: 'sync_failed', 'health_degraded', 'deployed', 'drift_corrected'; empty:
            silence the channels here.
        to: The channels, at least one.
    """

    on: list[Event]
    to: list[Channel] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> Notify:
        listed: tuple[tuple[str, list[str]], ...] = (
            ("event", list(self.on)),
            ("channel", [c.id for c in self.to]),
        )
        for what, names in listed:
            twice = sorted({name for name in names if names.count(name) > 1})
            if twice:
                raise ValueError(f"{what} {', '.join(twice)} listed twice")
        if "drift_corrected" in self.on and any(isinstance(c, GitHubStatus) for c in self.to):
            raise ValueError(
                "GitHubStatus marks a commit: drift_corrected happens without one (the engines "
                "correct drift at the revision they already run); send it to a chat channel"
            )
        return self
