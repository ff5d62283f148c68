"""Start-up stays light (issue 22 item 3): what ``import fleetgen`` and the command line's
``--version``, ``--help`` and shell completion load (each in a fresh interpreter), and the public
names of the package, three of which are a submodule and a function at once. No timing is
asserted (benchmarks/startup.py prints it)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fleetgen
from fleetgen import api, explain, model, scaffold
from fleetgen import cli as cli_module
from fleetgen.diff import compare, formats

# Libraries and fleetgen modules that only the commands using them may load.
HEAVY = (
    "libcst",
    "git",
    "jinja2",
    "jsonschema_rs",
    "kubernetes_validate",
    "yaml",
    "fleetgen.api",
    "fleetgen.scaffold",
    "fleetgen.diff",
    "fleetgen.validate",
    "fleetgen.emit",
    "fleetgen.resolve",
    "fleetgen.load",
    "fleetgen.explain",
    "fleetgen.adopt",
)


def _loaded(code: str, **env: str) -> set[str]:
    """The modules a fresh interpreter holds when ``code`` is done (or exits)."""
    dump = textwrap.dedent(
        """
        import atexit, json, sys
        atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", dump + textwrap.dedent(code)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    return set(json.loads(done.stderr.splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(
        name for name in modules if any(name == h or name.startswith(f"{h}.") for h in HEAVY)
    )


def test_import_fleetgen_loads_neither_pydantic_nor_any_command() -> None:
    modules = _loaded("import fleetgen")
    assert _heavy(modules) == []
    assert not {"pydantic", "fleetgen.model", "typer", "rich"} & modules


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_load_no_pipeline_and_no_pydantic(flag: str) -> None:
    modules = _loaded(
        f"import sys; sys.argv = ['fleetgen', {flag!r}]; import fleetgen.cli as c; c.main()"
    )
    assert _heavy(modules) == []
    assert not {"pydantic", "fleetgen.model", "rich"} & modules


def test_shell_completion_loads_no_pipeline() -> None:
    """(typer itself loads pydantic to coerce the parameters it completes.)"""
    modules = _loaded(
        "import sys; sys.argv = ['fleetgen']; import fleetgen.cli as c; c.main()",
        _FLEETGEN_COMPLETE="complete_bash",
        COMP_WORDS="fleetgen bu",
        COMP_CWORD="1",
    )
    assert "fleetgen.cli" in modules
    assert _heavy(modules) == []


def test_completing_a_name_of_fleet_py_loads_no_pipeline(tmp_path: Path) -> None:
    """Names come from fleet.py's syntax tree: neither the spec classes nor the loader."""
    (tmp_path / "fleet.py").write_text('from fleetgen import App\nApp(name="web")\n')
    modules = _loaded(
        f"import os, sys; os.chdir({str(tmp_path)!r}); sys.argv = ['fleetgen']\n"
        "import fleetgen.cli as c; c.main()",
        _FLEETGEN_COMPLETE="complete_bash",
        COMP_WORDS="fleetgen explain w",
        COMP_CWORD="2",
    )
    assert "fleetgen.names" in modules
    assert _heavy(modules) == []
    assert "fleetgen.model" not in modules


def test_spec_and_result_classes_are_the_defining_modules_own() -> None:
    for name in fleetgen.__all__:
        assert name in dir(fleetgen)
        assert getattr(fleetgen, name) is not None
    assert fleetgen.App is model.App and fleetgen.Fleet is model.Fleet
    assert fleetgen.BuildResult is api.BuildResult and fleetgen.CheckResult is api.CheckResult
    assert fleetgen.Explanation is explain.Explanation
    assert fleetgen.AppRequest is scaffold.AppRequest
    assert fleetgen.ClusterRequest is scaffold.ClusterRequest
    with pytest.raises(AttributeError, match="no attribute 'Aplp'"):
        fleetgen.Aplp  # type: ignore[attr-defined]  # noqa: B018


def test_lazy_class_names_are_no_submodule_names() -> None:
    """A submodule import would rebind a lazy attribute of the same name (PEP 562)."""
    lazy = set(fleetgen._LAZY)
    assert lazy <= set(fleetgen.__all__)
    submodules = {
        entry.name.removesuffix(".py")
        for folder in fleetgen.__path__
        for entry in os.scandir(folder)
    }
    assert "load" in submodules
    assert not lazy & submodules


