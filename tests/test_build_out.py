"""``build --out DIR`` only chooses where the files land (DESIGN §2b): what the controllers read
keeps the fleet's ``output_dir``, and the overlays reach the bases from where they actually land,
so every overlay under any ``--out`` builds with real kustomize; the build cache never passes a
folder built for another place as up to date; ``validate --render`` and ``diff --render`` compile
for the real ``output_dir`` whatever a ``--out`` build left."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from fleetgen.inputs.landing import Landing
from fleetgen.pipeline import api, incremental
from fleetgen.tools.kustomize import Kustomize, build_many
from tests.helpers import run_fleetgen, tree

SPEC = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project,
                      SyncPolicy)

fleet = Fleet(
    name="f", repo="https://git.example.com/f.git", output_dir="deploy/out",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True)),
                  Environment(name="prod", engine="argocd")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
              Cluster(name="prod-1", env="prod", server="https://prod-1.example.com")],
    projects=[Project(name="p", namespaces=["web"])],
    apps=[App(name="web", project="p", namespace="web", path="apps/web/base",
              per_cluster={"prod-1": Overrides(replicas={"web": 3})})],
)
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web:1}]
"""


def _repo(root: Path) -> Path:
    base = root / "apps/web/base"
    base.mkdir(parents=True)
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (base / "deployment.yaml").write_text(DEPLOYMENT)
    (root / "fleet.py").write_text(SPEC)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return _repo(tmp_path / "repo")


def _overlays(out: Path) -> list[Path]:
    return sorted(p.parent for p in (out / "overlays").rglob("kustomization.yaml"))


def _assert_builds(out: Path, kustomize: Kustomize) -> None:
    """Every overlay under ``out`` builds with kustomize and renders the base's Deployment."""
    overlays = _overlays(out)
    assert len(overlays) == 3  # dev, prod and prod-1's own layer
    for overlay, text in build_many(overlays, kustomize=kustomize).items():
        kinds = [(doc["kind"], doc["metadata"]["name"]) for doc in yaml.safe_load_all(text)]
        assert kinds == [("Deployment", "web")], overlay


def _controller_files(out: Path) -> dict[str, bytes]:
    """What the controllers read, and the fleet map."""
    return {
        path: data
        for path, data in tree(out).items()
        if path.startswith(("argocd/", "flux/", "README.md"))
    }


@pytest.mark.parametrize(
    "out",
    [
        "x",  # shallower than deploy/out
        "a/b/c/d/e",  # deeper
        "apps/web",  # around the base it builds on
        "../elsewhere/out",  # outside the repository, relative
        "ABSOLUTE",  # outside the repository, absolute
        "LINKED",  # through a symbolic link
    ],
)
def test_every_overlay_under_any_out_builds(repo: Path, out: str, kustomize: Kustomize) -> None:
    assert run_fleetgen(repo, "build").returncode == 0
    expected = _controller_files(repo / "deploy/out")
    if out == "ABSOLUTE":
        out = str(repo.parent / "far" / "away" / "out")
    elif out == "LINKED":
        (repo.parent / "real/deeper").mkdir(parents=True)
        (repo.parent / "link").symlink_to(repo.parent / "real/deeper")
        out = str(repo.parent / "link" / "out")
    result = run_fleetgen(repo, "build", "--out", out)
    assert result.returncode == 0, result.stderr
    where = repo / out
    _assert_builds(where, kustomize)
    # What Argo CD and Flux read in Git keeps output_dir: the same files wherever they land.
    assert _controller_files(where) == expected
    flux = (where / "flux/clusters/dev-1/kustomizations.yaml").read_text()
    assert "path: ./deploy/out/overlays/web/dev\n" in flux
    assert run_fleetgen(repo, "build", "--check", "--out", out).returncode == 0


