"""What each engine reports as each `Notify` event, checked against their sources.

Argo CD: a subscription annotation ``notifications.argoproj.io/subscribe.<trigger>.<service>:
<recipients>`` (``;``-separated) on the Application, for a trigger of argocd-notifications-cm.
The catalog (argo-cd ``notifications_catalog/triggers/``) defines on-sync-failed (operation phase
Error or Failed), on-health-degraded (health Degraded) and on-deployed (Succeeded and Healthy,
once per revision); it has no trigger for drift corrected, so that one is a trigger the user
defines (`DRIFT_TRIGGER`, named in the output's notes).

Flux: notification-controller's Alert selects events by source, severity and message
(``internal/server/event_handlers.go``: ``eventMatchesAlertSource`` passes every event to
``eventSeverity: info`` and only error events to ``error``; ``messageIsIncluded`` needs one
``inclusionList`` expression to match). The controllers tell events apart only by message:

- sync failed and health degraded are both error events (kustomize-controller's
  ``Reconcile`` reports a failed apply and a failed health check alike; helm-controller's
  install or upgrade failures, Warning events): one Alert at ``eventSeverity: error`` carries
  both, and Flux cannot send one without the other.
- deployed: kustomize-controller's apply event lists the changed objects, one
  ``<Kind>/<namespace>/<name> created|configured`` line each (``apply``, fluxcd/pkg ssa
  ``ChangeSetEntry.String``); helm-controller's ``Helm install|upgrade succeeded for release``
  (``internal/reconcile/install.go``, ``upgrade.go``).
- drift corrected: helm-controller's ``Cluster state of release ... has been corrected``
  (``internal/reconcile/correct_cluster_drift.go``, with drift detection enabled);
  kustomize-controller corrects drift by applying again and reports it as the same change-set
  event as a deploy: on Kustomizations the two are one.
- GitHub commit statuses come from kustomize-controller's ``Reconciliation finished`` event
  (marked as a commit status update) and error events; helm-controller's events carry no Git
  revision (the github notifier's ``Post`` needs one), so only Kustomizations feed them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

SUBSCRIBE = "notifications.argoproj.io/subscribe"
TRIGGERS = {  # event -> Argo CD trigger
    "sync_failed": "on-sync-failed",
    "health_degraded": "on-health-degraded",
    "deployed": "on-deployed",
    "drift_corrected": "on-drift-corrected",
}
CATALOG = frozenset({"on-sync-failed", "on-health-degraded", "on-deployed"})
DRIFT_TRIGGER = TRIGGERS["drift_corrected"]
ERRORS = frozenset({"sync_failed", "health_degraded"})  # one Flux error Alert carries both

NOTIFICATION_API = "notification.toolkit.fluxcd.io/v1beta3"
APPLIED = r"^(\S+ (created|configured)\n)*\S+ (created|configured)$"
RELEASED = r"^Helm (install|upgrade) succeeded for release "
CORRECTED = r"^Cluster state of release \S+ has been corrected"
RECONCILED = r"^Reconciliation finished in "
_MESSAGES = {  # (event, kind of the source) -> the messages that tell it
    ("deployed", "Kustomization"): (APPLIED,),
    ("deployed", "HelmRelease"): (RELEASED,),
    ("drift_corrected", "Kustomization"): (APPLIED,),
    ("drift_corrected", "HelmRelease"): (CORRECTED,),
}


def annotation(event: str, service: str) -> str:
    """The subscription annotation key of ``event`` for Argo CD's ``service``."""
    return f"{SUBSCRIBE}.{TRIGGERS[event]}.{service}"


class AlertFilter(NamedTuple):
    """One Flux Alert's filter: its name suffix, severity and the info events it lets through."""

    suffix: str  # 'failed', or the info events it sends ('deployed', 'drift-corrected', ...)
    severity: str  # eventSeverity: 'error' or 'info'
    events: tuple[str, ...] = ()  # the info events, whose messages its inclusion list picks

    def inclusion(self, kinds: Collection[str], commit_status: bool) -> list[str]:
        """The inclusionList for sources of ``kinds``; ``commit_status``: a GitHub commit status
        provider, which gets kustomize-controller's commit status event."""
        if commit_status:
            return [RECONCILED] if self.events else []
        found = [m for e in self.events for k in sorted(kinds) for m in _MESSAGES[(e, k)]]
        return list(dict.fromkeys(found))


def flux_filters(events: Collection[str]) -> list[AlertFilter]:
    """The Alerts that send ``events``: one at severity error for sync_failed and
    health_degraded, one at severity info for the others, picked by message."""
    filters = [AlertFilter("failed", "error")] if ERRORS & set(events) else []
    infos = tuple(event for event in TRIGGERS if event in events and event not in ERRORS)
    if infos:
        suffix = "-".join(event.replace("_", "-") for event in infos)
        filters.append(AlertFilter(suffix, "info", infos))
    return filters


def indistinct(kinds: Collection[str]) -> list[str]:
    """What Flux cannot tell apart for objects of ``kinds`` (Kustomization, HelmRelease), as
    sentences."""
    said = ["sync_failed and health_degraded are both error events: Flux sends both or neither"]
    if "Kustomization" in kinds:
        said.append(
            "deployed and drift_corrected are one event on a Kustomization (kustomize-controller "
            "applies again to correct drift and reports the changed objects)"
        )
    return said
