"""``fleetgen init``: a new fleet repo that builds, checks and renders right away."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from fleetgen.kustomize import Kustomize, build


def fleetgen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fleetgen", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)


def test_init_then_build_then_check(tmp_path: Path, kustomize: Kustomize) -> None:
    repo = tmp_path / "Acme Fleet"
    created = fleetgen(tmp_path, "init", repo.name)
    assert created.returncode == 0, created.stderr
    assert sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()) == [
        ".github/workflows/fleet.yaml", ".gitignore", ".pre-commit-config.yaml", "README.md",
        "apps/hello/base/deployment.yaml", "apps/hello/base/kustomization.yaml",
        "apps/hello/base/service.yaml", "fleet.py"]
    assert 'name="acme-fleet"' in (repo / "fleet.py").read_text()
    for name in (".github/workflows/fleet.yaml", ".pre-commit-config.yaml"):
        assert yaml.safe_load((repo / name).read_text())
    workflow = yaml.safe_load((repo / ".github/workflows/fleet.yaml").read_text())
    assert "${{ github.base_ref }}" in (repo / ".github/workflows/fleet.yaml").read_text()
    # The job that runs fleet.py (code) has a read-only token; the one that writes runs no code.
    assert "pull_request_target" not in workflow[True] and workflow["permissions"] == {
        "contents": "read"}
    jobs = workflow["jobs"]
    assert "permissions" not in jobs["review"]
    assert jobs["comment"]["permissions"] == {"pull-requests": "write"}
    assert not any("checkout" in step.get("uses", "") or "fleetgen" in step.get("run", "")
                   for step in jobs["comment"]["steps"])
    built = fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    checked = fleetgen(repo, "build", "--check")
    assert (checked.returncode, checked.stdout) == (0, "output is up to date\n"), checked.stderr
    validated = fleetgen(repo, "validate", "--render")  # the scaffolded base passes the policy
    assert validated.returncode == 0, validated.stdout + validated.stderr
    rendered = build(repo / "output/overlays/hello/dev", kustomize)
    assert "image: nginxinc/nginx-unprivileged:1.27" in rendered
    assert "| hello | argocd |" in (repo / "output/README.md").read_text()
    assert 'engines=["argocd"],' in (repo / "fleet.py").read_text()


def test_init_with_flux_places_everything_on_flux(tmp_path: Path) -> None:
    """--engine flux: one engine, no Argo CD files, and no credentials needed (each cluster's
    own Flux pulls from the repo)."""
    repo = tmp_path / "fleet"
    created = fleetgen(tmp_path, "init", repo.name, "--engine", "flux")
    assert created.returncode == 0, created.stderr
    text = (repo / "fleet.py").read_text()
    assert 'engines=["flux"],' in text and "default_credentials" not in text
    built = fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    assert (repo / "output/flux/clusters/dev-1/kustomizations.yaml").is_file()
    assert not (repo / "output/argocd").exists()
    assert "| hello | flux |" in (repo / "output/README.md").read_text()


def test_init_refuses_an_unknown_engine(tmp_path: Path) -> None:
    result = fleetgen(tmp_path, "init", "--engine", "both")
    assert result.returncode == 2
    assert "--engine 'both': use argocd or flux" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("mine\n")
    result = fleetgen(tmp_path, "init", "--name", "acme")
    assert result.returncode == 2
    assert "README.md already exist" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["README.md"]
    assert (tmp_path / "README.md").read_text() == "mine\n"


def test_init_refuses_an_invalid_name(tmp_path: Path) -> None:
    result = fleetgen(tmp_path, "init", "--name", "Not_A_Label")
    assert result.returncode == 2
    assert "Fleet.name" in result.stderr
    assert list(tmp_path.iterdir()) == []
