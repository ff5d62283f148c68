"""diff says in words when an environment's sync switches between manual and automated, and
which apps' later changes a manual environment holds back."""

from __future__ import annotations

from pathlib import Path

import fleetgen
from fleetgen.diffs import formats
from tests.diff.test_diff import FLEET, WEB_PROD_TAG, commit, edit, fleet_repo
from tests.diff.test_diff_charts import CHART_FLEET

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
ARGO_HELD = (
    "held: prod has automated sync off: Argo CD shows these apps OutOfSync until someone syncs them"
)
FLUX_HELD = (
    "held: prod is manual (suspended): nothing deploys until its sync is set to automated in "
    "fleet.py"
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
    assert _held(report.notes) == []  # the switch itself is worded above
    assert f"note: {ARGO_OFF}" in formats.text(report)
    assert FLUX_OFF in formats.markdown(report)
    assert {ARGO_OFF, FLUX_OFF} <= set(report.to_json()["notes"])
    commit(repo, "prod manual")
    edit(spec, MANUAL, AUTOMATED)
    assert _switches(fleetgen.diff(spec, base="main").notes) == [
        "prod: apps api, web on Argo CD, automated sync on: every change syncs by itself again",
        "prod: apps api, web on Flux, resumed: every change deploys by itself again",
    ]


def test_a_later_change_while_manual_is_held_per_engine(tmp_path: Path) -> None:
    """A commit after prod turned manual changes what its placements deploy: the chart app's
    values (an ApplicationSet's template on Argo CD, the HelmRelease's values ConfigMap key on
    Flux), web's prod overlay and api's image (on dev, automated, too). On Argo CD the
    Applications change but ``ApplicationController.autoSync`` returns at once without
    ``syncPolicy.automated``: they show OutOfSync until someone syncs them. On Flux the root
    applies the new HelmRelease and Kustomization specs, but helm-controller's
    ``HelmReleaseReconciler.Reconcile`` returns early on ``spec.suspend`` (the release stays as
    it was) and kustomize-controller's ``KustomizationReconciler.Reconcile`` skips a suspended
    Kustomization (the overlay is not applied). A note per engine names the held apps, in text,
    markdown and JSON; dev, automated, has none."""
    repo = fleet_repo(tmp_path / "repo", CHART_FLEET)
    spec = repo / "fleet.py"
    edit(spec, AUTOMATED, MANUAL)
    commit(repo, "prod manual")
    edit(spec, '"replicaCount": 2', '"replicaCount": 3')
    edit(spec, WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"'))
    edit(repo / "helpers.py", '"2.0"', '"2.1"')
    report = fleetgen.diff(spec, base="main")
    held = [f"{ARGO_HELD} (apps api, certs, web)", f"{FLUX_HELD} (apps api, certs, web)"]
    assert _held(report.notes) == held
    assert _switches(report.notes) == []
    assert f"note: {held[1]}" in formats.text(report)
    assert held[0] in formats.markdown(report)
    assert set(held) <= set(report.to_json()["notes"])


def test_a_change_that_deploys_nothing_or_a_new_placement_while_manual(tmp_path: Path) -> None:
    """While prod is manual: a new cluster's placement (web on prod-d) is held too — the
    ApplicationSet generates its Application, which ``ApplicationController.autoSync`` leaves
    OutOfSync — while a project's new source repository (an AppProject, which the root
    Application applies) and the cluster's registration hold nothing back: alone, the project
    change has no such note; nothing is held on Flux, which gains no placement."""
    repo = fleet_repo(tmp_path / "repo", FLEET)
    spec = repo / "fleet.py"
    edit(spec, AUTOMATED, MANUAL)
    commit(repo, "prod manual")
    edit(spec, "source_repos=[REPO]", 'source_repos=[REPO, "https://git.example.com/x.git"]')
    assert _held(fleetgen.diff(spec, base="main").notes) == []
    edit(
        spec,
        "    ],\n    projects=",
        '        Cluster(name="prod-d", env="prod", server="https://prod-d.example.com"),\n'
        "    ],\n    projects=",
    )
    assert _held(fleetgen.diff(spec, base="main").notes) == [f"{ARGO_HELD} (app web)"]


def _held(notes: tuple[str, ...]) -> list[str]:
    """The notes of changes held by a manual sync."""
    return [note for note in notes if note.startswith("held: ")]


def _switches(notes: tuple[str, ...]) -> list[str]:
    """The notes of sync switches."""
    return [note for note in notes if " on Argo CD, " in note or " on Flux, " in note]
