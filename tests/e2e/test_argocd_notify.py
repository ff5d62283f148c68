"""fleetgen's notifications (docs/notify.md) on Argo CD itself: its notifications controller
built from its module reads the subscription annotations fleetgen writes on the Applications its
ApplicationSets generate, with argocd-notifications-cm and argocd-notifications-secret as
output/argocd/README.md tells the user to write them; a webhook receiver on loopback."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import dump, load_all, load_one
from tests.e2e.argocd import (
    NAMESPACE,
    application,
    notifications_catalog,
    start_argocd,
    synced_and_healthy,
)
from tests.e2e.controlplane import start_control_plane
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for
from tests.e2e.webhook import Receiver, webhook_receiver

APPS = ("web-mgmt", "quiet-mgmt")
# What the receiver gets: the template's ``webhook.hook`` section (``WebhookNotifications``).
BODY = (
    '{"app": "{{.app.metadata.name}}", "template": "TEMPLATE",'
    ' "revision": "{{.app.status.operationState.syncResult.revision}}",'
    ' "phase": "{{.app.status.operationState.phase}}"}'
)


def _notifications_settings(kube: Kube, receiver: Receiver) -> None:
    """argocd-notifications-cm and -secret as the README fleetgen wrote asks: the catalog's
    triggers and templates (as installed from install.yaml), ``service.webhook.hook`` whose URL
    is a key of the secret, and a ``webhook.hook`` section in the templates the two triggers
    send (app-deployed, app-sync-failed)."""
    data = notifications_catalog()
    for template in ("app-deployed", "app-sync-failed"):
        key = f"template.{template}"
        parsed = load_one(data[key])
        parsed["webhook"] = {"hook": {"method": "POST", "body": BODY.replace("TEMPLATE", template)}}
        data[key] = dump(parsed)
    data["service.webhook.hook"] = "url: $hook-url\n"
    for kind, name, content in (
        ("ConfigMap", "argocd-notifications-cm", {"data": data}),
        (
            "Secret",
            "argocd-notifications-secret",
            {"stringData": {"hook-url": receiver.url("hook")}},
        ),
    ):
        meta = {"name": name, "namespace": NAMESPACE}
        kube.apply({"apiVersion": "v1", "kind": kind, "metadata": meta, **content})


def _received(receiver: Receiver, app: str, template: str = "") -> list[dict[str, Any]]:
    return [
        body
        for body in receiver.bodies("hook")
        if body["app"] == app and template in ("", body["template"])
    ]


def _seconds(timestamp: str) -> float:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def _json_lines(log: Path) -> list[dict[str, Any]]:
    """The JSON entries of a controller's log (``--logformat json``, the default)."""
    lines = log.read_text().splitlines()
    return [json.loads(line) for line in lines if line.startswith("{")]


def _operation(kube: Kube, app: str) -> dict[str, Any]:
    return dict(application(kube, app).get("status", {}).get("operationState", {}))


