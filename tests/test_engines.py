"""One engine per placement: which engine a placement gets, and that every emitted Argo CD object
serves only Argo CD placements and every Flux object only Flux placements (never both)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fleetgen.errors import SpecError
from fleetgen.manifests.yamlio import load_all
from fleetgen.pipeline import api
from tests.emit.test_flux import HUB_FLEET

ROOT = Path(__file__).resolve().parent.parent
Pair = tuple[str, str]

PRECEDENCE = """
from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project
fleet = Fleet(
    name="shop", repo="https://git.example.com/shop.git", engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="dev", engine="flux"),
                  Environment(name="prod", engine="argocd")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
              Cluster(name="dev-2", env="dev", server="https://dev-2.example.com", engine="argocd"),
              Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
              Cluster(name="prod-2", env="prod", server="https://prod-2.example.com",
                      engine="flux")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base", engine="flux"),
          App(name="api", project="shop", namespace="shop", path="apps/api/base")],
)
"""
ONLY_ENGINE = """
from fleetgen import App, Cluster, Environment, Fleet, Project
fleet = Fleet(
    name="shop", repo="https://git.example.com/shop.git", engines=["flux"],
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
"""
# The hub fleet of test_flux with staging on Argo CD and the rest on the Flux hub.
MIXED_HUB = (
    HUB_FLEET.replace('engines=["flux"]', 'engines=["argocd", "flux"]')
    .replace('Environment(name="mgmt",', 'Environment(name="mgmt", engine="flux",')
    .replace('Environment(name="staging")', 'Environment(name="staging", engine="argocd")')
    .replace('Environment(name="prod",', 'Environment(name="prod", engine="flux",')
)


def repo_with(root: Path, text: str, apps: tuple[str, ...] = ("web", "api")) -> Path:
    for app in apps:
        base = root / "apps" / app / "base"
        base.mkdir(parents=True)
        (base / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
        (base / "deployment.yaml").write_text(
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {app}}}\n"
        )
    (root / "fleet.py").write_text(text)
    return root / "fleet.py"


def engines_of(spec: Path) -> dict[Pair, str]:
    return {(p.app, p.cluster): p.engine for p in api.compile_spec(spec).plan.placements}


def test_app_beats_cluster_beats_environment(tmp_path: Path) -> None:
    assert engines_of(repo_with(tmp_path, PRECEDENCE)) == {
        ("web", "dev-1"): "flux",
        ("web", "dev-2"): "flux",  # App(engine=...) wins everywhere
        ("web", "prod-1"): "flux",
        ("web", "prod-2"): "flux",
        ("api", "dev-1"): "flux",  # the environment's
        ("api", "dev-2"): "argocd",  # the cluster's beats the environment's
        ("api", "prod-1"): "argocd",
        ("api", "prod-2"): "flux",
    }


def test_the_only_engine_needs_no_rule_and_argocd_is_the_default(tmp_path: Path) -> None:
    spec = repo_with(tmp_path, ONLY_ENGINE, apps=("web",))
    assert engines_of(spec) == {("web", "dev-1"): "flux"}
    spec.write_text(
        ONLY_ENGINE.replace('engines=["flux"],', "")
        .replace("Fleet, Project", "ExternalSecretRef, Fleet, Project")
        .replace(
            "environments=",
            'default_credentials=ExternalSecretRef(store="v", key="k"),\n    environments=',
        )
    )
    assert engines_of(spec) == {("web", "dev-1"): "argocd"}


def test_a_flux_cluster_needs_no_credentials_an_argocd_one_does(tmp_path: Path) -> None:
    """Per-cluster Flux pulls from Git on the cluster itself; Argo CD reaches out to it."""
    text = PRECEDENCE.replace(
        '    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),\n', ""
    )
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo_with(tmp_path, text))
    assert sorted(p.message for p in raised.value.problems) == [
        f"cluster {name!r} has no credentials: set Cluster(credentials=...) or "
        "Fleet(default_credentials=...)"
        for name in ("dev-2", "prod-1")
    ]


def documents(rendered: dict[str, bytes], prefix: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, data in sorted(rendered.items()):
        if path.startswith(prefix) and path.endswith(".yaml"):
            for doc in load_all(data.decode()):
                yield path, doc


def argocd_pairs(rendered: dict[str, bytes]) -> set[Pair]:
    """(app, cluster) of every Application the ApplicationSets generate: their cluster
    generators select registrations by ``fleetgen.io/cluster In [...]``."""
    found = set()
    for _, doc in documents(rendered, "argocd/applicationsets/"):
        app = doc["metadata"]["labels"]["fleetgen.io/app"]
        for generator in doc["spec"]["generators"]:
            (expression,) = generator["clusters"]["selector"]["matchExpressions"]
            found |= {(app, cluster) for cluster in expression["values"]}
    return found


def flux_pairs(rendered: dict[str, bytes]) -> set[Pair]:
    """(app, cluster) of every Flux Kustomization that applies an app overlay, and of every
    HelmRelease (a chart app)."""
    found = set()
    for _, doc in documents(rendered, "flux/"):
        labels = doc.get("metadata", {}).get("labels", {})
        if "fleetgen.io/app" in labels and (
            doc["kind"] == "HelmRelease"
            or (doc["kind"] == "Kustomization" and "/overlays/" in doc["spec"]["path"])
        ):
            found.add((labels["fleetgen.io/app"], labels["fleetgen.io/cluster"]))
    return found


@pytest.fixture(params=["example", "mixed hub"])
def compiled(request: pytest.FixtureRequest, tmp_path: Path) -> api.Compiled:
    if request.param == "example":
        return api.compile_spec(ROOT / "fleet.py")
    shutil.copytree(ROOT / "apps", tmp_path / "apps")
    (tmp_path / "fleet.py").write_text(MIXED_HUB)
    return api.compile_spec(tmp_path / "fleet.py")


def test_no_placement_is_on_both_engines(compiled: api.Compiled) -> None:
    plan, rendered = compiled.plan, compiled.rendered
    argocd = {(p.app, p.cluster) for p in plan.placements if p.engine == "argocd"}
    flux = {(p.app, p.cluster) for p in plan.placements if p.engine == "flux"}
    assert argocd and flux  # both engines are in use
    assert argocd_pairs(rendered) == argocd
    assert flux_pairs(rendered) == flux
    assert not argocd_pairs(rendered) & flux_pairs(rendered)
    argocd_clusters = {cluster for _, cluster in argocd}
    flux_clusters = {cluster for _, cluster in flux}
    registered = {
        path.removeprefix("argocd/clusters/").removesuffix(".yaml")
        for path in rendered
        if path.startswith("argocd/clusters/")
    }
    assert registered == argocd_clusters
    for _, project in documents(rendered, "argocd/projects/"):
        assert {d["name"] for d in project["spec"]["destinations"]} <= argocd_clusters
    hub = plan.fleet.flux.hub
    if hub is None:
        directories = {path.split("/")[2] for path in rendered if path.startswith("flux/clusters/")}
        assert directories == flux_clusters
    else:
        spokes = {
            path.split("/")[4].removesuffix(".yaml")
            for path in rendered
            if path.startswith(f"flux/clusters/{hub}/spokes/")
        }
        assert spokes == flux_clusters - {hub}
        assert {
            path.split("/")[2] for path in rendered if path.startswith("flux/spokes/")
        } == flux_clusters - {hub}
        assert {path.split("/")[2] for path in rendered if path.startswith("flux/clusters/")} == {
            hub
        }


def test_engine_warnings_fire_only_where_that_engine_places_the_app(tmp_path: Path) -> None:
    """api depends_on web: on Flux it becomes dependsOn; only where no placement honours it
    (all on Argo CD) does the build warn."""
    text = PRECEDENCE.replace(
        'path="apps/api/base")', 'path="apps/api/base", depends_on=["web"], engine="flux")'
    )
    compiled = api.compile_spec(repo_with(tmp_path, text))
    assert not [w for w in compiled.warnings if "depends_on has no effect" in w.message]
    text = text.replace('depends_on=["web"], engine="flux"', 'depends_on=["web"], engine="argocd"')
    (tmp_path / "fleet.py").write_text(text)
    compiled = api.compile_spec(tmp_path / "fleet.py")
    assert [w.message for w in compiled.warnings if "depends_on" in w.message] == [
        "app 'api': depends_on has no effect: every placement of it is on Argo CD, which syncs "
        "Applications independently (sync waves do not order generated apps)"
    ]


def test_flux_depends_on_must_be_a_flux_placement_of_the_same_cluster(tmp_path: Path) -> None:
    """Flux ``dependsOn`` names a Kustomization; an Argo CD placement has none to wait for."""
    text = PRECEDENCE.replace(
        'path="apps/web/base", engine="flux")',
        'path="apps/web/base", depends_on=["api"], engine="flux")',
    )
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo_with(tmp_path, text))
    assert [p.message for p in raised.value.problems] == [
        "app 'web' depends_on 'api', which is not placed on cluster(s) dev-2, prod-1: Flux "
        "dependsOn only reaches Kustomizations of the same cluster; place it there too or drop "
        "the dependency"
    ]
