"""Crash safety of the writer, proved by killing real builds.

A driver subprocess runs ``write`` (or ``recover``) with the filesystem calls the writer makes
(``os.open`` with O_CREAT, ``os.write``, ``os.fsync``, ``os.replace``, ``os.unlink``,
``os.rmdir``, ``os.mkdir``) counted, and exits at call N without making it (an ``os.write`` is
torn in half first). Sweeping N over every step of a build shows that whatever the moment, the
tree is the old one, the new one, or has a journal that ``recover`` completes into the new one.
The sweeps run the driver as a server that forks a child per run (``Driver``); a random SIGKILL
from outside hits a driver of its own.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import fleetgen
from fleetgen.write.writer import StateError, check, recover, write
from tests.test_writer import tree

VERSION = "1.0.0"
STATE = ".fleetgen"
KILLED = 137
PACKAGE = Path(fleetgen.__file__).parent

DRIVER = """
import json, os, sys, traceback, types
from pathlib import Path

stub = types.ModuleType("fleetgen")  # the writer alone, without the package's heavy __init__
stub.__path__ = [sys.argv[1]]
sys.modules["fleetgen"] = stub
from fleetgen.write.writer import recover, write

send, leave = os.write, os._exit  # the driver's own, never counted
steps = 0

def counted(name, call, kill_at):
    def step(*args, **kwargs):
        global steps
        if name != "open" or args[1] & os.O_CREAT:
            steps += 1
            if steps == kill_at:
                if name == "write":
                    call(args[0], args[1][: len(args[1]) // 2])
                leave(137)
        return call(*args, **kwargs)
    return step

def run(out, spec, version, mode, kill_at):
    for name in ("open", "write", "fsync", "replace", "unlink", "rmdir", "mkdir"):
        setattr(os, name, counted(name, getattr(os, name), int(kill_at)))
    if mode == "write":
        files = json.loads(Path(spec).read_text())
        write(Path(out), {path: text.encode() for path, text in files.items()}, version)
    else:
        recover(Path(out))
    return steps

if sys.argv[2:]:  # one run, in this process: out spec version mode kill_at
    print(run(*sys.argv[2:]))
    sys.exit()
# A server: one run per line of stdin (the five arguments as a JSON list), each in a child
# forked from this process, which has imported the writer once; answers a JSON line of the
# child's exit status and what it reported (its step count, or the traceback that stopped it).
for line in sys.stdin:
    answer, told = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(answer)
        try:
            text, status = str(run(*json.loads(line))), 0
        except BaseException:
            text, status = traceback.format_exc(), 1
        send(told, text.encode())
        leave(status)
    os.close(told)
    with os.fdopen(answer, "rb") as pipe:
        text = pipe.read().decode()
    status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    print(json.dumps([status, text]), flush=True)
"""

OLD = {
    "README.md": "# fleet: orders on a, b\n",
    "argocd/projects/orders.yaml": "kind: AppProject\n",
    "argocd/clusters/a.yaml": "kind: Secret\nname: a\n",
    "argocd/clusters/b.yaml": "kind: Secret\nname: b\n",
    "flux/clusters/a/orders.yaml": "kind: Kustomization\npath: a\n",
    "flux/clusters/b/orders.yaml": "kind: Kustomization\npath: b\n",
    "overlays/orders/dev/kustomization.yaml": "resources: [../../base]\n",
    "overlays/orders/clusters/a/kustomization.yaml": "resources: [../../dev]\n",
    "overlays/orders/clusters/b/kustomization.yaml": "resources: [../../dev]\n",
    "overlays/legacy/dev/kustomization.yaml": "resources: [legacy]\n",
}
NEW = {
    **{p: t for p, t in OLD.items() if "/b" not in p and "legacy" not in p},  # 4 deleted
    "README.md": "# fleet: orders on a, c\n",  # changed
    "argocd/projects/orders.yaml": "kind: AppProject\nspec: {}\n",  # changed
    "overlays/orders/clusters/a/kustomization.yaml": "resources: [../../dev, x]\n",  # changed
    "argocd/clusters/c.yaml": "kind: Secret\nname: c\n",  # added
    "flux/clusters/c/orders.yaml": "kind: Kustomization\npath: c\n",  # added
    "overlays/orders/clusters/c/kustomization.yaml": "resources: [../../dev]\n",  # added
}
UNOWNED = {
    "flux/clusters/a/flux-system/gotk-sync.yaml": "kind: GitRepository\n",
    "flux/clusters/b/flux-system/gotk-sync.yaml": "kind: GitRepository\n",
    "notes.txt": "hand-made\n",
}


def run_once(
    out: Path, spec: Path, mode: str, kill_at: int = 0
) -> subprocess.CompletedProcess[str]:
    """Run the driver on ``out`` in a process of its own; ``kill_at`` 0 lets it finish and print
    its step count."""
    argv = [sys.executable, str(spec.parent / "driver.py"), str(PACKAGE), str(out), str(spec)]
    return subprocess.run(
        [*argv, VERSION, mode, str(kill_at)], capture_output=True, text=True, check=False
    )


class Driver:
    """The driver as a server: each run is a child it forks, having imported the writer once, so
    a run costs a fork instead of an interpreter's start (a third of a second, hundreds of runs)
    and is otherwise ``run_once``: its exit status, and its step count (on stdout) or the error
    that stopped it (on stderr)."""

    def __init__(self, spec: Path) -> None:
        self.spec = spec
        self.process = subprocess.Popen(
            [sys.executable, str(spec.parent / "driver.py"), str(PACKAGE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def __call__(self, out: Path, mode: str, kill_at: int = 0) -> subprocess.CompletedProcess[str]:
        args = [str(out), str(self.spec), VERSION, mode, str(kill_at)]
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(args) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"the driver server exited with {self.process.wait()}"
        status, text = json.loads(answer)
        stdout, stderr = (text, "") if status == 0 else ("", text)
        return subprocess.CompletedProcess(args, status, stdout, stderr)

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        assert self.process.wait() == 0


def encode(files: dict[str, str]) -> dict[str, bytes]:
    return {path: text.encode() for path, text in files.items()}


class Scenario:
    """An old output tree (with unowned files) and the new build to run over it."""

    def __init__(self, root: Path, old: dict[str, str], new: dict[str, str]) -> None:
        self.root, self.old, self.new = root, old, new
        self.spec = root / "new.json"
        self.spec.write_text(json.dumps(new))
        (root / "driver.py").write_text(DRIVER)
        self.template = root / "template"
        write(self.template, encode(old), VERSION)
        for path, text in UNOWNED.items():
            (self.template / path).parent.mkdir(parents=True, exist_ok=True)
            (self.template / path).write_text(text)
        self.old_tree = tree(self.template)
        self.old_manifest = (self.template / STATE / "manifest.json").read_bytes()
        reference = self.fresh("reference")
        write(reference, encode(new), VERSION)
        self.new_tree = tree(reference)
        self.new_manifest = (reference / STATE / "manifest.json").read_bytes()
        assert self.old_tree != self.new_tree

    def fresh(self, name: str) -> Path:
        """A copy of the old tree."""
        out = self.root / name
        return copy(self.template, out)

    def assert_consistent(self, out: Path) -> str:
        """Check the tree as a crash left it; recover; check again. Returns what it found."""
        committed = (out / STATE / "journal.json").exists()
        found = tree(out)
        assert committed or found in (self.old_tree, self.new_tree)
        self.assert_unowned_intact(out)
        findings = check(out, encode(self.new))  # recovers first
        after = tree(out)
        assert after == (self.new_tree if committed else found)
        assert (findings == []) == (after == self.new_tree)
        manifest = self.new_manifest if after == self.new_tree else self.old_manifest
        assert (out / STATE / "manifest.json").read_bytes() == manifest
        assert sorted(os.listdir(out / STATE)) == [".gitignore", "manifest.json"]
        if after == self.old_tree:
            assert check(out, encode(self.old)) == []
        self.assert_unowned_intact(out)
        return "journal" if committed else "new" if found == self.new_tree else "old"

    def assert_unowned_intact(self, out: Path) -> None:
        for path, text in UNOWNED.items():
            assert (out / path).read_text() == text


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario(tmp_path_factory.mktemp("crash"), OLD, NEW)


@pytest.fixture(scope="module")
def driver(scenario: Scenario) -> Iterator[Driver]:
    server = Driver(scenario.spec)
    yield server
    server.close()


def count_steps(driver: Driver, mode: str, out: Path) -> int:
    done = driver(out, mode)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def kill(driver: Driver, out: Path, mode: str, step: int) -> None:
    result = driver(out, mode, step)
    assert result.returncode == KILLED, result.stderr


def test_killing_a_build_at_every_step_leaves_old_or_new_tree(
    scenario: Scenario, driver: Driver
) -> None:
    total = count_steps(driver, "write", scenario.fresh("count"))
    assert total > 50
    outcomes = []
    for step in range(1, total + 1):
        out = scenario.fresh("killed")
        kill(driver, out, "write", step)
        if any((out / STATE / name).exists() for name in ("journal.json", "staging")):
            # A second crash, during recovery, at a step that moves with the first one.
            result = driver(out, "recover", 1 + step % 7)
            assert result.returncode in (0, KILLED), result.stderr
        outcomes.append(scenario.assert_consistent(out))
    order = ["old", "journal", "new"]  # one step, the commit, separates old from new
    assert outcomes == sorted(outcomes, key=order.index)
    assert {"old", "journal"} <= set(outcomes)


def test_killing_recovery_at_every_step_still_converges(scenario: Scenario, driver: Driver) -> None:
    committed = first_committed_state(scenario, driver)
    assert (committed / STATE / "journal.json").exists()
    recovery_steps = count_steps(driver, "recover", copy(committed, scenario.root / "count"))
    assert recovery_steps > 20
    for step in range(1, recovery_steps + 1):
        out = copy(committed, scenario.root / "recovering")
        kill(driver, out, "recover", step)
        again = driver(out, "recover", 1 + step % 5)
        assert again.returncode in (0, KILLED), again.stderr
        assert scenario.assert_consistent(out) in ("journal", "new")


def first_committed_state(scenario: Scenario, driver: Driver) -> Path:
    """The tree left by a build killed at the first step after its commit point."""
    out = scenario.root / "committed"

    def committed(step: int) -> bool:
        copy(scenario.template, out)
        kill(driver, out, "write", step)
        return (out / STATE / "journal.json").exists() or tree(out) == scenario.new_tree

    low, high = 1, count_steps(driver, "write", scenario.fresh("count"))
    while low < high:  # committed(step) is False up to the commit point, True after it
        middle = (low + high) // 2
        low, high = (low, middle) if committed(middle) else (middle + 1, high)
    committed(low)
    return out


def copy(source: Path, target: Path) -> Path:
    """Copy ``source`` to ``target`` (hard links: the writer never writes a file in place)."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, copy_function=os.link)
    return target


def test_recover_without_journal_discards_the_staged_build(scenario: Scenario) -> None:
    out = scenario.fresh("staged")
    (out / STATE / "staging").mkdir()
    (out / STATE / "staging" / "0").write_text("half a fi")
    (out / STATE / "journal.json.tmp").write_text('{"moves": [')
    assert recover(out) is False
    assert sorted(os.listdir(out / STATE)) == [".gitignore", "manifest.json"]
    assert scenario.assert_consistent(out) == "old"


def test_corrupt_journal_is_refused_not_guessed_at(scenario: Scenario) -> None:
    out = scenario.fresh("corrupt")
    (out / STATE / "journal.json").write_text('{"moves": [["0", "../../etc/passwd"]]}')
    with pytest.raises(StateError, match="delete it, restore the output directory from Git"):
        recover(out)
    assert tree(out) == scenario.old_tree


def big_files(count: int, generation: int) -> dict[str, str]:
    """``count`` files in a few hundred directories; generation 1 changes, adds and deletes."""
    files = {}
    for i in range(count):
        if generation and i % 6 == 0:
            continue
        changed = generation and i % 3 == 1
        text = f"kind: Kustomization\nindex: {i}\ngeneration: {generation if changed else 0}\n"
        directory = f"overlays/app{i}" if i % 4 == 0 else f"flux/clusters/c{i % 100}"
        files[f"{directory}/{i}.yaml"] = text
    if generation:
        files.update({f"flux/clusters/new{i % 20}/{i}.yaml": f"new: {i}\n" for i in range(300)})
    return files


def test_random_sigkills_during_a_large_write(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path, big_files(2000, 0), big_files(2000, 1))
    started = time.perf_counter()
    done = run_once(scenario.fresh("timing"), scenario.spec, "write")
    duration = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    rng = random.Random(2000)
    outcomes = []
    for attempt in range(5):
        out = scenario.fresh(f"killed{attempt}")
        argv = [str(tmp_path / "driver.py"), str(PACKAGE), str(out), str(scenario.spec), VERSION]
        build = subprocess.Popen([sys.executable, *argv, "write", "0"], stdout=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, duration))
        build.send_signal(signal.SIGKILL)
        build.wait()
        outcomes.append(scenario.assert_consistent(out))
    print("outcomes of random kills:", outcomes)
