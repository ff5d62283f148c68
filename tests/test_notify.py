"""Notify: layering (fleet, environment, app; an explicit silence), what `explain` shows, the
spec errors (never repeating pasted material), and what each engine gets: Argo CD subscription
annotations for the catalog's triggers, Flux Providers and Alerts (tests/cases/notify and
notify-hub hold the whole trees, schema-checked on the newest and the floor release)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from fleetgen.explain import explanation as explain
from fleetgen.manifests.yamlio import load_all
from fleetgen.pipeline import api
from fleetgen.rules.notify import CATALOG, DRIFT_TRIGGER, SUBSCRIBE
from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parent
CASE = ROOT / "cases" / "notify"
HUB = ROOT / "cases" / "notify-hub"
# The trigger names of argo-cd's notifications catalog (notifications_catalog/triggers/*.yaml at
# 2026-08: on-created, on-deleted, on-deployed, on-health-degraded, on-sync-failed,
# on-sync-running, on-sync-status-unknown, on-sync-succeeded).
ARGO_CATALOG = {
    "on-created",
    "on-deleted",
    "on-deployed",
    "on-health-degraded",
    "on-sync-failed",
    "on-sync-running",
    "on-sync-status-unknown",
    "on-sync-succeeded",
}


def _copy(case: Path, tmp_path: Path, *edits: tuple[str, str]) -> Path:
    repo = tmp_path / case.name
    shutil.copytree(case, repo, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    spec = repo / "fleet.py"
    text = spec.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    spec.write_text(text)
    return repo


def _docs(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in load_all(path.read_text()) if doc]


def _notices(app: str, env: str) -> dict[str, tuple[str, ...]]:
    notices = api.compile_spec(CASE / "fleet.py").plan.notices[(app, env)]
    return {route.channel.id: route.events for route in notices.routes}


def test_deeper_layers_add_to_shallower_ones_and_an_empty_on_silences() -> None:
    assert _notices("web", "prod") == {
        "slack-prod-alerts": ("sync_failed", "deployed"),  # the environment's
        "teams-ops": ("sync_failed", "health_degraded"),  # the fleet's
    }
    assert _notices("api", "prod") == {  # the app adds the webhook and silences Teams
        "slack-prod-alerts": ("sync_failed", "deployed"),
        "webhook-audit": ("drift_corrected",),
    }


def test_explain_shows_each_channel_its_layers_and_the_silence() -> None:
    (app,) = explain.explain(CASE / "fleet.py", "api").apps
    shown = {
        p.cluster: {v.key: (v.layer, v.value) for v in p.values if v.key.startswith("notify/")}
        for p in app.placements
    }
    assert shown["prod-a"]["notify/#prod-alerts"] == ("env prod", ["sync_failed", "deployed"])
    assert shown["prod-a"]["notify/teams-ops"] == ("app api", "silenced")
    assert DRIFT_TRIGGER in shown["prod-a"]["notify/engine"][1]  # not in Argo CD's catalog
    assert "sync_failed and health_degraded" in shown["dev-1"]["notify/engine"][1]


def test_argocd_subscribes_to_the_catalog_triggers() -> None:
    """Annotation format and trigger names as argo-cd documents and ships them
    (docs/operator-manual/notifications/subscriptions.md; notifications_catalog/triggers/): a
    webhook's and GitHub's recipient is empty, a Slack channel's is its name."""
    assert CATALOG <= ARGO_CATALOG and DRIFT_TRIGGER not in ARGO_CATALOG
    expected = CASE / "expected" / "argocd"
    (appset,) = _docs(expected / "applicationsets" / "api.yaml")
    annotations = appset["spec"]["template"]["metadata"]["annotations"]
    subscribed = {k: v for k, v in annotations.items() if k.startswith(SUBSCRIBE)}
    assert subscribed == {
        f"{SUBSCRIBE}.on-deployed.slack": "prod-alerts",
        f"{SUBSCRIBE}.on-drift-corrected.audit": "",
        f"{SUBSCRIBE}.on-sync-failed.slack": "prod-alerts",
    }
    readme = (expected / "README.md").read_text()
    assert "`service.webhook.audit`" in readme and "argocd-notifications-secret" in readme
    assert "- prod: #prod-alerts hears sync_failed, deployed of api, cache, web" in readme


