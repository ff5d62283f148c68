"""The installed package is typed (PEP 561 ``py.typed``): mypy checks a user's fleet.py with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fleetgen built as a wheel from a clean copy of its sources (a stale build/ folder cannot
    supply a file) and installed into a folder of its own (no dependencies)."""
    sources = tmp_path_factory.mktemp("sources") / "fleetgen"
    shutil.copytree(
        ROOT,
        sources,
        ignore=shutil.ignore_patterns(
            ".*", "build", "dist", "*.egg-info", "__pycache__", "output", "tests", "apps"
        ),
    )
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(sources),
        ],
        check=True,
        capture_output=True,
    )
    return target


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's mypy cache: the typeshed, pydantic and fleetgen modules are checked once per
    set of options, then only each test's fleet.py is (mypy checks a cached module's source hash,
    so the wheel's copy of fleetgen and the editable install's are one)."""
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(
    installed: Path, cache: Path, folder: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    """mypy on ``folder/fleet.py`` there, where only the installed fleetgen can be found. Each set
    of options has a cache folder of its own (another plugin makes every cached module stale)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--cache-dir",
            str(cache / "_".join(option.lstrip("-") for option in options)),
            *options,
            "fleet.py",
        ],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        check=False,
    )


def user_repo(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "fleet.py").write_text(source)
    return folder


def test_the_wheel_ships_the_py_typed_marker(installed: Path) -> None:
    assert (installed / "fleetgen" / "py.typed").is_file()


def test_the_wheel_ships_the_package_data(installed: Path) -> None:
    """What the package reads at run time besides its code: the secret rules, the CRD schemas,
    the templates."""
    package = installed / "fleetgen"
    assert (package / "rules" / "secrets.toml").is_file()
    assert list((package / "schemas").rglob("*.json"))
    assert list((package / "templates").rglob("*.j2"))


@pytest.mark.parametrize(
    "options",
    [("--strict",), ("--strict", "--config-file", "plugin.ini")],
    ids=["plain", "pydantic-plugin"],
)
def test_the_example_fleet_type_checks(
    installed: Path, mypy_cache: Path, tmp_path: Path, options: tuple[str, ...]
) -> None:
    # CaFile takes its path positionally or as path= (its own __init__): both check.
    ca_files = (
        "\nfrom fleetgen import CaFile\n_ca = [CaFile('certs/a.pem'), CaFile(path='b.pem')]\n"
    )
    folder = user_repo(tmp_path, (ROOT / "fleet.py").read_text() + ca_files)
    (folder / "plugin.ini").write_text(
        "[mypy]\nplugins = pydantic.mypy\n[pydantic-mypy]\ninit_typed = True\n"
    )
    result = mypy(installed, mypy_cache, folder, *options)
    assert result.returncode == 0, result.stdout


def test_the_fleet_py_of_init_type_checks(
    installed: Path, mypy_cache: Path, tmp_path: Path
) -> None:
    assert run_fleetgen(tmp_path, "init", "user").returncode == 0
    result = mypy(installed, mypy_cache, tmp_path / "user", "--strict")
    assert result.returncode == 0, result.stdout


def test_mypy_finds_a_wrong_field_type_in_fleet_py(
    installed: Path, mypy_cache: Path, tmp_path: Path
) -> None:
    folder = user_repo(
        tmp_path,
        "from fleetgen import Cluster\n\n"
        "c = Cluster(name='a', env='dev', server='https://a', labels=3)\n",
    )
    result = mypy(installed, mypy_cache, folder, "--strict")
    assert result.returncode == 1
    assert 'fleet.py:3: error: Argument "labels" to "Cluster" has incompatible type "int"' in (
        result.stdout
    )


def test_mypy_finds_the_editable_install_outside_the_repository(
    mypy_cache: Path, tmp_path: Path
) -> None:
    """`mypy fleet.py` with the package this interpreter has installed, as scripts/build-example
    and scripts/test install it (editable, strict mode): setuptools' default editable mode finds
    the package through an import hook that mypy cannot see. mypy finds every module afresh on
    each run; the cache of the --strict runs above only spares checking them again."""
    folder = user_repo(
        tmp_path,
        (ROOT / "fleet.py").read_text()
        + "\nfleetgen_wrong = Cluster(name='a', env='dev', server='https://a', labels=3)\n",
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    cache = ["--cache-dir", str(mypy_cache / "strict")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *cache, "--strict", "fleet.py"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Cannot find implementation or library stub" not in result.stdout
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'Argument "labels" to "Cluster"' in errors[0], result.stdout
