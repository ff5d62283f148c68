"""pre-commit hooks run by the real ``pre-commit`` tool in a temporary fleet repository: the
``.pre-commit-config.yaml`` that ``init`` scaffolds as it is written (``repo: local`` hooks of
the fleetgen on PATH: green on a clean repository, red on a stale one, nothing installed nor
downloaded); and the published hooks (``.pre-commit-hooks.yaml``), with ``pre-commit try-repo``
against this working tree (every hook green on a clean repository, every hook red on a broken
one) and used by path and commit as docs/ci.md shows (each hook green on a clean repository,
red on a stale or broken one).

pre-commit installs the hooks' environment with pip from the repository (half a minute or
more), keyed by the hooks' repository and rev. The working tree is snapshotted into one commit
per session and every run names that path and commit, so all of them share one store
(``PRE_COMMIT_HOME``) and the one environment installed in it: ``run`` uses that store itself;
``try-repo`` would make a throwaway store per run (and install afresh), so it runs with its store
pointed at the session's (``TRY_REPO``), its own work (reading the manifest, writing a config
of every hook, running them) unchanged.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from subprocess import CompletedProcess

import pytest
import yaml

from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
# `pre-commit try-repo` with the store of PRE_COMMIT_HOME instead of the one it makes in a
# temporary folder per run (pre_commit.commands.try_repo calls Store(tempdir)); the rest of it is
# the real command. Should pre-commit stop calling Store there, this only costs time.
TRY_REPO = [
    sys.executable,
    "-c",
    "import importlib, sys\n"
    "from pre_commit.main import main\n"
    "from pre_commit.store import Store\n"
    "importlib.import_module('pre_commit.commands.try_repo').Store = lambda *_: Store()\n"
    "sys.exit(main(['try-repo', *sys.argv[1:]]))\n",
]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This working tree as it is (uncommitted edits too, ignored files not) in one commit of a
    repository of its own, with a PRE_COMMIT_HOME for this session."""
    snapshot = tmp_path_factory.mktemp("hooks") / "fleetgen"
    for name in git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split(
        "\0"
    ):
        source = ROOT / name
        if name and source.is_file():  # a file deleted in the working tree is still listed
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git(snapshot, "init", "-q")
    git(snapshot, "add", "-A")
    git(snapshot, "commit", "-q", "-m", "snapshot")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.mktemp("pre-commit-home")))
        yield snapshot


@pytest.fixture
def fleet_repo(tmp_path: Path) -> Path:
    """A committed fleet repository as ``fleetgen init`` and ``fleetgen build`` leave it."""
    repo = tmp_path / "fleet"
    repo.mkdir()
    git(repo, "init", "-q")
    for args in (("init", "--repo", "https://github.com/acme/fleet.git"), ("build",)):
        ran = run_fleetgen(repo, *args)
        assert ran.returncode == 0, ran.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fleet")
    return repo


