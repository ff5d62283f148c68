"""A new user's first hour, scripted end to end (issue #24): init in an empty folder, then an
environment, a cluster with its CA file, the second engine, a chart app and an existing base,
each added with the command line; every step leaves a fleet that builds, checks and validates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fleetgen.kustomize import Kustomize, build
from tests.helpers import Ran, run_fleetgen
from tests.scaffold.test_add import CA_PEM, LEGACY_DEPLOYMENT
from tests.test_cli_surface import _complete


def step(repo: Path, *args: str) -> Ran:
    """``fleetgen ARGS`` in ``repo``, which must succeed and leave output/ up to date."""
    done = run_fleetgen(repo, *args)
    assert done.returncode == 0, f"fleetgen {' '.join(args)}:\n{done.stdout}{done.stderr}"
    if (repo / "output").is_dir():
        checked = run_fleetgen(repo, "build", "--check")
        assert checked.returncode == 0, checked.stderr
    return done


def test_the_first_hour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kustomize: Kustomize
) -> None:
    repo = tmp_path / "acme"
    init = step(tmp_path, "init", repo.name, "--repo", "https://github.com/acme/fleet.git")
    assert "adopted" not in init.stdout and (repo / "apps/hello/base").is_dir()
    step(repo, "build")

    step(repo, "add", "env", "prod")
    (repo / "certs").mkdir()
    (repo / "certs/prod-1.pem").write_text(CA_PEM)
    cluster = step(
        repo,
        *("add", "cluster", "prod-1", "--env", "prod", "--server", "https://prod-1.example.com"),
        *("--credentials", "aws:arn:aws:iam::111122223333:role/argocd"),
        *("--ca-file", "certs/prod-1.pem"),
    )
    assert "hello on prod-1 (prod) by argocd" in cluster.stdout

    engine = step(repo, "add", "engine", "flux", "--envs", "dev")
    assert "flux bootstrap git --url=https://github.com/acme/fleet.git" in engine.stdout
    assert "kept environment(s) prod on argocd" in engine.stdout

    chart = step(
        repo,
        *("add", "app", "web", "--project", "apps", "--namespace", "web"),
        *("--chart", "https://charts.bitnami.com/bitnami/nginx@18.1.0", "--extend-project"),
    )
    assert "extended project apps's namespaces and source_repos" in chart.stdout

    (repo / "deploy/legacy").mkdir(parents=True)
    (repo / "deploy/legacy/deployment.yaml").write_text(LEGACY_DEPLOYMENT)
    (repo / "deploy/legacy/kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    legacy = step(
        repo,
        *("add", "app", "legacy", "--project", "apps", "--namespace", "hello"),
        *("--path", "deploy/legacy", "--image", "ghcr.io/acme/storefront:2.0"),
    )
    assert "using deploy/legacy as it is" in legacy.stdout

    spec = (repo / "fleet.py").read_text()
    for written in (
        'engines=["argocd", "flux"]',
        'Environment(name="prod", engine="argocd")',
        'ca_data=CaFile("certs/prod-1.pem")',
        'source_repos=[REPO, "https://charts.bitnami.com/bitnami"]',
        'images=[Image(name="ghcr.io/acme/storefront", tag="2.0")]',
    ):
        assert written in spec
    built = step(repo, "build")
    assert built.stdout == "output: 0 written, 13 unchanged, 0 deleted (6 placements)\n"
    # The repo was given: no placeholder warning (the Flux chart app's keep-policy one stays).
    assert "placeholder" not in built.stderr and "HelmRelease keeps every object" in built.stderr
    validated = run_fleetgen(repo, "validate", "--format", "json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert json.loads(validated.stdout)["findings"] == []
    rendered = build(repo / "output/overlays/legacy/prod", kustomize)
    assert "image: ghcr.io/acme/storefront:2.0" in rendered

    monkeypatch.chdir(repo)  # a TAB after `fleetgen explain` offers what fleet.py names
    assert _complete("explain ") == ["dev-1", "prod-1", "hello", "web", "legacy"]
