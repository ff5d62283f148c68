"""``fleetgen import --engine argocd|flux``: a repository of Kustomize overlays without engine
objects (the golden cases ``tests/imports/overlays-*``). What each overlay folder is, environment
or cluster, comes from its name, the options, or the user on a terminal; else import refuses and
lists the folders; without ``--engine`` it says what it found and the command to run."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from fleetgen.importer.overlays import find
from fleetgen.importer.repo import read_repo
from tests.helpers import answering, run_fleetgen

IMPORTS = Path(__file__).parent / "imports"
ENVS, CLUSTERS = IMPORTS / "overlays-envs", IMPORTS / "overlays-clusters"


def _copy(case: Path, tmp_path: Path) -> Path:
    """The case's repository in a folder of the case's name (the fleet's name comes from it)."""
    return Path(shutil.copytree(case / "repo", tmp_path / case.name))


def _kustomization(root: Path, folder: str, resources: str = "[]") -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / "kustomization.yaml").write_text(f"resources: {resources}\n")


def test_the_layouts_of_overlay_repositories(tmp_path: Path) -> None:
    """``APP/overlays/NAME/`` (or ``envs/``) at any depth, ``APP/NAME/`` beside ``APP/base/``;
    an app folder named where its manifests are (the root, ``deploy/``) takes the name above
    it."""
    root = tmp_path / "platform"
    for folder in ("base", "overlays/dev", "overlays/prod", "apps/web/base", "apps/web/staging"):
        _kustomization(root, folder)
    for folder in ("svc/api/overlays/eu", "svc/api/envs/us", "deploy/base", "deploy/overlays/qa"):
        _kustomization(root, folder)
    _kustomization(root, "apps/web/components/debug")  # no overlay: a folder beside base only
    (root / "apps/web/components/debug/kustomization.yaml").write_text("kind: Component\n")
    found = {(s.app, s.folder): s.overlays for s in find(read_repo(root))}
    assert found == {  # the root's and deploy/'s would both be "platform": named by their paths
        ("platform", "."): (("dev", "overlays/dev"), ("prod", "overlays/prod")),
        ("web", "apps/web"): (("staging", "apps/web/staging"),),
        ("deploy", "deploy"): (("qa", "deploy/overlays/qa"),),
        ("api", "svc/api"): (("eu", "svc/api/overlays/eu"), ("us", "svc/api/envs/us")),
    }
    alone = tmp_path / "shop"
    _kustomization(alone, "deploy/overlays/prod")
    assert [(s.app, s.folder) for s in find(read_repo(alone))] == [("shop", "deploy")]


def test_without_engine_the_message_names_the_overlays_and_the_command(tmp_path: Path) -> None:
    ran = run_fleetgen(_copy(ENVS, tmp_path), "import")
    assert ran.returncode == 2
    assert ran.stderr.splitlines() == [
        "nothing importable in .: no Flux cluster folder (a flux-system Kustomization, or "
        "clusters/NAME/ with Kustomizations or HelmReleases), no Argo CD cluster Secret, "
        "Application or ApplicationSet; it holds Kustomize overlays (apps/orders: dev, prod; "
        "apps/storefront: dev, prod, staging): import them with `fleetgen import --engine "
        "argocd` (or --engine flux), the engine that is to deploy them; nothing was written"
    ]


REFUSAL = (
    "overlay folders not named after an environment: 'prod-eu' (shop/overlays/prod-eu), "
    "'prod-us' (shop/overlays/prod-us); say what each is with --env NAME=FOLDER or --cluster "
    "[ENV/]NAME=FOLDER (for instance: fleetgen import --engine flux --cluster "
    "prod/prod-eu=prod-eu --cluster prod/prod-us=prod-us), or run import on a terminal, which "
    "asks; nothing was written"
)


def test_open_folders_without_a_terminal_are_refused_with_the_command(tmp_path: Path) -> None:
    """Off a terminal (CI), folders not named after an environment and not in the options are
    listed with a command that says what they are; here it gives the golden fleet."""
    repo = _copy(CLUSTERS, tmp_path)
    ran = run_fleetgen(repo, "import", "--engine", "flux")
    assert (ran.returncode, ran.stderr.splitlines()) == (2, [REFUSAL])
    assert not (repo / "fleet.py").exists()
    command = REFUSAL.split("(for instance: ")[1].split(")")[0]
    again = run_fleetgen(repo, *shlex.split(command)[1:])
    assert again.returncode == 1, again.stderr
    assert (repo / "fleet.py").read_text() == (CLUSTERS / "fleet.py").read_text()


def test_on_a_terminal_it_asks_what_each_open_folder_is(tmp_path: Path) -> None:
    repo = _copy(CLUSTERS, tmp_path)
    role = b"number or name"
    answers = [(role, b"2\n"), (b"[prod]", b"\n"), (role, b"cluster\n"), (b"[prod]", b"prod\n")]
    returncode, output = answering(repo, answers, "import", "--engine", "flux")
    assert "What is the overlay folder 'prod-eu' (shop/overlays/prod-eu)?" in output
    assert "  1. environment\r\n  2. cluster" in output
    assert "The environment of cluster 'prod-us' [prod]:" in output
    assert returncode == 1, output
    assert (repo / "fleet.py").read_text() == (CLUSTERS / "fleet.py").read_text()


def test_env_options_make_folders_environments(tmp_path: Path) -> None:
    """``--env NAME=FOLDER`` names an environment of the folders called FOLDER: each of its own
    cluster, named after it."""
    ran = run_fleetgen(
        _copy(CLUSTERS, tmp_path),
        *("import", "--dry-run", "--engine", "flux", "--env", "eu=prod-eu", "--env", "us=prod-us"),
    )
    assert ran.returncode == 1, ran.stderr
    assert '        Environment(name="eu"),\n        Environment(name="us"),\n' in ran.stdout
    assert '"eu": Overrides(resources=["shop/overlays/prod-eu"]),' in ran.stdout
    assert "per_cluster" not in ran.stdout


def test_engine_options_on_a_repository_of_engine_objects_are_refused(tmp_path: Path) -> None:
    repo = Path(shutil.copytree(IMPORTS / "flux-clusters" / "repo", tmp_path / "repo"))
    ran = run_fleetgen(repo, "import", "--engine", "argocd")
    assert (ran.returncode, ran.stderr.splitlines()) == (
        2,
        [
            "--engine, --env and --cluster are for a repository of Kustomize overlays without "
            "engine objects; . holds Flux objects, which import reads as they are: run it "
            "without them; nothing was written"
        ],
    )


def test_an_overlay_folder_kustomize_cannot_build_is_a_finding(tmp_path: Path) -> None:
    repo = _copy(ENVS, tmp_path)
    _kustomization(repo, "apps/orders/overlays/prod", "[../../missing]")
    ran = run_fleetgen(repo, "import", "--engine", "argocd")
    assert ran.returncode == 1, ran.stderr
    assert any(
        line.startswith(
            "apps/orders/overlays/prod/kustomization.yaml:1: kustomize cannot build "
            "apps/orders/overlays/prod ("
        )
        for line in ran.stderr.splitlines()
    ), ran.stderr
    assert "apps/orders/overlays/prod" not in (repo / "fleet.py").read_text().split("apps=[")[1]