def pre_commit(repo: Path, *args: str, command: list[str] = PRE_COMMIT) -> CompletedProcess[str]:
    """``pre-commit ARGS`` on every file of ``repo``, without colour."""
    return subprocess.run(
        [*command, *args, "--all-files", "--color", "never"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def run_hook(hooks_repo: Path, repo: Path, hook: str) -> CompletedProcess[str]:
    """``pre-commit run`` of one published hook, with the snapshot for fleetgen's repository
    and its commit for the rev. The snapshot's path is relative to ``repo``, as ``try-repo``
    (run from the repository's top) names it in its config: pre-commit keys an environment by
    that string and the rev, so every run shares one (every test's ``repo`` is as deep under the
    session's temporary folder)."""
    relative = os.path.relpath(hooks_repo.resolve(), repo.resolve())
    rev = git(hooks_repo, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": relative, "rev": rev, "hooks": [{"id": hook}]}]}
    path = repo.parent / f"{hook}.yaml"
    path.write_text(yaml.safe_dump(config))
    return pre_commit(repo, "run", "--config", str(path))


def uncommented(config: str) -> str:
    """The scaffolded config with the hooks it offers in comments enabled."""
    return re.sub(r"^(\s*)# (- id: |  )", r"\1\2", config, flags=re.M)


def offline(monkeypatch: pytest.MonkeyPatch, store: Path) -> None:
    """pre-commit with a store of its own (``store``), the ``fleetgen`` of this interpreter first
    on PATH and every proxy a dead port: a ``repo: local`` config installs and downloads nothing."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(store))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(proxy, "http://127.0.0.1:9")


def test_the_scaffolded_config_runs_the_installed_fleetgen(
    fleet_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``init``'s config as written: pre-commit runs the ``fleetgen`` on PATH (``repo: local``,
    ``language: system``), with a store of its own and every proxy a dead port, so nothing is
    installed nor downloaded; its commented hooks, enabled, run too (issue #39)."""
    offline(monkeypatch, tmp_path / "store")
    clean = pre_commit(fleet_repo, "run")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"^fleetgen build --check\.+Passed", clean.stdout, re.M), clean.stdout
    readme = fleet_repo / "output/README.md"
    built = readme.read_text()
    readme.write_text(built + "hand-edited\n")
    stale = pre_commit(fleet_repo, "run")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "Failed" in stale.stdout and "output/README.md" in stale.stdout

    config = fleet_repo / ".pre-commit-config.yaml"
    config.write_text(uncommented(config.read_text()))
    ids = [hook["id"] for hook in yaml.safe_load(config.read_text())["repos"][0]["hooks"]]
    assert ids == ["fleetgen-build-check", "fleetgen-build", "fleetgen-validate"]
    every = pre_commit(fleet_repo, "run")  # build regenerates output/: the commit would fail
    assert every.returncode == 1 and "files were modified by this hook" in every.stdout
    assert readme.read_text() == built
    again = pre_commit(fleet_repo, "run")
    assert again.returncode == 0, again.stdout + again.stderr
    assert not list((tmp_path / "store").glob("repo*")), "pre-commit installed a repository"


def test_the_published_hooks_run_on_every_commit() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [hook["id"] for hook in hooks] == [
        "fleetgen-build-check",
        "fleetgen-build",
        "fleetgen-validate",
    ]
    for hook in hooks:
        assert hook["language"] == "python" and hook["entry"].startswith("fleetgen ")
        assert (hook["files"], hook["always_run"], hook["pass_filenames"]) == ("", True, False)


def test_try_repo_runs_every_hook_green_on_a_clean_repo(hooks_repo: Path, fleet_repo: Path) -> None:
    ran = pre_commit(fleet_repo, str(hooks_repo), command=TRY_REPO)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for name in ("fleetgen build --check", "fleetgen build", "fleetgen validate"):
        assert re.search(rf"^{re.escape(name)}\.+Passed", ran.stdout, re.M), ran.stdout


def test_try_repo_runs_every_hook_red_on_a_broken_repo(hooks_repo: Path, fleet_repo: Path) -> None:
    """A spec error (a cluster name that is no DNS label) fails all three hooks through
    ``try-repo``, each naming the line; what each does with stale output alone is tested below
    with ``run`` (one hook at a time, as the scaffolded config enables them)."""
    spec = fleet_repo / "fleet.py"
    spec.write_text(spec.read_text().replace('name="dev-1"', 'name="Dev_1"', 1))
    ran = pre_commit(fleet_repo, str(hooks_repo), command=TRY_REPO)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    for name in ("fleetgen build --check", "fleetgen build", "fleetgen validate"):
        assert re.search(rf"^{re.escape(name)}\.+Failed", ran.stdout, re.M), ran.stdout
    assert ran.stdout.count("fleet.py:") >= 3, ran.stdout


def test_build_check_passes_on_a_clean_repo_and_names_the_stale_files(
    hooks_repo: Path, fleet_repo: Path
) -> None:
    clean = run_hook(hooks_repo, fleet_repo, "fleetgen-build-check")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    readme = fleet_repo / "output/README.md"
    readme.write_text(readme.read_text() + "hand-edited\n")
    stale = run_hook(hooks_repo, fleet_repo, "fleetgen-build-check")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "Failed" in stale.stdout and "output/README.md" in stale.stdout


def test_build_regenerates_a_stale_output_and_fails_the_commit(
    hooks_repo: Path, fleet_repo: Path
) -> None:
    clean = run_hook(hooks_repo, fleet_repo, "fleetgen-build")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    readme = fleet_repo / "output/README.md"
    built = readme.read_text()
    readme.write_text(built + "hand-edited\n")
    stale = run_hook(hooks_repo, fleet_repo, "fleetgen-build")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "files were modified by this hook" in stale.stdout
    assert readme.read_text() == built


def test_validate_passes_on_a_clean_repo_and_fails_on_a_broken_spec(
    hooks_repo: Path, fleet_repo: Path
) -> None:
    clean = run_hook(hooks_repo, fleet_repo, "fleetgen-validate")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    spec = fleet_repo / "fleet.py"
    spec.write_text(spec.read_text().replace('name="dev-1"', 'name="Dev_1"', 1))
    broken = run_hook(hooks_repo, fleet_repo, "fleetgen-validate")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Failed" in broken.stdout and "fleet.py:" in broken.stdout
