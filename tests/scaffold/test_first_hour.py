"""A new user's first hour, scripted end to end (issue #24): init in an empty folder, then an
environment, a cluster with its CA file, the second engine, a chart app and an existing base,
each added with the command line; and init adopting a repository whose bases live elsewhere,
through validate --render, diff and build --check after a hand edit and a base edit. Every step
leaves a fleet that builds, checks and validates."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fleetgen.scaffold.remote import PLACEHOLDER_SERVER
from fleetgen.tools.kustomize import Kustomize, build
from tests.diff.test_diff import commit, edit, git
from tests.helpers import Ran, run_fleetgen
from tests.scaffold.test_add import CA_PEM, LEGACY_DEPLOYMENT
from tests.test_cli_surface import _complete
from tests.test_precommit_hooks import offline, pre_commit


def step(repo: Path, *args: str) -> Ran:
    """``fleetgen ARGS`` in ``repo``, which must succeed and leave output/ up to date."""
    done = run_fleetgen(repo, *args)
    assert done.returncode == 0, f"fleetgen {' '.join(args)}:\n{done.stdout}{done.stderr}"
    if (repo / "output").is_dir():
        checked = run_fleetgen(repo, "build", "--check")
        assert checked.returncode == 0, checked.stderr
    return done


def set_server(repo: Path) -> None:
    """What the user does after init: the placeholder server of dev-1 set to its URL."""
    spec = repo / "fleet.py"
    text = spec.read_text()
    server = f'server="{PLACEHOLDER_SERVER.format(cluster="dev-1")}"'
    assert text.count(server) == 1
    spec.write_text(text.replace(server, 'server="https://dev-1.k8s.acme.example:6443"'))


def test_the_first_hour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kustomize: Kustomize
) -> None:
    repo = tmp_path / "acme"
    init = step(tmp_path, "init", repo.name, "--repo", "https://github.com/acme/fleet.git")
    assert "adopted" not in init.stdout and (repo / "apps/hello/base").is_dir()
    assert "server https://dev-1.placeholder.invalid:6443 is a placeholder" in init.stderr
    set_server(repo)
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
        'name="prod", sync=SyncPolicy(automated=True, prune=True), engine="argocd"',
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
    # the Flux chart app's keep-policy warning, as build gives it
    assert [(f["rule"], f["message"]) for f in json.loads(validated.stdout)["findings"]] == [
        (
            "spec-warning",
            next(line for line in built.stderr.splitlines()).partition(": warning: ")[2],
        )
    ]
    rendered = build(repo / "output/overlays/legacy/prod", kustomize)
    assert "image: ghcr.io/acme/storefront:2.0" in rendered

    monkeypatch.chdir(repo)  # a TAB after `fleetgen explain` offers what fleet.py names
    assert _complete("explain ") == ["dev-1", "prod-1", "hello", "web", "legacy"]


def test_the_first_hour_as_scripted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #39's acceptance, step by step with the real CLI, Git and pre-commit: init in an
    empty Git repository, three environments (one manual), the second engine, a cluster in
    each on both engines, an app (its namespace added to the project); build, commit,
    ``pre-commit run --all-files`` with the scaffolded config; a change by hand, its diff, its
    promotion. Every environment deploys (automated sync) or build names it suspended."""
    repo = tmp_path / "acme"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    step(repo, "init", "--repo", "https://github.com/acme/fleet.git")
    set_server(repo)
    for env, sync in (("qa", ("--sync", "auto")), ("staging", ("--sync", "manual")), ("prod", ())):
        step(repo, "add", "env", env, *sync)  # prod: no flag and no terminal, so auto
    step(repo, "add", "engine", "flux", "--envs", "qa", "--envs", "staging")
    for env, engine in (("qa", "flux"), ("staging", "flux"), ("prod", "argocd")):
        server = f"https://{env}-1.k8s.acme.example:6443"
        added = step(repo, "add", "cluster", f"{env}-1", "--env", env, "--server", server)
        assert f"hello on {env}-1 ({env}) by {engine}" in added.stdout
    step(repo, "add", "app", "api", "--project", "apps", "--namespace", "api", "--image",
         "ghcr.io/acme/api:1.4.0", "--extend-project")  # fmt: skip
    built = step(repo, "build")
    assert [line.partition(": warning: ")[2] for line in built.stderr.splitlines()] == [
        "environment 'staging': its Flux placements are suspended: nothing deploys until its"
        " sync is set to automated in fleet.py (a manual sync on Flux suspends every"
        " Kustomization and HelmRelease; automated: sync=SyncPolicy(automated=True, prune=True))"
    ]
    _every_environment_deploys_or_is_suspended(repo, {"staging"})

    commit(repo, "first fleet")
    offline(monkeypatch, tmp_path / "store")
    hooks = pre_commit(repo, "run")
    assert hooks.returncode == 0, hooks.stdout + hooks.stderr
    assert re.search(r"^fleetgen build --check\.+Passed", hooks.stdout, re.M), hooks.stdout

    edit(  # the change: dev runs api 1.5.0
        repo / "fleet.py",
        'tag="1.4.0")],\n',
        'tag="1.4.0")],\n'
        '            per_env={"dev": Overrides(images=[Image(name="api", tag="1.5.0")])},\n',
    )
    edit(repo / "fleet.py", "    Image,\n", "    Image,\n    Overrides,\n")
    step(repo, "build")
    diffed = run_fleetgen(repo, "diff")
    assert diffed.returncode == 1, diffed.stderr  # 1: there are changes
    assert "# dev-1 (dev)" in diffed.stdout and "environments: dev\n" in diffed.stdout
    assert "+ images[name=api].newTag: 1.5.0" in diffed.stdout

    promoted = step(repo, "promote", "api", "--from", "dev", "--to", "qa")
    assert "image api: 1.4.0 → 1.5.0\n  reaches, in rollout order: qa-1\n" in promoted.stdout
    versions = json.loads(step(repo, "versions", "api", "--format", "json").stdout)
    assert {
        cell["environment"]: [version["version"] for version in cell["versions"]]
        for cell in versions["rows"][0]["environments"]
    } == {"dev": ["1.5.0"], "qa": ["1.5.0"], "staging": ["1.4.0"], "prod": ["1.4.0"]}
    commit(repo, "promote api to qa")
    again = pre_commit(repo, "run")
    assert again.returncode == 0, again.stdout + again.stderr


