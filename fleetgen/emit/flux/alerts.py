"""Notifications on Flux: per cluster (per spoke namespace on a hub), beside its Kustomizations,
a Provider per channel its placements notify, reading its address or token from a Secret that an
ExternalSecret makes from the channel's store reference, and the Alerts that send each channel
what its placements ask for (`fleetgen.rules.notify` says which events and messages).

An Alert's event sources are exactly the Kustomizations and HelmReleases of the apps it concerns
there, in its own namespace (notification-controller ``eventMatchesAlertSources`` reads a source
without namespace as the Alert's). It is named ``<channel id>.<events>``: the dot keeps it apart
from any app's name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from fleetgen.emit.flux.kustomization import Home
from fleetgen.emit.flux.sources import external_secret
from fleetgen.errors import Problem, at
from fleetgen.model import Channel, Fleet, GitHubStatus, Slack, Teams
from fleetgen.resolver.plan import Plan
from fleetgen.rules.notify import NOTIFICATION_API, AlertFilter, flux_filters
from fleetgen.write.output import OutputFile

Source = tuple[str, str]  # (kind, name) of a Flux object an Alert listens to


def check(plan: Plan) -> list[Problem]:
    """Channels a Flux placement notifies that have no `secret` to read their address from."""
    missing: dict[str, Channel] = {}
    for placement in plan.placements:
        notices = plan.notices.get((placement.app, placement.env))
        for route in notices.routes if notices else ():
            if route.channel.secret is None:
                missing.setdefault(route.channel.id, route.channel)
    return [
        at(
            channel,
            f"channel {channel.id!r} notifies Flux placements, whose Provider reads its "
            f"{channel.secret_key} from a Secret: set secret=ExternalSecretRef(store=..., "
            "key=..., property=...) naming the store entry that holds it",
            plan.fleet,
        )
        for _, channel in sorted(missing.items())
    ]


def files(plan: Plan, homes: Mapping[str, Home], path: Callable[[str], str]) -> list[OutputFile]:
    """One file per cluster with notified placements, at ``path(cluster)``."""
    wanted: dict[str, dict[tuple[str, AlertFilter], set[Source]]] = defaultdict(
        lambda: defaultdict(set)
    )
    channels: dict[str, Channel] = {}
    for placement in plan.placements:
        notices = plan.notices.get((placement.app, placement.env))
        source = ("HelmRelease" if placement.chart else "Kustomization", placement.app)
        for route in notices.routes if notices else ():
            channel = route.channel
            channels[channel.id] = channel
            commit_status = isinstance(channel, GitHubStatus)
            if commit_status and source[0] == "HelmRelease":
                continue  # helm-controller's events carry no Git revision to mark
            for filter_ in flux_filters(route.events):
                wanted[placement.cluster][(channel.id, filter_)].add(source)
    found = []
    for cluster, alerts in sorted(wanted.items()):
        namespace = homes[cluster].namespace
        used = sorted({cid for cid, _ in alerts})
        docs = [doc for cid in used for doc in _channel(plan.fleet, channels[cid], namespace)]
        docs += [
            _alert(channels[cid], filter_, sorted(sources), namespace)
            for (cid, filter_), sources in sorted(alerts.items())
        ]
        found.append(OutputFile(path(cluster), tuple(docs), comment=_comment(cluster)))
    return found


def hub_file(root: str, cluster: str, hub: str) -> str:
    """Where a hub (its directory ``root``) keeps the notifications of ``cluster``."""
    return (
        f"{root}/notifications.yaml" if cluster == hub else f"{root}/notifications/{cluster}.yaml"
    )


def _comment(cluster: str) -> str:
    return (
        f"Notifications of the apps on {cluster} (fleet.py's Notify): a Provider per channel,\n"
        "its Secret made by External Secrets from the channel's store entry, and Alerts."
    )


def _channel(fleet: Fleet, channel: Channel, namespace: str) -> list[dict[str, Any]]:
    """The ExternalSecret and Provider of ``channel`` in ``namespace``."""
    assert channel.secret is not None  # `check`
    spec: dict[str, Any] = {"type": channel.flux_type}
    if isinstance(channel, GitHubStatus):  # the commits Flux deploys are of its source's
        spec["address"] = fleet.flux.source.url if fleet.flux.source else fleet.repo
    elif isinstance(channel, Slack | Teams):
        spec["channel"] = channel.channel
    spec["secretRef"] = {"name": channel.id}
    key = (channel.secret_key, channel.secret.property)
    return [
        external_secret(channel.id, namespace, channel.secret, key, {}),
        {
            "apiVersion": NOTIFICATION_API,
            "kind": "Provider",
            "metadata": {"name": channel.id, "namespace": namespace},
            "spec": spec,
        },
    ]


def _alert(
    channel: Channel, filter_: AlertFilter, sources: list[Source], namespace: str
) -> dict[str, Any]:
    """The Alert ``<channel id>.<suffix>`` sending ``channel`` what ``filter_`` lets through of
    the events of ``sources``."""
    spec: dict[str, Any] = {
        "providerRef": {"name": channel.id},
        "eventSeverity": filter_.severity,
        "eventSources": [{"kind": kind, "name": name} for kind, name in sources],
    }
    inclusion = filter_.inclusion({kind for kind, _ in sources}, isinstance(channel, GitHubStatus))
    if inclusion:
        spec["inclusionList"] = inclusion
    return {
        "apiVersion": NOTIFICATION_API,
        "kind": "Alert",
        "metadata": {"name": f"{channel.id}.{filter_.suffix}", "namespace": namespace},
        "spec": spec,
    }
