"""The example fleet at the repo root, through the real CLI: deterministic, committed, buildable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from fleetgen.pipeline import api
from fleetgen.tools.kustomize import Kustomize, build_many
from tests.helpers import Ran, on_a_terminal, run_fleetgen, run_fleetgen_process, tree

ROOT = Path(__file__).resolve().parent.parent


def fleetgen(cwd: Path, *args: str) -> Ran:
    return run_fleetgen(cwd, *args)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the example fleet repo: fleet.py, apps/, charts/ and the committed output/."""
    copy = tmp_path / "fleet-repo"
    copy.mkdir()
    shutil.copy(ROOT / "fleet.py", copy)
    for folder in ("apps", "charts", "output"):
        shutil.copytree(ROOT / folder, copy / folder)
    return copy


def test_committed_output_is_what_the_example_compiles_to(repo: Path) -> None:
    """A smoke test of the real command (a process, as a user runs it)."""
    result = run_fleetgen_process(repo, "build", "--check")
    assert (result.returncode, result.stderr) == (0, "")


def test_the_example_builds_without_warnings(repo: Path) -> None:
    """Every warning a build prints is one its reader must act on, and the example needs none:
    what an engine cannot honour but fleet.py cannot change either (Argo CD's lack of order
    between Applications where Flux orders the same app, fleet labels that chart apps cannot
    carry) is said once, in output/README.md and by ``explain``; a chart app's keep-on-upgrade is
    chosen in fleet.py (cascade_delete); Flux 2.9 honours ignore_differences."""
    result = fleetgen(repo, "build")
    assert (result.returncode, result.stderr) == (0, "")
    readme = (repo / "output/README.md").read_text()
    assert "`common_labels`/`common_annotations` do not reach them" in readme


def test_build_warns_that_it_overwrites_a_hand_edited_file(repo: Path) -> None:
    edited = repo / "output/overlays/api-service/prod/kustomization.yaml"
    original = edited.read_bytes()
    edited.write_bytes(original + b"# a hand fix\n")
    result = run_fleetgen(repo, "build")
    assert result.returncode == 0, result.stderr
    assert (
        "output/overlays/api-service/prod/kustomization.yaml: warning: this generated file "
        "was edited by hand; the edit is overwritten (change fleet.py instead)"
        in result.stderr.splitlines()
    )
    assert edited.read_bytes() == original


def test_check_names_a_hand_edited_file_and_writes_nothing(repo: Path) -> None:
    edited = repo / "output/overlays/api-service/prod/kustomization.yaml"
    edited.write_text(edited.read_text().replace("count: 4", "count: 40"))
    before = tree(repo)
    result = fleetgen(repo, "build", "--check")
    assert result.returncode == 1
    assert "output/overlays/api-service/prod/kustomization.yaml: hand-edited" in result.stderr
    assert tree(repo) == before


def test_check_says_which_input_changed_since_the_last_build(repo: Path) -> None:
    """A base edited after the build: the check names it (the cache keeps the inputs of the
    build that wrote the tree's manifest, `Memo.changed`), not fleet.py, which did not change."""
    run_fleetgen_process(repo, "build")
    # The Deployment reads another ConfigMap: the config hash fleetgen puts on its pod template
    # (for order-config, which fleet.py configures) goes.
    deployment = repo / "apps/order-service/base/deployment.yaml"
    text = deployment.read_text()
    deployment.write_text(text.replace("name: order-config", "name: order-other"))
    result = run_fleetgen_process(repo, "build", "--check")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert "changed since the last build: base apps/order-service/base" in lines
    assert any(
        ": stale: out of date with its inputs; run `fleetgen build`" in line for line in lines
    )


