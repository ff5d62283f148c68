"""``add`` writes code as the file around it is written (issue #39, point 6): what it inserts is
laid out as ruff's formatter lays it out at the line length configured for fleet.py (ruff's or
black's ``line-length`` in pyproject.toml, else 88), every other byte kept; checked with the real
``ruff format --check`` (a test dependency, never a runtime one)."""

from __future__ import annotations

import difflib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fleetgen.util.linelength import DEFAULT_WIDTH, line_length
from fleetgen.util.templating import Call, Code, formatted
from tests.helpers import run_fleetgen

RUFF = str(Path(sys.executable).parent / "ruff")
ADDS = {
    "env": ("add", "env", "production-eu-west", "--sync", "manual"),
    "env after": ("add", "env", "staging", "--after", "dev"),
    "cluster with labels and credentials": (
        *("add", "cluster", "dev-eu-west-2", "--env", "dev"),
        *("--server", "https://dev-eu-west-2.k8s.acme.example:6443"),
        *("--label", "region=eu-west-2", "--label", "tier=gold"),
        *("--credentials", "aws:arn:aws:iam::111122223333:role/argocd:eks-dev-eu-west-2"),
    ),
    "cluster with a secret store": (
        *("add", "cluster", "dev-2", "--env", "dev", "--server", "https://dev-2.example.com"),
        *("--credentials", "external-secret:vault-backend:clusters/dev-2"),
    ),
    "app with a path": (
        *("add", "app", "storefront", "--project", "apps", "--namespace", "hello"),
        *("--envs", "dev", "--image", "registry.acme.example/shop/storefront:1.4.2"),
    ),
    "app with a chart": (
        *("add", "app", "ingress", "--project", "apps", "--namespace", "hello"),
        *("--chart", "oci://registry.acme.example/charts/ingress-nginx@4.11.3"),
    ),
    "project": (
        *("add", "project", "web", "--namespace", "web", "--namespace", "web-*"),
        *("--description", "The web team's storefront and its edge services"),
    ),
}