def _every_environment_deploys_or_is_suspended(repo: Path, suspended: set[str]) -> None:
    """Every environment runs placements; each placement syncs by itself, or is suspended in
    one of the ``suspended`` environments, as its Flux objects in output/ say."""
    explained = json.loads(step(repo, "explain", "--format", "json").stdout)
    placements = [placement for app in explained["apps"] for placement in app["placements"]]
    assert {placement["env"] for placement in placements} == {"dev", "qa", "staging", "prod"}
    for placement in placements:
        automated = next(v["value"] for v in placement["values"] if v["key"] == "sync/automated")
        assert placement["suspended"] == (placement["env"] in suspended) == (not automated)
    for env in ("qa", "staging"):
        flux = (repo / f"output/flux/clusters/{env}-1/kustomizations.yaml").read_text()
        assert ("\n  suspend: true\n" in flux) == (env in suspended), flux


BASE_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 1
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      securityContext: {runAsNonRoot: true}
      containers:
        - name: shop
          image: ghcr.io/acme/shop:1.0
          envFrom:
            - configMapRef:
                name: shop-config
          resources:
            limits: {cpu: 500m, memory: 256Mi}
          readinessProbe: {httpGet: {path: /ready, port: 8080}}
          livenessProbe: {httpGet: {path: /live, port: 8080}}
"""


def test_the_first_hour_in_an_existing_repository(tmp_path: Path, kustomize: Kustomize) -> None:
    """init adopts a repository whose bases live elsewhere (k8s/bases/), which gets a project and
    its app from the command line; then build, validate --render, diff, and build --check after a
    hand edit (named, and undone by a build) and after a base edit (the base named as the input
    that changed, not fleet.py)."""
    repo = tmp_path / "platform"
    base = repo / "k8s/bases/shop"
    base.mkdir(parents=True)
    (base / "deployment.yaml").write_text(BASE_DEPLOYMENT)
    (base / "kustomization.yaml").write_text(
        "resources: [deployment.yaml]\nconfigMapGenerator:\n"
        "  - name: shop-config\n    literals: [MODE=live]\n"
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", "https://github.com/acme/platform.git")
    commit(repo, "bases")
    init = step(repo, "init")
    assert "adopted an existing repository" in init.stdout
    set_server(repo)
    step(repo, "add", "project", "shop", "--namespace", "shop")
    step(repo, "add", "cluster", "dev-2", "--env", "dev", "--server", "https://dev-2.example.com")
    app = step(
        repo, "add", "app", "shop", "--project", "shop", "--namespace", "shop",
        "--path", "k8s/bases/shop",
    )  # fmt: skip
    assert "k8s/bases/shop" in app.stdout
    spec = repo / "fleet.py"  # and, by hand, config its ConfigMap gets in every environment
    text = spec.read_text()
    assert text.count('path="k8s/bases/shop"') == 1
    spec.write_text(
        text.replace(
            'path="k8s/bases/shop"',
            'path="k8s/bases/shop", config={"shop-config": {"REGION": "eu"}}',
        )
    )
    step(repo, "build")
    commit(repo, "fleet")
    validated = run_fleetgen(repo, "validate", "--render", "--format", "json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    report = json.loads(validated.stdout)
    assert report["findings"] == [] and report["summary"]["builds"]["overlays"] == 1
    rendered = build(repo / "output/overlays/shop/dev", kustomize)
    assert "namespace: shop" in rendered and "image: ghcr.io/acme/shop:1.0" in rendered

    overlay = repo / "output/overlays/shop/dev/kustomization.yaml"
    overlay.write_text(overlay.read_text() + "# a hand fix\n")
    checked = run_fleetgen(repo, "build", "--check")
    assert checked.returncode == 1
    assert "output/overlays/shop/dev/kustomization.yaml: hand-edited" in checked.stderr
    step(repo, "build")  # the hand edit is overwritten, the check passes again

    # The Deployment stops reading shop-config: the config hash fleetgen puts on its pods goes.
    (base / "deployment.yaml").write_text(BASE_DEPLOYMENT.replace("name: shop-config", "name: x"))
    checked = run_fleetgen(repo, "build", "--check")
    assert checked.returncode == 1
    assert "changed since the last build: base k8s/bases/shop" in checked.stderr.splitlines()
    step(repo, "build")
    diffed = run_fleetgen(repo, "diff", "--base", "HEAD", "--format", "json")
    assert diffed.returncode == 1, diffed.stderr  # 1: there are changes
    assert "shop" in json.loads(diffed.stdout)["touched"]["apps"]
