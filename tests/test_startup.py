"""Start-up stays light (issue 22 item 3): what ``import fleetgen`` and the command line's
``--version``, ``--help`` and shell completion load (each in a fresh interpreter), and the public
names of the package, three of which are a submodule and a function at once. No timing is
asserted (benchmarks/startup.py prints it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fleetgen
from fleetgen import model, scaffold
from fleetgen.cli import app as cli_module
from fleetgen.diffs import compare, formats
from fleetgen.explain import explanation as explain
from fleetgen.pipeline import api

# Libraries and fleetgen modules that only the commands using them may load.
HEAVY = (
    "libcst",
    "git",
    "jinja2",
    "jsonschema_rs",
    "kubernetes_validate",
    "yaml",
    "fleetgen.pipeline.api",
    "fleetgen.scaffold",
    "fleetgen.diffs",
    "fleetgen.validate",
    "fleetgen.emit",
    "fleetgen.resolver",
    "fleetgen.inputs.load",
    "fleetgen.explain.explanation",
    "fleetgen.importer",
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
        f"import sys; sys.argv = ['fleetgen', {flag!r}]; import fleetgen.cli.app as c; c.main()"
    )
    assert _heavy(modules) == []
    assert not {"pydantic", "fleetgen.model", "rich"} & modules


def test_shell_completion_loads_no_pipeline() -> None:
    """(typer itself loads pydantic to coerce the parameters it completes.)"""
    modules = _loaded(
        "import sys; sys.argv = ['fleetgen']; import fleetgen.cli.app as c; c.main()",
        _FLEETGEN_COMPLETE="complete_bash",
        COMP_WORDS="fleetgen bu",
        COMP_CWORD="1",
    )
    assert "fleetgen.cli.app" in modules
    assert _heavy(modules) == []


def test_completing_a_name_of_fleet_py_loads_no_pipeline(tmp_path: Path) -> None:
    """Names come from fleet.py's syntax tree: neither the spec classes nor the loader."""
    (tmp_path / "fleet.py").write_text('from fleetgen import App\nApp(name="web")\n')
    modules = _loaded(
        f"import os, sys; os.chdir({str(tmp_path)!r}); sys.argv = ['fleetgen']\n"
        "import fleetgen.cli.app as c; c.main()",
        _FLEETGEN_COMPLETE="complete_bash",
        COMP_WORDS="fleetgen explain w",
        COMP_CWORD="2",
    )
    assert "fleetgen.cli.names" in modules
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


def test_public_names_are_no_submodule_names() -> None:
    """A submodule import would rebind a lazy attribute of the same name (PEP 562), so no
    submodule or subpackage of fleetgen has a public name (DESIGN §2c: the collision is renamed,
    not worked around)."""
    lazy = set(fleetgen._LAZY)
    assert lazy <= set(fleetgen.__all__)
    submodules = {
        entry.name.removesuffix(".py")
        for folder in fleetgen.__path__
        for entry in os.scandir(folder)
    }
    assert {"inputs", "resolver", "diffs"} <= submodules
    assert not lazy & submodules


def test_the_public_functions_are_their_implementations() -> None:
    """Re-exported, not wrapped: each public function is the defining module's own, whatever
    was imported before it."""
    code = """
        import fleetgen
        import fleetgen.inputs.load, fleetgen.resolver, fleetgen.diffs.compare
        import fleetgen.pipeline.api, fleetgen.scaffold
        from fleetgen import diff, load, resolve
        assert load is fleetgen.inputs.load.load, load
        assert resolve is fleetgen.resolver.run.resolve, resolve
        assert diff is fleetgen.diffs.compare.diff, diff
        assert fleetgen.build is fleetgen.pipeline.api.build
        assert fleetgen.init is fleetgen.scaffold.init
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
        ("load", sys.modules["fleetgen.inputs.load"].load),
        ("resolve", sys.modules["fleetgen.resolver"].resolve),
        ("init", scaffold.init),
        ("add_app", scaffold.add_app),
        ("add_cluster", scaffold.add_cluster),
    ],
)
def test_public_functions_are_documented_implementations(name: str, implementation: object) -> None:
    function = getattr(fleetgen, name)
    assert function is implementation
    assert function.__doc__


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
        from fleetgen.cli.quick import main
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
    """`fleetgen.cli.quick`: the same output and exit code as the command line, without typer."""
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
    """`fleetgen.cli.quick.main`: no collection while pydantic and the spec classes load and an
    up-to-date build is answered, and at exit, whatever the command, what the process holds is
    in the permanent generation, which the interpreter's last collection skips
    (`fleetgen.cli.collector.command`)."""
    repo = _example_copy(tmp_path)
    subprocess.run([sys.executable, "-m", "fleetgen", "build"], cwd=repo, check=True)
    code = textwrap.dedent(
        f"""
        import atexit, gc, sys
        sys.argv = ["fleetgen", *{list(args)!r}]
        from fleetgen.cli.quick import main
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
