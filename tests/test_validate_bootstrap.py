"""``validate`` notes a Flux cluster folder that ``flux bootstrap`` has not committed its
``flux-system/`` to (issue #38, point 12): information, never a finding or an exit code."""

from __future__ import annotations

import json
from pathlib import Path

from fleetgen import validate as validation
from fleetgen.pipeline import api
from tests.helpers import case_copy, run_fleetgen

CASES = Path(__file__).parent / "cases"


def test_a_cluster_folder_without_flux_system_is_noted_until_bootstrap_commits_it(
    tmp_path: Path,
) -> None:
    """``flux bootstrap --path`` commits ``flux-system/`` (gotk-components, gotk-sync: the root
    GitRepository and Kustomization) into the cluster's folder; the root Kustomization's
    ``spec.path`` is that folder, and kustomize-controller's ``reconcile`` fails with "path not
    found" (``securejoin`` of the artifact and ``spec.path``, then ``os.Stat``) while Git holds
    no such folder for it: nothing there is applied or pruned. Hub mode bootstraps the hub's
    folder only."""
    repo = case_copy(CASES / "flux-layers", tmp_path / "repo")
    compiled = api.compile_spec(repo / "fleet.py")
    report = validation.check(compiled, repo)
    assert [note.split(":")[0] for note in report.notes] == [
        "output/flux/clusters/production-1/ has no flux-system/",
        "output/flux/clusters/staging-1/ has no flux-system/",
    ]
    assert "--path=output/flux/clusters/staging-1` commits it" in report.notes[1]
    (repo / "output/flux/clusters/staging-1/flux-system").mkdir(parents=True)
    assert len(validation.check(compiled, repo).notes) == 1
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    ran = run_fleetgen(repo, "validate", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)
    assert found["findings"] == [] or all(f["severity"] != "error" for f in found["findings"])
    assert [n.split(":")[0] for n in found["notes"]] == [
        "output/flux/clusters/production-1/ has no flux-system/"
    ]
    text = run_fleetgen(repo, "validate").stdout
    assert "note: output/flux/clusters/production-1/ has no flux-system/" in text
    hub = case_copy(CASES / "hub-locked-down", tmp_path / "hub")
    notes = validation.check(api.compile_spec(hub / "fleet.py"), hub).notes
    assert [note.split(":")[0] for note in notes] == [
        "output/flux/clusters/mgmt/ has no flux-system/"
    ]