def test_flux_alerts_select_by_severity_and_message() -> None:
    """notification-controller ``eventMatchesAlertSource`` (an Alert at severity error gets only
    error events, one at info all) and ``messageIsIncluded``; the messages are
    kustomize-controller's apply change set (fluxcd/pkg ssa ``ChangeSetEntry.String``) and
    helm-controller's ``fmtInstallSuccess``/``fmtUpgradeSuccess`` and ``DriftCorrected``."""
    docs = _docs(CASE / "expected" / "flux" / "clusters" / "dev-1" / "notifications.yaml")
    alerts = {d["metadata"]["name"]: d["spec"] for d in docs if d["kind"] == "Alert"}
    assert alerts["teams-ops.failed"]["eventSeverity"] == "error"
    assert alerts["teams-ops.failed"]["eventSources"] == [  # api silenced Teams
        {"kind": "HelmRelease", "name": "cache"},
        {"kind": "Kustomization", "name": "web"},
    ]
    chart = alerts["webhook-audit.deployed-drift-corrected"]
    assert chart["eventSeverity"] == "info"
    assert chart["inclusionList"] == [
        "^Helm (install|upgrade) succeeded for release ",
        r"^Cluster state of release \S+ has been corrected",
    ]
    # GitHub statuses: kustomize-controller's commit status event; HelmReleases have no commit
    assert all(s["kind"] == "Kustomization" for s in alerts["github-status.failed"]["eventSources"])
    providers = {d["metadata"]["name"]: d["spec"] for d in docs if d["kind"] == "Provider"}
    assert providers["github-status"]["address"] == "https://github.com/acme/notify.git"
    assert providers["teams-ops"] == {
        "type": "msteams",
        "channel": "ops",
        "secretRef": {"name": "teams-ops"},  # made by the ExternalSecret of the same name
    }


def test_flux_hub_keeps_a_spokes_alerts_in_its_namespace() -> None:
    """The hub's kustomize-controller emits a spoke's Kustomization events in the spoke's
    namespace on the hub, where notification-controller matches sources without a namespace
    to the Alert's (``eventMatchesAlertSources``)."""
    hub = HUB / "expected" / "flux" / "clusters" / "mgmt"
    spoke = _docs(hub / "notifications" / "prod-a.yaml")
    assert {d["metadata"]["namespace"] for d in spoke} == {"prod-a"}
    own = _docs(hub / "notifications.yaml")  # the hub's own placement of app api
    assert {d["metadata"]["namespace"] for d in own} == {"flux-system"}
    alerts = {d["metadata"]["name"] for d in own if d["kind"] == "Alert"}
    assert alerts == {"slack-alerts.failed"}  # mgmt adds nothing to the app's sync_failed


def test_a_pasted_webhook_url_is_refused_without_echo(tmp_path: Path) -> None:
    url = "https://alerts.example.com/hooks/T0001/B0001/0123456789abcdefABCDEF"
    for old, new in (
        ('Webhook(name="audit"', f'Webhook(name="{url}"'),
        ('Teams(channel="ops"', f'Teams(channel="{url}"'),
        ('key="notify/audit"', f'key="{url}"'),
    ):
        repo = _copy(CASE, tmp_path / str(len(list(tmp_path.iterdir()))), (old, new))
        ran = run_fleetgen(repo, "build")
        assert ran.returncode == 2, ran.stderr
        assert "fleet.py:" in ran.stderr and url not in ran.stderr + ran.stdout
        assert "Traceback" not in ran.stderr


def test_a_flux_channel_needs_its_secret(tmp_path: Path) -> None:
    repo = _copy(
        CASE,
        tmp_path,
        (
            'OPS = Teams(channel="ops", secret=ExternalSecretRef(store=VAULT, key="notify/teams"))',
            'OPS = Teams(channel="ops")',
        ),
    )
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    assert "channel 'teams-ops' notifies Flux placements" in ran.stderr


def test_one_channel_name_declared_twice_differently_is_refused(tmp_path: Path) -> None:
    repo = _copy(
        CASE,
        tmp_path,
        (
            '"drift_corrected"], to=[AUDIT])]',
            '"drift_corrected"], to=[Webhook(name="audit", secret=ExternalSecretRef(store=VAULT, '
            'key="other"))])]',
        ),
    )
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    assert "channel 'webhook-audit' is declared differently" in ran.stderr
