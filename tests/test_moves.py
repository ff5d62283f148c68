"""A chart app's HelmRelease moving to a Kustomization of its own (`fleetgen.settle.moves`), walked
through in a real Git repository with ``diff`` and ``build --check`` at each step.

No controller runs here. What each step relies on, as read in kustomize-controller
(``internal/controller/kustomization_controller.go``): ``deleteObjects``, which both ``prune``
and ``finalize`` call, passes ``ssa.DeleteOptions{Inclusions: GetOwnerLabels(name, namespace),
Exclusions: {kustomize.toolkit.fluxcd.io/prune: disabled, ...}}``: a live object is deleted only
when it carries the pruning Kustomization's owner labels and not the prune annotation. The root
Kustomization applies the new revision and prunes in the same reconcile, before a wrapper it just
created has applied anything; so the live HelmRelease must carry the annotation before the
revision that moves it (step 1), and it may lose it once the wrapper applies it (step 3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.diff.test_diff import commit, edit
from tests.test_draining import built, check_clean, diff_json, documents, record, repo_of

PRUNE = "kustomize.toolkit.fluxcd.io/prune"
WRAPPED = ('depends_on=["infra-configs"],', "")  # podinfo depends on nothing at first
NAME = "release/staging-1/podinfo"


def _release(docs: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next(
        (d for d in docs if d["kind"] == "HelmRelease" and d["metadata"]["name"] == "podinfo"), None
    )


def _gate_dependencies(docs: list[dict[str, Any]]) -> list[str]:
    (gate,) = (d for d in docs if d["metadata"]["name"] == "podinfo.ready")
    return [ref["name"] for ref in gate["spec"]["dependsOn"]]


def _names(docs: list[dict[str, Any]]) -> set[str]:
    return {d["metadata"]["name"] for d in docs if d["kind"] == "Kustomization"}


def test_a_helmrelease_moves_under_its_own_kustomization_in_three_confirmed_steps(
    tmp_path: Path,
) -> None:
    repo = repo_of(tmp_path, "flux-layers", WRAPPED)
    home = "flux/clusters/staging-1/kustomizations.yaml"
    release = _release(documents(repo, home))
    assert release is not None and PRUNE not in release["metadata"].get("annotations", {})
    assert "moving" not in record(repo)

    # The dependency needs the wrapper: step 1 marks the HelmRelease where it is.
    edit(
        repo / "fleet.py",
        'chart=HelmChart(path="charts/podinfo"),',
        'chart=HelmChart(path="charts/podinfo"), depends_on=["infra-configs"],',
    )
    built(repo)
    docs = documents(repo, home)
    release = _release(docs)
    assert release is not None and release["metadata"]["annotations"] == {PRUNE: "disabled"}
    assert "podinfo.release" not in _names(docs)
    # Its gate waits for the root, which applies it in this step, not for a missing wrapper
    # (kustomize-controller ``checkDependencies``: a dependency not found holds the gate).
    assert _gate_dependencies(docs) == ["flux-system"]
    assert not (repo / "output/flux/releases").exists()
    assert record(repo)["moving"] == {NAME: "marked", "release/production-1/podinfo": "marked"}
    assert f"| {NAME} |" in (repo / "output/README.md").read_text()
    check_clean(repo)
    notes = diff_json(repo)["notes"]
    assert any(
        n.startswith(f"{NAME} moves, step by step") and f"--drained {NAME}" in n for n in notes
    )
    commit(repo, "podinfo waits for infra-configs")

    # Step 2: the wrapper applies it, still marked.
    built(repo, "--drained", NAME)
    docs = documents(repo, home)
    assert _release(docs) is None and "podinfo.release" in _names(docs)
    assert _gate_dependencies(docs) == ["flux-system", "podinfo.release"]
    moved = _release(documents(repo, "flux/releases/staging-1/podinfo/release.yaml"))
    assert moved is not None and moved["metadata"]["annotations"] == {PRUNE: "disabled"}
    assert record(repo)["moving"] == {NAME: "moved", "release/production-1/podinfo": "marked"}
    check_clean(repo)
    # The same object on the same cluster (diff keys flux/releases/<cluster>/ by its cluster):
    # its owner changes, nothing is deleted or uninstalled.
    report = diff_json(repo)
    assert report["deletions"] == [] and not any("uninstalls" in n for n in report["notes"])
    commit(repo, "podinfo moved on staging-1")

    # Step 3: the mark goes; the move leaves the record.
    built(repo, "--drained", NAME)
    moved = _release(documents(repo, "flux/releases/staging-1/podinfo/release.yaml"))
    assert moved is not None and "annotations" not in moved["metadata"]
    assert record(repo)["moving"] == {"release/production-1/podinfo": "marked"}
    check_clean(repo)
    notes = diff_json(repo)["notes"]
    assert f"{NAME} finished moving: its own Kustomization applies it, no longer annotated" in notes
    commit(repo, "podinfo on staging-1 done")


def test_a_new_wrapped_helmrelease_needs_no_steps(tmp_path: Path) -> None:
    repo = repo_of(tmp_path, "flux-layers")
    assert "moving" not in record(repo)
    release = _release(documents(repo, "flux/releases/staging-1/podinfo/release.yaml"))
    assert release is not None and "annotations" not in release["metadata"]


def test_moving_back_out_of_the_wrapper_needs_no_steps(tmp_path: Path) -> None:
    """The root applies the HelmRelease (its owner labels now) before it prunes the wrapper,
    whose ``finalize`` then skips it (``Inclusions``)."""
    repo = repo_of(tmp_path, "flux-layers")
    edit(repo / "fleet.py", *WRAPPED)
    built(repo)
    release = _release(documents(repo, "flux/clusters/staging-1/kustomizations.yaml"))
    assert release is not None and "annotations" not in release["metadata"]
    assert not (repo / "output/flux/releases").exists()
    assert "moving" not in record(repo)