def test_submodule_imports_leave_the_public_functions_bound() -> None:
    """``fleetgen.diff``, ``.load`` and ``.resolve`` are submodules too; importing them, after
    the package and in any order, leaves the package's attributes the functions."""
    code = """
        import sys, types
        import fleetgen
        import fleetgen.load, fleetgen.resolve, fleetgen.diff.compare, fleetgen.api
        from fleetgen.load import Loaded
        for name in ("diff", "load", "resolve"):
            assert isinstance(getattr(fleetgen, name), types.FunctionType), name
            assert isinstance(sys.modules[f"fleetgen.{name}"], types.ModuleType), name
        from fleetgen import load
        assert load is fleetgen.load and load.__module__ == "fleetgen"
        print("ok")
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


@pytest.mark.parametrize(
    ("name", "implementation"),
    [
        ("build", api.build),
        ("check", api.check),
        ("compile_spec", api.compile_spec),
        ("diff", compare.diff),
        ("load", sys.modules["fleetgen.load"].load),
        ("resolve", sys.modules["fleetgen.resolve"].resolve),
        ("init", scaffold.init),
        ("add_app", scaffold.add_app),
        ("add_cluster", scaffold.add_cluster),
    ],
)
def test_public_functions_have_their_implementations_signatures(
    name: str, implementation: object
) -> None:
    wrapper = getattr(fleetgen, name)
    assert inspect.signature(wrapper) == inspect.signature(implementation)  # type: ignore[arg-type]
    assert wrapper.__doc__


def test_diff_max_chars_default_is_the_formats_default() -> None:
    assert cli_module.DIFF_MAX_CHARS == formats.DEFAULT_MAX_CHARS


ROOT = Path(__file__).resolve().parent.parent


def _example_copy(tmp_path: Path) -> Path:
    import shutil

    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "fleet.py", repo / "fleet.py")
    for folder in ("apps", "charts", "output"):
        shutil.copytree(ROOT / folder, repo / folder, ignore=shutil.ignore_patterns("cache"))
    return repo


def _quick(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``fleetgen ARGS`` in ``repo`` through the console script's entry point, in a fresh
    interpreter that reports whether typer was imported."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.argv = ["fleetgen", *{list(args)!r}]
        from fleetgen.quick import main
        try:
            main()
        finally:
            print("typer loaded" if "typer" in sys.modules else "no typer", file=sys.stderr)
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("args", [("build",), ("build", "--check")], ids=" ".join)
def test_an_up_to_date_build_is_answered_before_the_command_line_loads(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """`fleetgen.quick`: the same output and exit code as the command line, without typer."""
    from tests.helpers import run_fleetgen

    repo = _example_copy(tmp_path)
    full = run_fleetgen(repo, *args)  # the command line (and it records the tree's proof)
    quick = _quick(repo, *args)
    assert (quick.returncode, quick.stdout) == (full.returncode, full.stdout) == (0, full.stdout)
    assert quick.stderr == full.stderr + "no typer\n"


def test_a_build_that_must_compile_goes_to_the_command_line(tmp_path: Path) -> None:
    repo = _example_copy(tmp_path)
    spec = repo / "fleet.py"
    spec.write_text(spec.read_text().replace('name="acme"', 'name="acme2"'))
    checked = _quick(repo, "build", "--check")
    assert checked.returncode == 1 and checked.stderr.endswith("typer loaded\n")
    assert "differ from a fresh build" in checked.stderr
    spec.write_text(spec.read_text() + "\nbroken(\n")
    broken = _quick(repo, "build")
    assert broken.returncode == 2 and "fleet.py:" in broken.stderr


@pytest.mark.parametrize("args", [("build",), ("--version",)], ids=" ".join)
def test_the_collector_stays_paused_while_a_command_starts_and_retires_at_exit(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """`fleetgen.quick.main`: no collection while pydantic and the spec classes load and an
    up-to-date build is answered, and at exit, whatever the command, what the process holds is
    in the permanent generation, which the interpreter's last collection skips
    (`collector.retire`)."""
    repo = _example_copy(tmp_path)
    subprocess.run([sys.executable, "-m", "fleetgen", "build"], cwd=repo, check=True)
    code = textwrap.dedent(
        f"""
        import atexit, gc, sys
        sys.argv = ["fleetgen", *{list(args)!r}]
        from fleetgen.quick import main
        started = []
        gc.callbacks.append(lambda phase, info: phase == "start" and started.append(info))
        def report():
            print(len(started), gc.get_freeze_count(), len(gc.get_objects()), file=sys.stderr)
        atexit.register(report)
        main()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True
    )
    collections, frozen, left = map(int, done.stderr.split())
    if args == ("build",):  # answered on the quick path: nothing ran unpaused
        assert collections == 0
    assert frozen > 20_000 and left < frozen / 100
