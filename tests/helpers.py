"""Small helpers shared by the tests: the CLI in-process (and in a real process for the few
smoke tests that need one), a directory as bytes, a golden case copied."""

from __future__ import annotations

import contextlib
import os
import pty
import shutil
import subprocess
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from typer.testing import CliRunner

import fleetgen

# Modules a fleet.py may import from its own folder are forgotten after each in-process run;
# the interpreter's, the installed libraries' and fleetgen's own are kept (imported once).
_KEPT = tuple(
    str(Path(root).resolve())
    for root in {sys.prefix, sys.base_prefix, sys.exec_prefix, Path(fleetgen.__file__).parent}
)


DEEP = os.environ.get("FLEETGEN_DEEP_TESTS") == "1"  # deeper property runs, opt-in (README)


def examples(ci: int, deep: int) -> int:
    """A property's Hypothesis example count: ``ci`` within the suite's budget, ``deep`` with
    FLEETGEN_DEEP_TESTS=1."""
    return deep if DEEP else ci


@dataclass(frozen=True)
class Ran:
    """What a run of the CLI left: the shape of `subprocess.CompletedProcess` the tests read."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    exception: BaseException | None = field(default=None, repr=False)


def run_fleetgen(cwd: Path, *args: str, **env: str | None) -> Ran:
    """``fleetgen ARGS`` in ``cwd``, as a user runs it next to fleet.py, but in this process
    (typer's CliRunner): stdout and stderr apart, the exit code, and ``env`` over the test's
    environment (``NO_COLOR=1`` unless given; None removes a variable); the current folder,
    environment and imported spec modules restored afterwards. An uncaught exception is
    appended to stderr as the interpreter prints it: "no traceback" assertions still hold.
    Use `run_fleetgen_process` where a real process matters (signals, exit of a child,
    interpreter options such as PYTHONHASHSEED, the installed ``fleetgen`` script)."""
    from fleetgen.cli.app import app

    modules, folder, bytecode = set(sys.modules), os.getcwd(), sys.dont_write_bytecode
    os.chdir(cwd)
    sys.dont_write_bytecode = True
    try:
        result = CliRunner().invoke(
            app, list(args), env={"NO_COLOR": "1", **env}, prog_name="python -m fleetgen"
        )
    finally:
        os.chdir(folder)
        sys.dont_write_bytecode = bytecode
        _forget_spec_modules(modules)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return Ran(["fleetgen", *args], result.exit_code, result.stdout, stderr, result.exception)


def _forget_spec_modules(before: set[str]) -> None:
    for name in set(sys.modules) - before:
        where = getattr(sys.modules[name], "__file__", None)
        if where is not None and not str(Path(where).resolve()).startswith(_KEPT):
            del sys.modules[name]


def run_fleetgen_process(
    cwd: Path, *args: str, **env: str | None
) -> subprocess.CompletedProcess[str]:
    """``python -m fleetgen ARGS`` in ``cwd``, a real process (smoke tests); ``env`` as for
    `run_fleetgen`."""
    given = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", **env}
    return subprocess.run(
        [sys.executable, "-m", "fleetgen", *args],
        cwd=cwd,
        env={name: value for name, value in given.items() if value is not None},
        capture_output=True,
        text=True,
        check=False,
    )


def on_a_terminal(cwd: Path, *args: str, report: bool = True, **env: str | None) -> tuple[int, str]:
    """``python -m fleetgen ARGS`` in a real process whose stderr (and stdout, unless not
    ``report``) is a terminal: its exit code and what it wrote there; ``env`` as for
    `run_fleetgen_process`, with ``TERM=xterm``."""
    leader, follower = pty.openpty()
    given = {**os.environ, "TERM": "xterm", **env}
    process = subprocess.Popen(
        [sys.executable, "-m", "fleetgen", *args],
        cwd=cwd,
        stdin=follower,
        stdout=follower if report else subprocess.DEVNULL,
        stderr=follower,
        env={name: value for name, value in given.items() if value is not None},
    )
    os.close(follower)
    output = b""
    with contextlib.suppress(OSError):  # EIO once the process has closed the terminal
        while chunk := os.read(leader, 4096):
            output += chunk
    os.close(leader)
    return process.wait(timeout=120), output.decode(errors="replace")


def answering(cwd: Path, answers: Sequence[tuple[bytes, bytes]], *args: str) -> tuple[int, str]:
    """``python -m fleetgen ARGS`` on a terminal, typing each (prompt, answer) of ``answers`` in
    turn once its prompt shows: its exit code and what it wrote there."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "fleetgen", *args],
        cwd=cwd,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "xterm"},
    )
    os.close(follower)
    output, left, seen = b"", list(answers), 0
    with contextlib.suppress(OSError):  # EIO once the process has closed the terminal
        while chunk := os.read(leader, 4096):
            output += chunk
            if left and left[0][0] in output[seen:]:
                seen = len(output)
                os.write(leader, left.pop(0)[1])
    os.close(leader)
    return process.wait(timeout=120), output.decode(errors="replace")


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, but fleetgen's cache (ignored by Git)."""
    return {
        path: p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "/.fleetgen/cache/" not in "/" + (path := p.relative_to(root).as_posix())
    }


def case_copy(case: Path, target: Path, *edits: tuple[str, str]) -> Path:
    """A copy of golden case ``case`` at ``target`` without its expectations, its fleet.py
    edited by (old, new) replacements (each must apply)."""
    shutil.copytree(case, target, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    spec = target / "fleet.py"
    text = spec.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    spec.write_text(text)
    return target