@pytest.mark.parametrize("up_to_date", [True, False], ids=["quick", "compiled"])
def test_check_names_manifests_a_controller_would_apply_that_fleetgen_did_not_write(
    repo: Path, up_to_date: bool
) -> None:
    """Argo CD's root Application applies every manifest under output/argocd/
    (``directory.recurse``) and each cluster's Flux everything under flux/clusters/<cluster>/
    but flux-system/ (`fleetgen.write.applied`): the quick path of an up-to-date tree and a
    compiling check both name them, and so does a plain build, as warnings; a file elsewhere, or
    in bootstrap's flux-system/, is not reported."""
    run_fleetgen_process(repo, "build")  # the cache's record of the tree: the quick path
    if not up_to_date:
        shutil.rmtree(repo / "output/.fleetgen/cache")
    (repo / "output/argocd/projects/extra.yaml").write_text("kind: ConfigMap\n")
    (repo / "output/flux/clusters/dev/more").mkdir()
    (repo / "output/flux/clusters/dev/more/x.yml").write_text("kind: ConfigMap\n")
    (repo / "output/flux/clusters/dev/flux-system").mkdir()
    (repo / "output/flux/clusters/dev/flux-system/gotk-sync.yaml").write_text("kind: X\n")
    (repo / "output/overlays/notes.yaml").write_text("kind: ConfigMap\n")
    (repo / "output/argocd/README.txt").write_text("not a manifest\n")
    result = run_fleetgen_process(repo, "build", "--check")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "output/argocd/projects/extra.yaml: applied: not written by fleetgen, yet Argo CD's root "
        "Application (directory.recurse) applies it: move it out of the output folder (say it "
        "in fleet.py instead)",
        "output/flux/clusters/dev/more/x.yml: applied: not written by fleetgen, yet the Flux "
        "bootstrapped on dev applies it: move it out of the output folder (say it in fleet.py "
        "instead)",
        "2 file(s) fleetgen did not write would be applied by a controller: move them out of "
        "the output folder",
    ]
    # a plain build (the quick path of an up-to-date tree, or a compile) names them as warnings
    built = run_fleetgen_process(repo, "build")
    assert built.returncode == 0, built.stderr
    assert built.stderr.splitlines() == [
        "output/argocd/projects/extra.yaml: warning: not written by fleetgen, yet Argo CD's root "
        "Application (directory.recurse) applies it: move it out of the output folder (say it "
        "in fleet.py instead)",
        "output/flux/clusters/dev/more/x.yml: warning: not written by fleetgen, yet the Flux "
        "bootstrapped on dev applies it: move it out of the output folder (say it in fleet.py "
        "instead)",
    ]


def test_builds_are_identical_across_hash_seeds(repo: Path) -> None:
    trees = []
    for seed in ("0", "1", "4242"):
        shutil.rmtree(repo / "output")
        # a real process each: the hash seed is fixed when the interpreter starts
        result = run_fleetgen_process(repo, "build", PYTHONHASHSEED=seed)
        assert result.returncode == 0, result.stderr
        trees.append(tree(repo / "output"))
    assert trees[0] == trees[1] == trees[2]


def test_every_overlay_of_the_example_builds_with_kustomize(kustomize: Kustomize) -> None:
    compiled = api.compile_spec(ROOT / "fleet.py")
    apps = {app.name: app for app in compiled.plan.fleet.apps}
    overlays = {compiled.out_dir / o.path: o.app for o in compiled.plan.env_overlays}
    overlays |= {
        compiled.out_dir / p.overlay: p.app for p in compiled.plan.placements if p.chart is None
    }
    rendered = build_many(sorted(overlays), kustomize=kustomize)
    for overlay, app in overlays.items():
        docs = [d for d in yaml.safe_load_all(rendered[overlay]) if d]
        assert docs, overlay
        # Every object in the app's namespace; cluster-baseline (namespace=None) ships only
        # cluster-scoped objects (its Namespaces, a PriorityClass), which stay without one.
        assert {d["metadata"].get("namespace") for d in docs} == {apps[app].namespace}, overlay
    kinds = {
        (d["kind"], d["metadata"]["name"])
        for d in yaml.safe_load_all(rendered[compiled.out_dir / "overlays/cluster-baseline/prod"])
        if d
    }
    assert kinds == {
        ("Namespace", "monitoring"),
        ("Namespace", "ingress"),
        ("PriorityClass", "platform-critical"),
    }


def test_build_without_a_spec_points_at_init(tmp_path: Path) -> None:
    """A smoke test of a real process's error exit: code 2, one message, no traceback."""
    result = run_fleetgen_process(tmp_path, "build")
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert result.stderr.startswith(
        "fleet.py: no such spec: start a fleet repo with `fleetgen init`"
    )
    assert list(tmp_path.iterdir()) == []


def test_progress_shows_on_a_terminal_and_stays_quiet_otherwise(repo: Path) -> None:
    """A build that compiles shows a spinner on a terminal; an up-to-date one is answered
    before the command line loads (`fleetgen.cli.quick`), with nothing to wait for."""
    assert "building" not in fleetgen(repo, "build", "--no-cache").stderr
    code, shown = on_a_terminal(repo, "build", "--no-cache")
    assert code == 0 and "building fleet.py" in shown
    code, shown = on_a_terminal(repo, "build")
    assert code == 0 and "building" not in shown and " 0 written, " in shown
