"""An app without a base (``App(path=None)``, no chart, no source): its layers'
``Overrides(resources=...)`` are all it deploys, so overlay folders that build on a base
themselves (``apps/web/overlays/dev`` listing ``../../base``) are added as they are, where adding
them beside the base would make kustomize refuse every object twice ("may not add resource with
an already registered id")."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from fleetgen.errors import SpecError
from fleetgen.pipeline import api
from fleetgen.tools.kustomize import Kustomize, build_many
from tests.helpers import run_fleetgen
from tests.test_build_out import DEPLOYMENT

OVERLAY = """\
namespace: web
resources: [../../base]
patches:
- target: {kind: Deployment, name: web}
  patch: '[{"op": "replace", "path": "/spec/replicas", "value": REPLICAS}]'
"""
FLEET = """\
from fleetgen import App, Cluster, Environment, Fleet, Overrides, Project

fleet = Fleet(
    name="layered",
    repo="https://git.example.com/layered.git",
    engines=["argocd", "flux"],
    environments=[Environment(name="dev", engine="flux"), Environment(name="prod")],
    clusters=[
        Cluster(name="dev", env="dev", server="https://kubernetes.default.svc"),
        Cluster(name="prod-eu", env="prod", server="https://prod-eu.example.com",
                engine="argocd", registration="external"),
        Cluster(name="prod-us", env="prod", server="https://prod-us.example.com",
                engine="argocd", registration="external"),
    ],
    projects=[Project(name="apps", namespaces=["web"])],
    apps=[
        App(name="web", project="apps", namespace=None,
            per_env={"dev": Overrides(resources=["apps/web/overlays/dev"])},
            per_cluster={
                "prod-eu": Overrides(resources=["apps/web/overlays/prod-eu"]),
                "prod-us": Overrides(resources=["apps/web/overlays/prod-us"]),
            }),
    ],
)
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A base and an overlay folder per environment or cluster, each listing the base."""
    (tmp_path / "apps/web/base").mkdir(parents=True)
    (tmp_path / "apps/web/base/kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (tmp_path / "apps/web/base/deployment.yaml").write_text(DEPLOYMENT)
    for replicas, folder in enumerate(("dev", "prod-eu", "prod-us"), 1):
        overlay = tmp_path / "apps/web/overlays" / folder
        overlay.mkdir(parents=True)
        (overlay / "kustomization.yaml").write_text(OVERLAY.replace("REPLICAS", str(replicas)))
    (tmp_path / "fleet.py").write_text(FLEET)
    return tmp_path


def test_each_overlay_renders_the_folder_its_layer_adds(repo: Path, kustomize: Kustomize) -> None:
    compiled = api.compile_spec(repo / "fleet.py")
    api.build(repo / "fleet.py")
    prod = yaml.safe_load(compiled.rendered["overlays/web/prod/kustomization.yaml"])
    assert prod["resources"] == []  # no base: each prod cluster's overlay adds its folder
    ours = {
        "dev": repo / "output/overlays/web/dev",
        "prod-eu": repo / "output/overlays/web/clusters/prod-eu",
        "prod-us": repo / "output/overlays/web/clusters/prod-us",
    }
    theirs = {name: repo / "apps/web/overlays" / name for name in ours}
    rendered = build_many([*ours.values(), *theirs.values()])
    for name in ours:
        assert rendered[ours[name]] == rendered[theirs[name]], name
    assert "replicas: 3" in rendered[ours["prod-us"]]


def test_a_layered_only_app_builds_and_validates_on_both_engines(repo: Path) -> None:
    assert run_fleetgen(repo, "build").returncode == 0
    validated = run_fleetgen(repo, "validate")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    explained = run_fleetgen(repo, "explain", "web")
    assert explained.stdout.startswith(
        "app web: project apps, namespaces as its manifests say, no base: what its layers add\n"
    )


def test_a_cluster_no_layer_adds_resources_to_is_refused(repo: Path) -> None:
    spec = repo / "fleet.py"
    added = 'Overrides(resources=["apps/web/overlays/prod-us"])'
    spec.write_text(spec.read_text().replace(added, "Overrides()"))
    with pytest.raises(SpecError) as raised:
        api.compile_spec(spec)
    assert [p.message for p in raised.value.problems] == [
        "app 'web' has no path= and no layer adds resources on 'prod-us', so it would deploy "
        "nothing there: add Overrides(resources=[...]) for them, or narrow its targets"
    ]
