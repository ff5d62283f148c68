"""diff says in words when an environment's sync switches between manual and automated."""

from __future__ import annotations

from pathlib import Path

import fleetgen
from fleetgen.diffs import formats
from tests.diff.test_diff import FLEET, commit, edit, fleet_repo

AUTOMATED = 'Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True))'
MANUAL = AUTOMATED.replace("True", "False")
ARGO_OFF = (
    "prod: apps api, web on Argo CD, automated sync off: a change reaches the clusters only "
    "when someone syncs the Application by hand"
)
FLUX_OFF = (
    "prod: apps api, web on Flux, suspended: nothing deploys until its sync is set to "
    "automated in fleet.py (the parent Kustomization re-applies suspend: true, so a "
    "`flux resume` by hand does not last)"
)


def test_switching_an_environment_to_manual_says_so_per_engine(tmp_path: Path) -> None:
    """prod turns manual: its Argo CD placements (prod-a, prod-c) lose ``syncPolicy.automated``
    — argo-cd's ``ApplicationController.autoSync`` returns at once for an Application without
    it, so nothing syncs until someone does by hand — and its Flux placement (prod-b) is
    suspended: kustomize-controller's ``KustomizationReconciler.Reconcile`` returns before
    applying while ``spec.suspend`` is true, and the root Kustomization re-applies ``suspend``,
    so ``flux resume`` does not last. The notes say so in text, markdown and JSON; switching
    back says the opposite."""
    repo = fleet_repo(tmp_path / "repo", FLEET)
    spec = repo / "fleet.py"
    edit(spec, AUTOMATED, MANUAL)
    report = fleetgen.diff(spec, base="main")
    assert _switches(report.notes) == [ARGO_OFF, FLUX_OFF]  # dev, left as it was: no note
    assert f"note: {ARGO_OFF}" in formats.text(report)
    assert FLUX_OFF in formats.markdown(report)
    assert {ARGO_OFF, FLUX_OFF} <= set(report.to_json()["notes"])
    commit(repo, "prod manual")
    edit(spec, MANUAL, AUTOMATED)
    assert _switches(fleetgen.diff(spec, base="main").notes) == [
        "prod: apps api, web on Argo CD, automated sync on: every change syncs by itself again",
        "prod: apps api, web on Flux, resumed: every change deploys by itself again",
    ]


def _switches(notes: tuple[str, ...]) -> list[str]:
    """The notes of sync switches."""
    return [note for note in notes if " on Argo CD, " in note or " on Flux, " in note]