def test_the_default_output_dir_builds_with_the_paths_it_always_had(
    repo: Path, kustomize: Kustomize
) -> None:
    assert run_fleetgen(repo, "build").returncode == 0
    _assert_builds(repo / "deploy/out", kustomize)
    env = (repo / "deploy/out/overlays/web/prod/kustomization.yaml").read_text()
    assert "resources:\n- ../../../../../apps/web/base\n" in env


def test_a_folder_copied_elsewhere_with_its_cache_is_not_up_to_date(
    repo: Path, kustomize: Kustomize
) -> None:
    """The stored compile and record of one place never pass for another's: the place is an
    input of the compile (`incremental.inputs`)."""
    assert run_fleetgen(repo, "build", "--out", "one").returncode == 0
    shutil.copytree(repo / "one", repo / "two/deeper")
    check = run_fleetgen(repo, "build", "--check", "--out", "two/deeper")
    assert check.returncode == 1
    assert "overlays/web/dev/kustomization.yaml: stale" in check.stderr
    assert run_fleetgen(repo, "build", "--out", "two/deeper").returncode == 0
    _assert_builds(repo / "two/deeper", kustomize)


def test_a_repository_moved_away_from_its_out_rebuilds_the_overlays(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    first = _repo(tmp_path / "first")
    out = tmp_path / "out"
    assert api.build(first / "fleet.py", out).report.written
    moved = tmp_path / "somewhere/else"
    moved.parent.mkdir()
    first.rename(moved)
    assert api.check(moved / "fleet.py", out).findings
    rebuilt = api.build(moved / "fleet.py", out)
    assert sorted(rebuilt.report.written) == [
        "overlays/web/dev/kustomization.yaml",
        "overlays/web/prod/kustomization.yaml",
    ]  # the cluster layer builds on its environment's overlay, beside it
    _assert_builds(out, kustomize)


def test_where_the_files_land_is_an_input(repo: Path) -> None:
    loaded = api.load(repo / "fleet.py")
    default = incremental.inputs(loaded)
    here = incremental.inputs(loaded, Landing.of(loaded.fleet))
    elsewhere = incremental.inputs(loaded, Landing.between(repo, repo / "x"))
    assert default is not None and here is not None and elsewhere is not None
    assert default == here
    assert {
        name for name in default.digests if default.digests[name] != elsewhere.digests[name]
    } == {incremental.OUTPUT}
    assert default.key != elsewhere.key


@pytest.mark.parametrize(
    ("root", "output", "landing"),
    [
        ("/r", "/r/output", Landing("", "output")),
        ("/r", "/r", Landing("", "")),
        ("/w/r", "/tmp/o", Landing("w/r", "tmp/o")),
        ("/w/r", "/w", Landing("r", "")),
        ("/", "/o", Landing("", "o")),
    ],
)
def test_landing_between(root: str, output: str, landing: Landing) -> None:
    assert Landing.between(Path(root), Path(output)) == landing


def test_validate_and_diff_render_for_the_real_output_dir(repo: Path, kustomize: Kustomize) -> None:
    """Both compile into temporary folders of their own: what they build must be the overlays
    as the fleet's output_dir holds them, whatever a `--out` build left in the cache."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    assert run_fleetgen(repo, "build").returncode == 0
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fleet"], cwd=repo, check=True)
    assert run_fleetgen(repo, "build", "--out", os.fspath(repo.parent / "preview")).returncode == 0
    validated = run_fleetgen(repo, "validate", "--render", "--format", "json")
    report = json.loads(validated.stdout)
    assert report["summary"]["builds"]["overlays"] == 2  # dev and prod-1 (prod has no placement)
    assert "kustomize-build" not in {finding["rule"] for finding in report["findings"]}
    assert report["summary"]["rendered_checked"] == 2
    deployment = repo / "apps/web/base/deployment.yaml"
    deployment.write_text(DEPLOYMENT.replace("image: web:1", "image: web:2"))
    diffed = run_fleetgen(repo, "diff", "--base", "HEAD", "--render", "--format", "json")
    assert diffed.returncode == 1, diffed.stderr
    assert '"web:2"' in diffed.stdout