def test_argocd_notifies_what_fleetgen_subscribes_to_a_webhook(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """Argo CD 3.6.2 with its notifications controller; fleet argonotify: the Webhook channel
    ``hook`` hears dev's deployed and sync_failed, but quiet's (``Notify(on=[], to=[hook])``).
    fleetgen writes ``notifications.argoproj.io/subscribe.on-deployed.hook: ""`` and
    ``subscribe.on-sync-failed.hook: ""`` on web's ApplicationSet template only; the
    ApplicationSet controller copies them onto web-mgmt. notifications-engine (the version
    argo-cd's go.mod pins): ``processQueueItem`` takes each Application the informer reports
    changed, skips it while argo-cd's ``isAppSyncStatusRefreshed`` says its sync status predates
    the operation's end, then ``processResourceWithAPI``: the destinations are the annotations'
    (``Annotations.GetDestinations``: the service after the trigger in the key, ``""`` one empty
    recipient) and the AppProject's (argo-cd ``alterDestinations``); no destination, nothing
    evaluated; else each trigger's condition is run and, where it holds and the
    ``notified.notifications.argoproj.io`` state has no entry for its ``oncePer`` value
    (``SetAlreadyNotified``), the templates are sent. ``ParseConfig`` names the service
    ``service.webhook.hook`` ``hook`` and puts the secret's ``hook-url`` for ``$hook-url``; the
    webhook service (``webhookService.Send``) sends the template's ``webhook.hook`` section.

    1. The first commit: web-mgmt's sync Succeeded and Healthy fires the catalog's on-deployed
       (``oncePer`` the sync revision): the receiver gets exactly one app-deployed of web-mgmt
       at that commit — once, as the ApplicationSet controller keeps the notified annotation
       (``defaultPreservedAnnotations``) and ``oncePer`` holds, through the 10 s reconciliations
       the test lets pass.
    2. A commit making both Deployments invalid (``replicas: -1``, refused by the API server):
       both syncs end Failed at once, as the fleet sets ``Retry(limit=0)``
       (``processRequestedAppOperation`` retries while ``RetryCount < Limit``; ``autoSync``
       gives an automated sync ``Limit: 5`` where the Application sets no retry, the phase
       Running meanwhile); on-sync-failed sends one app-sync-failed of web-mgmt at that
       commit, and no app-deployed.
    3. quiet-mgmt never: it has no subscription (its Application's annotations hold none and no
       notified state is written). Read after quiet's failed sync ended and the controller
       logged processing quiet-mgmt at least 2 s after (second-precision times): it relies on
       the informer holding the Failed state by then, which the application controller's writes
       after the operation (reconciledAt, each 10 s) make it process anew."""
    with (
        git_server(tmp_path / "repos" / "served", authority) as base,
        webhook_receiver(tmp_path / "logs" / "webhook.jsonl") as hook,
    ):
        plane = start_control_plane(processes, "mgmt", tmp_path / "mgmt", etcd, authority)
        repo = FleetRepo.create("argonotify", tmp_path / "repos", base)
        kube = plane.kube()
        start_argocd(processes, plane, tmp_path / "argocd", authority, notifications=True)
        _notifications_settings(kube, hook)
        bootstrap = repo.work / "output" / "argocd" / "bootstrap.yaml"
        for doc in load_all(bootstrap.read_text()):  # kubectl apply -n argocd -f bootstrap.yaml
            kube.apply(doc, namespace=NAMESPACE)
        logs = sorted((tmp_path / "logs").glob("*.log"))
        head = repo.head()

        def deployed() -> bool:
            processes.check()
            return all(synced_and_healthy(kube, app, head) for app in APPS)

        wait_for("web and quiet Synced and Healthy", deployed, 300, logs)
        wait_for("app-deployed of web-mgmt", lambda: _received(hook, "web-mgmt"), 60, logs)
        annotations = application(kube, "web-mgmt")["metadata"]["annotations"]
        assert annotations["notifications.argoproj.io/subscribe.on-deployed.hook"] == ""
        assert annotations["notifications.argoproj.io/subscribe.on-sync-failed.hook"] == ""
        assert "notified.notifications.argoproj.io" in annotations, annotations

        for app in ("web", "quiet"):
            repo.edit(f"apps/{app}/deployment.yaml", "replicas: 1", "replicas: -1")
        broken = repo.commit("an invalid Deployment in web and quiet")

        def failed() -> bool:
            processes.check()
            return all(
                _operation(kube, app).get("phase") == "Failed"
                and _operation(kube, app).get("syncResult", {}).get("revision") == broken
                for app in APPS
            )

        wait_for("web and quiet sync Failed", failed, 180, logs)
        wait_for(
            "app-sync-failed of web-mgmt",
            lambda: _received(hook, "web-mgmt", "app-sync-failed"),
            60,
            logs,
        )
        quiet_failed = _operation(kube, "quiet-mgmt")["finishedAt"]
        controller_log = tmp_path / "logs" / "argocd-notifications.log"

        def quiet_processed() -> bool:
            return any(
                entry.get("resource") == f"{NAMESPACE}/quiet-mgmt"
                and entry.get("msg") == "Processing completed"
                and _seconds(entry["time"]) >= _seconds(quiet_failed) + 2
                for entry in _json_lines(controller_log)
            )

        wait_for("the controller processed quiet-mgmt after its failure", quiet_processed, 60, logs)

        web = [(b["template"], b["revision"], b["phase"]) for b in _received(hook, "web-mgmt")]
        assert web == [("app-deployed", head, "Succeeded"), ("app-sync-failed", broken, "Failed")]
        assert _received(hook, "quiet-mgmt") == []
        quiet = application(kube, "quiet-mgmt")["metadata"].get("annotations", {})
        assert not [key for key in quiet if "notifications.argoproj.io" in key], quiet
