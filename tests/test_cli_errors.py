"""Hostile arguments to every command, through the real CLI: never a traceback.

Each case runs in a copy of a fresh ``fleetgen init`` repo (committed to Git and built) and must
exit 2 with a short message on stderr that names the offending path or value. A usage or I/O
error is one line; a spec path that cannot be read is a spec problem (``PATH: message``, then the
problem count, as for every spec error). Unreadable files are not among the cases: the tests run
as root, whom ``chmod 000`` does not stop.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import run_fleetgen

ADD_CLUSTER = ("add", "cluster", "extra", "--env", "dev", "--server", "https://x.example.com")
ADD_APP = ("add", "app", "extra", "--project", "apps", "--namespace", "extra")
ADD_ENV = ("add", "env", "qa")
ADD_PROJECT = ("add", "project", "extra", "--namespace", "extra")
PROMOTE = ("promote", "hello", "--from", "dev", "--to", "dev")
BAD_YAML_CRD = b"kind: CustomResourceDefinition\nspec: [unclosed\n"


def _write(path: str, data: bytes) -> Callable[[Path], None]:
    def setup(repo: Path) -> None:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)

    return setup


def _dangling_link(repo: Path) -> None:
    (repo / "link.py").symlink_to(repo / "gone.py")


@dataclass(frozen=True)
class Case:
    """Arguments, what the first line must name, and whether it is a spec error."""

    args: tuple[str, ...]
    names: str
    spec: bool = False  # a spec error: its problems, then the count; else one line
    setup: Callable[[Path], None] | None = None


CORRUPT_MANIFEST = _write("output/.fleetgen/manifest.json", b"{not json")
OVERLAYS = _write("svc/overlays/dev/kustomization.yaml", b"resources: []\n")
IMPORT_OVERLAYS = ("import", "svc", "--engine", "argocd")
CASES = {
    "build-missing-spec": Case(("build", "--spec", "missing.py"), "missing.py", spec=True),
    "build-dangling-spec": Case(
        ("build", "--spec", "link.py"), "link.py", spec=True, setup=_dangling_link
    ),
    "build-dir-as-spec": Case(("build", "--spec", "apps"), "apps", spec=True),
    "build-file-as-out": Case(("build", "--out", "fleet.py"), "fleet.py"),
    "build-out-under-file": Case(("build", "--out", "README.md/output"), "README.md"),
    "build-corrupt-manifest": Case(("build",), "manifest.json", setup=CORRUPT_MANIFEST),
    "build-malformed-base": Case(
        ("build",),
        "apps/hello/base/kustomization.yaml",
        spec=True,
        setup=_write("apps/hello/base/kustomization.yaml", b"a: [b\n"),
    ),
    "check-dir-as-spec": Case(("build", "--check", "--spec", "apps"), "apps", spec=True),
    "check-file-as-out": Case(("build", "--check", "--out", "fleet.py"), "fleet.py"),
    "check-corrupt-manifest": Case(("build", "--check"), "manifest.json", setup=CORRUPT_MANIFEST),
    "validate-missing-crds": Case(("validate", "--crds", "nowhere"), "nowhere"),
    "validate-malformed-crd-given": Case(
        ("validate", "--crds", "extra/crd.yaml"),
        "extra/crd.yaml",
        setup=_write("extra/crd.yaml", BAD_YAML_CRD),
    ),
    "validate-malformed-crd-in-repo": Case(
        ("validate",), "crds/crd.yaml", setup=_write("crds/crd.yaml", BAD_YAML_CRD)
    ),
    "validate-crd-without-spec": Case(
        ("validate",),
        "crds/crd.yaml",
        setup=_write("crds/crd.yaml", b"kind: CustomResourceDefinition\n"),
    ),
    "validate-dir-as-spec": Case(("validate", "--spec", "apps"), "apps", spec=True),
    "validate-render-missing-crds": Case(("validate", "--render", "--crds", "nowhere"), "nowhere"),
    "validate-render-missing-spec": Case(
        ("validate", "--render", "--spec", "missing.py"), "missing.py", spec=True
    ),
    "diff-bad-base": Case(("diff", "--base", "no-such-ref"), "no-such-ref"),
    "diff-bad-head": Case(("diff", "--head", "no-such-ref"), "no-such-ref"),
    "diff-dir-as-json-file": Case(("diff", "--json-file", "apps"), "apps"),
    "diff-json-file-under-file": Case(("diff", "--json-file", "fleet.py/report.json"), "fleet.py"),
    "diff-spec-outside-repo": Case(
        ("diff", "--spec", "/nonexistent-dir/fleet.py"), "/nonexistent-dir"
    ),
    "explain-dir-as-spec": Case(("explain", "--spec", "apps"), "apps", spec=True),
    "explain-unknown-name": Case(("explain", "no-such-app"), "no-such-app"),
    "add-cluster-missing-spec": Case(
        (*ADD_CLUSTER, "--spec", "missing.py"), "missing.py", spec=True
    ),
    "add-cluster-file-as-out": Case((*ADD_CLUSTER, "--out", "fleet.py"), "fleet.py"),
    "add-cluster-bad-label": Case((*ADD_CLUSTER, "--label", "no-equals"), "no-equals"),
    "add-app-dir-as-spec": Case((*ADD_APP, "--spec", "apps"), "apps", spec=True),
    "add-app-file-as-out": Case((*ADD_APP, "--out", "README.md"), "README.md"),
    "add-app-bad-image": Case((*ADD_APP, "--image", "registry/x"), "registry/x"),
    "add-app-taken-name": Case(
        ("add", "app", "hello", "--project", "apps", "--namespace", "hello"), "app 'hello' exists"
    ),
    "add-app-namespace-not-allowed": Case(ADD_APP, "does not allow namespace 'extra'"),
    "add-app-path-outside": Case((*ADD_APP, "--path", "../x"), "../x"),
    "add-env-missing-spec": Case((*ADD_ENV, "--spec", "missing.py"), "missing.py", spec=True),
    "add-env-file-as-out": Case((*ADD_ENV, "--out", "fleet.py"), "fleet.py"),
    "add-env-unknown-after": Case((*ADD_ENV, "--after", "nope"), "nope"),
    "add-project-dir-as-spec": Case((*ADD_PROJECT, "--spec", "apps"), "apps", spec=True),
    "add-project-taken-name": Case(
        ("add", "project", "apps", "--namespace", "x"), "project 'apps' exists"
    ),
    "promote-dir-as-spec": Case((*PROMOTE, "--spec", "apps"), "apps", spec=True),
    "promote-file-as-out": Case((*PROMOTE, "--out", "fleet.py"), "fleet.py"),
    "promote-unknown-env": Case(("promote", "hello", "--from", "dev", "--to", "qa"), "'qa'"),
    "promote-branch-with-dry-run": Case((*PROMOTE, "--branch", "b", "--dry-run"), "--dry-run"),
    "versions-dir-as-spec": Case(("versions", "--spec", "apps"), "apps", spec=True),
    "versions-unknown-env": Case(("versions", "--check-order", "dev,qa"), "qa"),
    "init-file-as-dir": Case(("init", "fleet.py"), "fleet.py"),
    "init-under-file": Case(("init", "fleet.py/sub"), "fleet.py"),
    "init-existing-repo": Case(("init", "."), "fleet.py"),
    "import-file-as-dir": Case(("import", "fleet.py"), "fleet.py"),
    "import-missing-dir": Case(("import", "nowhere"), "nowhere"),
    "import-existing-fleet": Case(("import", "."), "fleet.py"),
    "import-nothing-importable": Case(("import", "apps"), "nothing importable in apps"),
    "import-unknown-engine": Case(("import", "apps", "--engine", "nope"), "--engine 'nope'"),
    "import-env-without-engine": Case(("import", "apps", "--env", "dev=dev"), "--engine"),
    "import-env-not-an-assignment": Case(
        (*IMPORT_OVERLAYS, "--env", "dev"), "--env 'dev'", setup=OVERLAYS
    ),
    "import-env-unknown-folder": Case(
        (*IMPORT_OVERLAYS, "--env", "dev=nowhere"), "'nowhere'", setup=OVERLAYS
    ),
    "import-cluster-bad-name": Case(
        (*IMPORT_OVERLAYS, "--cluster", "Prod_EU=dev"), "'Prod_EU'", setup=OVERLAYS
    ),
    "import-folder-given-twice": Case(
        (*IMPORT_OVERLAYS, "--env", "dev=dev", "--cluster", "a=dev"), "'dev'", setup=OVERLAYS
    ),
}
COMMANDS = (
    "build",
    "build --check",
    "validate",
    "validate --render",
    "diff",
    "explain",
    "add cluster",
    "add app",
    "add env",
    "add project",
    "promote",
    "versions",
    "init",
    "import",
)


@pytest.fixture(scope="session")
def fresh_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``fleetgen init``, committed and built."""
    repo = tmp_path_factory.mktemp("hostile") / "repo"
    created = run_fleetgen(repo.parent, "init", "repo")
    assert created.returncode == 0, created.stderr
    assert run_fleetgen(repo, "build").returncode == 0
    for command in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "i"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True)
    return repo


@pytest.mark.parametrize("name", CASES)
def test_hostile_arguments_get_one_message_and_exit_2(
    name: str, fresh_repo: Path, tmp_path: Path
) -> None:
    case = CASES[name]
    repo = tmp_path / "repo"
    shutil.copytree(fresh_repo, repo, symlinks=True)
    if case.setup is not None:
        case.setup(repo)
    result = run_fleetgen(repo, *case.args)
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    if case.spec:
        assert lines[-1] == f"{len(lines) - 1} problem(s); nothing was written", result.stderr
    else:
        assert len(lines) == 1, result.stderr
    assert case.names in lines[0]


def _command(args: tuple[str, ...]) -> str:
    words = args[:2] if args[0] == "add" else args[:1]
    return " ".join([*words, *(flag for flag in ("--check", "--render") if flag in args)])


def test_every_command_is_covered() -> None:
    assert {_command(case.args) for case in CASES.values()} == set(COMMANDS)