def ruff(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ruff format ARGS fleet.py`` in ``folder`` (its pyproject.toml configures it)."""
    return subprocess.run(
        [RUFF, "format", "--no-cache", *args, "fleet.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module", params=[88, 100], ids=["88", "100"])
def formatted_fleet(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A fleet ``init`` wrote (on Flux: a chart app needs no source_repos), with a pyproject.toml
    setting ruff's line length, and fleet.py formatted by ruff."""
    folder = tmp_path_factory.mktemp(f"ruff{request.param}") / "fleet"
    created = run_fleetgen(
        folder.parent, "init", "fleet", "--engine", "flux", "--repo", "https://github.com/a/b.git"
    )
    assert created.returncode == 0, created.stderr
    (folder / "pyproject.toml").write_text(f"[tool.ruff]\nline-length = {request.param}\n")
    assert ruff(folder).returncode == 0
    return folder


@pytest.mark.parametrize("args", ADDS.values(), ids=ADDS.keys())
def test_add_inserts_code_ruff_leaves_as_it_is(
    formatted_fleet: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    repo = tmp_path / "fleet"
    shutil.copytree(formatted_fleet, repo)
    before = (repo / "fleet.py").read_text()
    added = run_fleetgen(repo, *args)
    assert added.returncode == 0, added.stderr
    after = (repo / "fleet.py").read_text()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    assert {tag for tag, *_ in matcher.get_opcodes()} == {"equal", "insert"}  # nothing else moved
    checked = ruff(repo, "--check", "--diff")
    assert checked.returncode == 0, checked.stdout + checked.stderr


EDITS = {  # commands run in turn; the last edits elements already in fleet.py
    "engine": (
        ("add", "env", "staging", "--sync", "auto"),
        ("add", "engine", "argocd", "--envs", "staging"),  # dev's engine= written too
    ),
    "app extending its project": (
        (
            *("add", "app", "shop-frontend-service", "--project", "apps"),
            *("--namespace", "shop-frontend-service-namespace", "--extend-project"),
        ),
    ),
}


@pytest.mark.parametrize("commands", EDITS.values(), ids=EDITS.keys())
def test_an_edited_element_is_laid_out_again_where_ruff_laid_it_out(
    formatted_fleet: Path, tmp_path: Path, commands: tuple[tuple[str, ...], ...]
) -> None:
    """``add engine`` sets ``engine=`` on an Environment, ``--extend-project`` appends to a
    Project's ``namespaces=``: the element they edit is laid out again (`scaffold.relayout`),
    so ruff leaves the file as it is."""
    repo = tmp_path / "fleet"
    shutil.copytree(formatted_fleet, repo)
    before = (repo / "fleet.py").read_text()
    for args in commands:
        edited = run_fleetgen(repo, *args)
        assert edited.returncode == 0, edited.stderr
    assert (repo / "fleet.py").read_text() != before
    checked = ruff(repo, "--check", "--diff")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_list_on_one_line_that_no_longer_fits_is_broken_as_ruff_breaks_it(
    formatted_fleet: Path, tmp_path: Path
) -> None:
    """ruff keeps a short list on one line; ``add env`` appending to it breaks the list one
    element a line when it no longer fits, as ruff would."""
    repo = tmp_path / "fleet"
    shutil.copytree(formatted_fleet, repo)
    spec = repo / "fleet.py"
    text = spec.read_text()
    start = text.index("    environments=[")
    end = text.index("    ],\n", start) + len("    ],\n")
    one_line = '    environments=[Environment(name="dev", sync=SyncPolicy(automated=True))],\n'
    spec.write_text(text[:start] + one_line + text[end:])
    assert ruff(repo, "--check").returncode == 0
    added = run_fleetgen(repo, "add", "env", "staging", "--sync", "auto")
    assert added.returncode == 0, added.stderr
    assert '        Environment(name="dev", sync=SyncPolicy(automated=True)),\n' in spec.read_text()
    checked = ruff(repo, "--check", "--diff")
    assert checked.returncode == 0, checked.stdout + checked.stderr


# Values at several widths, checked in one run of ruff: flat, arguments on a line of their own,
# one a line, a single item broken inside its brackets, a string too long for any line.
VALUES = [
    Call("Environment", {"name": "dev", "sync": Call("SyncPolicy", {"automated": True})}),
    Call(
        "App",
        {
            "name": "web",
            "chart": Call("HelmChart", {"repo": "https://charts.example.com", "name": "web"}),
            "targets": Call("Selector", {"envs": ["dev", "staging", "prod"]}),
            "per_env": {"prod": Call("Overrides", {"replicas": 3, "values": {"a": {"b": 1}}})},
        },
    ),
    Call("Cluster", {"labels": {"k" * 30: "v" * 30}, "server": "https://" + "x" * 90}),
    Call("Project", {"namespaces": ["team-" + "n" * 20] * 4, "source_repos": [Code("REPO")]}),
    Call("CaFile", args=("certs/" + "c" * 70 + ".pem",)),
]


@pytest.mark.parametrize("width", [40, 60, 88, 100])
def test_formatted_is_what_ruff_writes(tmp_path: Path, width: int) -> None:
    """Each value as the element of an exploded list: ruff changes none."""
    text = "".join(f"x = [\n    {formatted(value, width, 4, tail=1)},\n]\n" for value in VALUES)
    (tmp_path / "fleet.py").write_text(text)
    checked = ruff(tmp_path, "--check", "--diff", f"--line-length={width}")
    assert checked.returncode == 0, checked.stdout


@pytest.mark.parametrize(
    ("files", "width"),
    [
        ({}, DEFAULT_WIDTH),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, 100),
        ({"pyproject.toml": "[tool.black]\nline-length = 79\n"}, 79),
        ({"pyproject.toml": "[tool.ruff]\n[tool.black]\nline-length = 79\n"}, DEFAULT_WIDTH),
        ({"pyproject.toml": "[project]\nname = 'x'\n", "../ruff.toml": "line-length = 120\n"}, 120),
        ({"../.git/HEAD": "", "../pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 120),
        ({".git/HEAD": "", "../pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 88),
        ({"pyproject.toml": "not toml ["}, DEFAULT_WIDTH),
    ],
    ids=["none", "ruff", "black", "ruff first", "upward", "repo top", "not above it", "broken"],
)
def test_the_line_length_is_ruffs_else_blacks(
    tmp_path: Path, files: dict[str, str], width: int
) -> None:
    """The nearest configuration of ruff (else black) in fleet.py's folder or above, up to the
    repository's top, as ruff finds its own."""
    folder = tmp_path / "repo" / "fleet"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    assert line_length(folder) == width
