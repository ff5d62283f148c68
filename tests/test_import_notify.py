"""Import of notifications (`fleetgen.importer.notify`): Argo CD subscription annotations and
Flux Alerts and Providers become `Notify`, and the imported fleet, built, sends what the
repository did (the golden cases ``argocd-notifications`` and ``flux-notifications``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from fleetgen.importer.flux.alerts import _MESSAGES, _events, _lists
from fleetgen.importer.repo import Doc
from fleetgen.importer.run import ImportRequest, unchecked
from fleetgen.manifests.yamlio import dump, load_all
from fleetgen.model import EVENTS
from fleetgen.rules.notify import flux_filters
from fleetgen.tools import kustomize
from tests.helpers import run_fleetgen

IMPORTS = Path(__file__).parent / "imports"
SUBSCRIBE = "notifications.argoproj.io/subscribe."


def _application(annotations: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "api", "namespace": "argocd", "annotations": annotations},
        "spec": {
            "project": "default",
            "source": {"repoURL": "https://github.com/acme/x.git", "path": "apps/api"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "api"},
        },
    }


def _heard(tmp_path: Path, annotations: dict[str, str], cm: dict[str, str]) -> dict[str, set[str]]:
    """What the one Application of a repository with ``annotations`` (and an
    argocd-notifications-cm of ``cm``) notifies, by channel."""
    (tmp_path / "apps/api").mkdir(parents=True)
    (tmp_path / "apps/api/cm.yaml").write_text(
        dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "api"}})
    )
    config = {"kind": "ConfigMap", "apiVersion": "v1", "data": cm}
    config["metadata"] = {"name": "argocd-notifications-cm", "namespace": "argocd"}
    (tmp_path / "argocd.yaml").write_text(dump(_application(annotations)) + "---\n" + dump(config))
    [instance] = unchecked(ImportRequest(tmp_path)).draft.instances
    return instance.heard


def test_argocd_subscriptions_are_read_as_notifications_engine_reads_them(tmp_path: Path) -> None:
    """notifications-engine ``pkg/subscriptions/annotations.go``: ``Annotations.iterate`` splits
    ``subscribe.<trigger>.<service>`` (one part: the service, with the default triggers of
    ``GetDestinations``), recipients ``;``-separated and trimmed, an empty value one empty
    recipient; ``subscriptions`` is a YAML list; ``pkg/api/config.go`` ``ParseConfig`` reads
    ``service.<type>.<name>`` and ``defaultTriggers.<service>``."""
    heard = _heard(
        tmp_path,
        {
            SUBSCRIBE + "on-sync-failed.slack": "alerts; ops ;",
            SUBSCRIBE + "chat": "team",
            SUBSCRIBE + "on-deployed.audit": "",
            "notifications.argoproj.io/subscriptions": (
                "- trigger: [on-health-degraded]\n  destinations:\n"
                "  - service: github\n    recipients: ['']\n"
            ),
        },
        {
            "service.slack": "token: $slack-token",
            "service.slack.chat": "token: $chat-token",
            "service.webhook.audit": "url: $audit-url",
            "defaultTriggers.chat": "- on-deployed\n- on-sync-failed\n",
        },
    )
    assert heard == {
        'Slack(channel="alerts")': {"sync_failed"},
        'Slack(channel="ops")': {"sync_failed"},
        'Slack(channel="team", service="chat")': {"deployed", "sync_failed"},
        'Webhook(name="audit")': {"deployed"},
        "GitHubStatus()": {"health_degraded"},
    }


@pytest.mark.parametrize("events", [("sync_failed", "health_degraded"), ("deployed",)])
@pytest.mark.parametrize("kind", ["Kustomization", "HelmRelease"])
def test_the_alerts_fleetgen_writes_read_back_as_their_events(
    events: tuple[str, ...], kind: str
) -> None:
    """notification-controller ``internal/server/event_handlers.go``:
    ``eventMatchesAlertSource`` lets every event through severity info, only errors through
    error; ``messageIsIncluded`` needs an inclusionList match, ``messageIsExcluded`` none. The
    emitter's Alert filters (`fleetgen.rules.notify.flux_filters`), run over the controllers'
    messages, give back exactly the events they were written for."""
    found: set[str] = set()
    for filter_ in flux_filters(events):
        spec = {
            "eventSeverity": filter_.severity,
            "inclusionList": filter_.inclusion([kind], False),
        }
        alert = Doc("a.yaml", 1, {"kind": "Alert", "spec": spec})
        sent, partial = _events(alert, _MESSAGES[(kind, False)], _lists(alert), set())
        assert not partial
        found |= sent
    assert found == set(events)


def test_an_info_alert_without_inclusion_list_sends_every_event() -> None:
    alert = Doc("a.yaml", 1, {"kind": "Alert", "spec": {"eventSeverity": "info"}})
    sent, _ = _events(alert, _MESSAGES[("HelmRelease", False)], _lists(alert), set())
    assert sent == set(EVENTS)


def _imported(case: str, tmp_path: Path) -> Path:
    """The golden case's repository, imported and built in a temporary copy."""
    repo = tmp_path / case
    shutil.copytree(IMPORTS / case / "repo", repo)
    assert run_fleetgen(repo, "import").returncode == 1
    assert run_fleetgen(repo, "build").returncode == 0
    return repo


