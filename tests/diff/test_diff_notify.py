"""diff says in words what a change does to who hears about what, per environment."""

from __future__ import annotations

from pathlib import Path

import fleetgen
from tests.diff.test_diff import FLEET, commit, edit, fleet_repo

NOTIFIED = FLEET.replace(
    "Project, Selector, SyncPolicy)",
    "Notify, Project, Selector, Slack, SyncPolicy)\n"
    'ALERTS = Slack(channel="prod-alerts", secret=ExternalSecretRef(store="vault", key="slack"))',
).replace(
    'Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True))',
    'Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True),\n'
    '                              notify=[Notify(on=["sync_failed"], to=[ALERTS])])',
)
API = 'App(name="api", project="shop", namespace="shop", path="apps/api/base",'


def test_a_silenced_app_is_reported_per_environment(tmp_path: Path) -> None:
    repo = fleet_repo(tmp_path / "repo", NOTIFIED)
    spec = repo / "fleet.py"
    edit(spec, API, API + "\n            notify=[Notify(on=[], to=[ALERTS])],")
    report = fleetgen.diff(spec, base="main")
    assert "prod: sync_failed of api no longer sent to #prod-alerts" in report.notes
    commit(repo, "silence api")
    edit(spec, 'on=["sync_failed"], to=[ALERTS]', 'on=["sync_failed", "deployed"], to=[ALERTS]')
    report = fleetgen.diff(spec, base="main")
    assert "prod: deployed of web now sent to #prod-alerts" in report.notes
    assert not any("of api" in note for note in report.notes)  # still silenced
