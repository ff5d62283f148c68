"""The bad-input catalogue: every case is a broken fleet.py that the real CLI must refuse.

Each folder under ``tests/bad_inputs/`` (except ``_repo``) is one case: ``fleet.py`` and
``expected.txt``, the exact stderr of ``fleetgen build`` (one ``fleet.py:LINE: message`` per
problem, then the summary line); a ``# <- name`` comment in fleet.py marks each line that
expected.txt names. An ``xfail.txt`` marks a known fleetgen bug; its content is the reason.
A ``never-printed.txt`` lists, one a line, fragments of the secret values in that fleet.py
that must appear nowhere in stdout or stderr (fragments, so this file trips no secret scanner).
Adding a case is adding a folder.

Every case runs in a copy of ``_repo`` whose ``output/`` was first filled by a real build of the
valid ``_repo/fleet.py`` (plus a file fleetgen does not own). A refused spec must exit 2, print
exactly the expected problems and no traceback, and leave every byte on disk as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import Ran, run_fleetgen

CATALOGUE = Path(__file__).parent / "bad_inputs"
REPO = CATALOGUE / "_repo"
NOT_OWNED = "output/keep.txt"  # a hand-written file the writer must never touch
CHECK_CASES = ("app-unknown-project", "syntax-missing-comma")
IGNORED = ("__pycache__",)


def _case_dirs() -> list[Path]:
    return sorted(
        folder
        for folder in CATALOGUE.iterdir()
        if folder.is_dir() and not folder.name.startswith(("_", "."))
    )


def _cases() -> list[object]:
    params: list[object] = []
    for folder in _case_dirs():
        xfail = folder / "xfail.txt"
        marks = []
        if xfail.exists():
            marks.append(pytest.mark.xfail(strict=True, reason=xfail.read_text().strip()))
        params.append(pytest.param(folder, id=folder.name, marks=marks))
    return params


def _snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and directory (None) under ``root``, except the spec itself."""
    tree: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative == "repo/fleet.py" or any(part in IGNORED for part in path.parts):
            continue
        tree[relative] = None if path.is_dir() else path.read_bytes()
    return tree


@pytest.fixture(scope="session")
def built_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``_repo`` after a real, successful build of its valid fleet.py."""
    repo = tmp_path_factory.mktemp("bad_inputs") / "repo"
    shutil.copytree(REPO, repo, ignore=shutil.ignore_patterns(*IGNORED))
    result = run_fleetgen(repo, "build")
    assert result.returncode == 0, f"the valid fleet does not build:\n{result.stderr}"
    assert (repo / "output" / ".fleetgen" / "manifest.json").is_file()
    (repo / NOT_OWNED).write_text("written by hand; fleetgen does not own this file\n")
    return repo


def _prepare(built_repo: Path, case: Path, tmp_path: Path) -> tuple[Path, dict[str, bytes | None]]:
    work = tmp_path / "work"
    repo = work / "repo"
    shutil.copytree(built_repo, repo)
    shutil.copyfile(case / "fleet.py", repo / "fleet.py")
    return repo, _snapshot(work)


def _assert_refused(result: Ran, case: Path) -> None:
    expected = (case / "expected.txt").read_text().splitlines()
    assert "Traceback (most recent call last)" not in result.stderr + result.stdout
    assert result.stderr.splitlines() == expected
    assert result.returncode == 2, result.stdout + result.stderr
    never = case / "never-printed.txt"
    for fragment in never.read_text().splitlines() if never.exists() else []:
        assert fragment not in result.stdout + result.stderr, f"a secret was printed: {fragment}"


@pytest.mark.parametrize("case", _cases())
def test_bad_input_is_refused(case: Path, built_repo: Path, tmp_path: Path) -> None:
    repo, before = _prepare(built_repo, case, tmp_path)
    result = run_fleetgen(repo, "build")
    _assert_refused(result, case)
    assert result.stdout == ""
    assert _snapshot(tmp_path / "work") == before, "a refused build changed files on disk"


@pytest.mark.parametrize("name", CHECK_CASES)
def test_check_refuses_bad_input_too(name: str, built_repo: Path, tmp_path: Path) -> None:
    repo, before = _prepare(built_repo, CATALOGUE / name, tmp_path)
    _assert_refused(run_fleetgen(repo, "build", "--check"), CATALOGUE / name)
    assert _snapshot(tmp_path / "work") == before


def test_catalogue_is_well_formed() -> None:
    """Every case has a spec and expected lines that name problems and count them."""
    cases = _case_dirs()
    assert len(cases) >= 28
    for case in cases:
        assert (case / "fleet.py").is_file(), case.name
        lines = (case / "expected.txt").read_text().splitlines()
        problems, summary = lines[:-1], lines[-1]
        assert problems, case.name
        assert all(line.startswith("fleet.py:") for line in problems), case.name
        assert summary == f"{len(problems)} problem(s); nothing was written", case.name
        never = case / "never-printed.txt"
        if never.exists():
            fragments = never.read_text().splitlines()
            assert fragments and all(len(f) >= 5 for f in fragments), case.name
            source = (case / "fleet.py").read_text()
            assert all(f in source for f in fragments), case.name