def test_argocd_round_trip_writes_the_subscriptions_the_repository_had(tmp_path: Path) -> None:
    """The ApplicationSets the imported fleet writes carry the subscriptions notifications-engine
    reads of the original (its Application, ApplicationSet template and generator template, the
    AppProject, the service's default triggers), but those fleetgen cannot write (a trigger it
    does not write, an email service: findings)."""
    repo = _imported("argocd-notifications", tmp_path)
    written = {}
    for path in sorted((repo / "output/argocd/applicationsets").glob("*.yaml")):
        for doc in load_all(path.read_text()):
            notes = doc["spec"]["template"]["metadata"].get("annotations", {})
            written[doc["metadata"]["name"]] = {
                k.removeprefix(SUBSCRIBE): v for k, v in notes.items() if k.startswith(SUBSCRIBE)
            }
    platform = {"on-sync-failed.slack": "platform"}  # the AppProject's
    deploys = {"on-deployed.slack": "prod-deploys"}
    audit = {"on-drift-corrected.audit": ""}
    assert written == {
        "api-staging": platform | audit,
        "api-prod": platform | audit | deploys,
        "web-staging": platform,
        "web-prod": platform | deploys,
        "worker-staging-staging": platform | {"on-health-degraded.teams": "ops"},
    }


def _flux_heard(docs: list[dict[str, Any]], apps: set[tuple[str, str]]) -> set[tuple[str, ...]]:
    """(source kind, name, provider type, channel, event) of what the Alerts in ``docs`` send of
    the ``apps`` (kind, name), their Providers of fleetgen's types."""
    providers = {d["metadata"]["name"]: d["spec"] for d in docs if d["kind"] == "Provider"}
    found = set()
    for alert in (d for d in docs if d["kind"] == "Alert"):
        provider = providers[alert["spec"]["providerRef"]["name"]]
        doc = Doc("a.yaml", 1, alert)
        commit = provider["type"] == "github"
        for source in alert["spec"]["eventSources"]:
            named = {(k, n) for k, n in apps if k == source["kind"] and source["name"] in ("*", n)}
            for kind, name in named:
                messages = _MESSAGES.get((kind, commit), ())
                sent, _ = _events(doc, messages, _lists(doc), set())
                channel = str(provider.get("channel", "")).lstrip("#")
                found |= {(kind, name, provider["type"], channel, e) for e in sent}
    return found


@pytest.mark.parametrize("cluster", ["staging", "production"])
def test_flux_round_trip_sends_what_the_alerts_sent(cluster: str, tmp_path: Path) -> None:
    """The Alerts the imported fleet writes on a cluster send each app the events the
    repository's Alerts did, through a Provider of the same type and channel (read as
    notification-controller filters events, ``eventMatchesAlertSource`` and
    ``messageIsIncluded``); the pagerduty Provider is not one fleetgen writes (a finding)."""
    repo = _imported("flux-notifications", tmp_path)
    theirs = [
        d
        for d in load_all(kustomize.build(repo / "notifications" / cluster))
        if d["spec"].get("type") != "pagerduty" and d["metadata"]["name"] != "pages"
    ]
    ours = load_all((repo / f"output/flux/clusters/{cluster}/notifications.yaml").read_text())
    apps = {("Kustomization", "web"), ("HelmRelease", "redis")}
    assert _flux_heard(ours, apps) == _flux_heard(theirs, apps)
    assert _flux_heard(ours, apps)
