"""fleetgen's notifications (docs/notify.md) on Flux itself: notification-controller built from
its module, the other controllers posting their events to it, the channels' Secrets made by
External Secrets from ExternalSecrets fleetgen writes, a webhook receiver on loopback."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from fleetgen.manifests.yamlio import load_all
from tests.e2e.controlplane import start_control_plane
from tests.e2e.externalsecrets import fake_store, start_external_secrets
from tests.e2e.fleetrepo import FleetRepo
from tests.e2e.flux import (
    CRDS_ONLY,
    NAMESPACE,
    RELEASES,
    bootstrap,
    install_crds,
    ready,
    reconcile,
    start_flux,
)
from tests.e2e.gitserver import git_server
from tests.e2e.kube import Kube
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes, wait_for
from tests.e2e.tools import program
from tests.e2e.webhook import Receiver, webhook_receiver

HELM = "helm.toolkit.fluxcd.io/v2"
KUSTOMIZE = "kustomize.toolkit.fluxcd.io/v1"
NOTIFICATION = "notification.toolkit.fluxcd.io/v1beta3"
SOURCE = "source.toolkit.fluxcd.io/v1"
NOTIFICATIONS = "output/flux/clusters/alpha/notifications.yaml"


def _from(receiver: Receiver, channel: str, name: str, revision: str = "") -> list[dict[str, Any]]:
    """What ``channel`` received about the Flux object ``name`` (at commit ``revision``)."""
    return [
        body
        for body in receiver.bodies(channel)
        if body["involvedObject"]["name"] == name
        and body.get("metadata", {}).get("revision", "").endswith(revision)
    ]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _holds(stored: Any, written: Any) -> bool:
    """Whether ``stored`` holds everything ``written`` sets (the API server may add defaults)."""
    if isinstance(written, dict):
        return isinstance(stored, dict) and all(
            key in stored and _holds(stored[key], value) for key, value in written.items()
        )
    if isinstance(written, list):
        return (
            isinstance(stored, list)
            and len(stored) == len(written)
            and all(map(_holds, stored, written))
        )
    return bool(stored == written)


def _deployed_kustomizations(kube: Kube, revision: str) -> bool:
    return all(ready(kube, KUSTOMIZE, "Kustomization", app, revision) for app in ("web", "quiet"))


def test_flux_sends_what_fleetgen_subscribes_to_a_webhook(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str
) -> None:
    """Flux 2.9 with notification-controller v1.9.2. Two Webhook channels: ``hook`` hears dev's
    sync_failed and deployed but quiet's (``Notify(on=[], to=[hook])`` on quiet), ``failures``
    dev's sync_failed only. notification-controller's event server (``EventServer.handleEvent``)
    lists the Alerts and keeps those ``filterAlertsForEvent`` passes: ``eventMatchesAlertSource``
    (kind, namespace, name; an ``error`` Alert takes error events only, an ``info`` one every
    severity), then ``messageIsIncluded`` (the ``inclusionList`` regexes, Go ``regexp``: ``$``
    is the text's end); ``createNotifier`` reads the address from the Provider's Secret
    (``address``), which External Secrets made from the store.

    1. An upgrade commit: ``hook`` receives echo's ``Helm upgrade succeeded for release
       echo/echo.v2`` (helm-controller ``fmtUpgradeSuccess``) and web's change set
       ``Deployment/web/web configured`` (kustomize-controller ``apply``: the changed entries,
       trailing newline trimmed; the reason is Ready's, ``Progressing``, kustomize-controller
       ``event``); ``failures`` receives neither (its Alert is ``error``). Every info event
       ``hook`` receives matches an inclusionList regex, and web's other info events
       (``Reconciliation finished`` …) are discarded.
    2. A commit with an invalid Deployment in web and quiet (``replicas: -1``, refused by the API
       server's dry run): both channels receive web's error event, ``failures`` quiet's too.
    3. ``hook`` never receives anything of quiet: quiet is in none of its Alerts' eventSources,
       and the event server logs it discarded (``no alerts found``) — while quiet's events do
       reach the server, as ``failures`` receiving quiet's error shows. The receiver is read
       after ``failures`` got quiet's error, which kustomize-controller posted after quiet's
       upgrade events (one controller, one Kustomization's reconciles in order).

    v1beta3 Providers and Alerts have no status (their CRDs have no status subresource): the
    Provider "ready" is its finalizer (``ProviderReconciler.Reconcile``) and its Secret there."""
    with (
        git_server(tmp_path / "repos" / "served", authority) as base,
        webhook_receiver(tmp_path / "logs" / "webhook.jsonl") as hook,
    ):
        plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
        start_external_secrets(processes, plane)
        channels = {name: json.dumps({"address": hook.url(name)}) for name in ("hook", "failures")}
        fake_store(plane, "notify", channels)
        repo = FleetRepo.create("notify", tmp_path / "repos", base)
        start_flux(processes, plane, "2.9", tmp_path / "flux", authority)
        kube = plane.kube()
        bootstrap(kube, repo.url, "main", "output/flux/clusters/alpha")
        logs = sorted((tmp_path / "logs").glob("alpha-*.log"))
        head = repo.head()
        wait_for("apps applied", lambda: _deployed_kustomizations(kube, head), 180, logs)
        for channel in ("hook", "failures"):
            name = f"webhook-{channel}"

            def provider_ready(name: str = name, channel: str = channel) -> bool:
                provider = kube.get(NOTIFICATION, "Provider", name, NAMESPACE)
                secret = kube.get("v1", "Secret", name, NAMESPACE)
                return "finalizers.fluxcd.io" in provider["metadata"].get("finalizers", []) and (
                    secret["data"]["address"] == _b64(hook.url(channel))
                )

            wait_for(f"Provider {name} ready", provider_ready, 60, logs)
        alerts = {a["metadata"]["name"] for a in kube.list(NOTIFICATION, "Alert", NAMESPACE)}
        assert alerts == {"webhook-hook.deployed", "webhook-hook.failed", "webhook-failures.failed"}

        repo.edit(
            "fleet.py", '{"replicas": 1}', '{"replicas": 1, "image": "registry.invalid/echo:2.0.0"}'
        )
        for app in ("web", "quiet"):
            repo.edit(f"apps/{app}/deployment.yaml", f"{app}:1.0.0", f"{app}:2.0.0")
        upgraded = repo.commit("upgrade every app")
        reconcile(kube, SOURCE, "GitRepository", NAMESPACE)
        wait_for("upgrade applied", lambda: _deployed_kustomizations(kube, upgraded), 180, logs)

        def deployed() -> bool:
            helm = [
                body
                for body in _from(hook, "hook", "echo")
                if body["message"].startswith("Helm upgrade succeeded for release echo/echo.v2 ")
            ]
            return bool(helm and _from(hook, "hook", "web", upgraded))

        wait_for("hook told of the upgrade", deployed, 60, logs)
        (web,) = _from(hook, "hook", "web", upgraded)
        assert web["involvedObject"]["kind"] == "Kustomization"
        assert web["involvedObject"]["namespace"] == NAMESPACE
        assert (web["severity"], web["message"]) == ("info", "Deployment/web/web configured")
        assert web["reason"] == "Progressing", web  # Ready's reason while it applies
        (echo,) = [b for b in _from(hook, "hook", "echo") if "echo.v2" in b["message"]]
        assert echo["involvedObject"]["kind"] == "HelmRelease"
        assert (echo["severity"], echo["reason"]) == ("info", "UpgradeSucceeded"), echo

        for app in ("web", "quiet"):
            repo.edit(f"apps/{app}/deployment.yaml", "replicas: 1", "replicas: -1")
        broken = repo.commit("an invalid Deployment in web and quiet")
        reconcile(kube, SOURCE, "GitRepository", NAMESPACE)

        def failed() -> bool:
            return bool(
                _from(hook, "hook", "web", broken)
                and _from(hook, "failures", "web", broken)
                and _from(hook, "failures", "quiet", broken)
            )

        wait_for("both channels told of the failures", failed, 120, logs)
        for channel, app in (("hook", "web"), ("failures", "web"), ("failures", "quiet")):
            (error,) = _from(hook, channel, app, broken)
            assert (error["severity"], error["reason"]) == ("error", "ReconciliationFailed"), error
            assert re.match(rf"Deployment/{app}/{app} dry-run failed", error["message"]), error
            assert "spec.replicas: Invalid value: -1" in error["message"], error

        assert [b for b in hook.bodies("failures") if b["severity"] != "error"] == []
        alert = kube.get(NOTIFICATION, "Alert", "webhook-hook.deployed", NAMESPACE)
        included = [re.compile(regex) for regex in alert["spec"]["inclusionList"]]
        for body in hook.bodies("hook"):
            if body["severity"] == "info":
                assert any(regex.search(body["message"]) for regex in included), body
        assert _from(hook, "hook", "quiet") == []
        server_log = (tmp_path / "logs" / "alpha-notification-controller.log").read_text()
        discarded = [
            line
            for line in server_log.splitlines()
            if "no alerts found" in line and '"name":"quiet"' in line
        ]
        assert discarded, "quiet's info events never reached the event server"
        web_discarded = [
            line
            for line in server_log.splitlines()
            if "no alerts found" in line and '"name":"web"' in line
        ]
        assert web_discarded, "no info event of web was left out by the inclusionList"


@pytest.mark.parametrize("release", ["2.9", "2.7"])
def test_flux_crds_accept_fleetgen_notifications(
    tmp_path: Path, processes: Processes, authority: Authority, etcd: str, release: str
) -> None:
    """The Providers, Alerts and ExternalSecrets fleetgen writes are accepted as they are by the
    API server with ``release``'s notification CRDs (2.7: v1.7.4's, generated from its api
    module; no controller): server-side apply refuses a field the CRD's schema does not declare
    and a value its validation (enums such as ``type``, ``eventSeverity``) refuses."""
    plane = start_control_plane(processes, "alpha", tmp_path / "alpha", etcd, authority)
    kube = plane.kube()
    if release in CRDS_ONLY:
        folders = [program(name, "controller-gen").parent for name in CRDS_ONLY[release]]
    else:
        version = RELEASES[release]["notification"]
        folders = [program(f"notification-controller-{version}", "notification-controller").parent]
    for folder in folders:
        install_crds(kube, folder / "config")
    install_crds(kube, program("external-secrets", "external-secrets").parent / "config" / "crds")
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    repo = FleetRepo.create("notify", tmp_path / "repos", "https://127.0.0.1:1")
    docs = [doc for doc in load_all((repo.work / NOTIFICATIONS).read_text()) if doc]
    assert {doc["kind"] for doc in docs} == {"ExternalSecret", "Provider", "Alert"}
    for doc in docs:
        kube.apply(doc)
        stored = kube.get(doc["apiVersion"], doc["kind"], doc["metadata"]["name"], NAMESPACE)
        assert _holds(stored["spec"], doc["spec"]), (doc, stored)
