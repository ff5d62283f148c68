"""The garbage collector: the console command switches it off and freezes the heap at exit
(`fleetgen.cli.collector`); the library leaves a caller's collector exactly as it was."""

from __future__ import annotations

import gc
import shutil
import threading
import weakref
from pathlib import Path

import fleetgen
from fleetgen.cli import collector

ROOT = Path(__file__).resolve().parent.parent


def test_the_public_build_leaves_the_callers_collector_alone(tmp_path: Path) -> None:
    """A program that embeds fleetgen (a test harness, a service) froze some objects and runs
    threads: during a build every thread sees the collector enabled, and the frozen objects are
    still frozen after it. (The library paused the collector process-wide and unfroze the
    caller's heap before the pause moved to the console entry.)"""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "fleet.py", repo / "fleet.py")
    for folder in ("apps", "charts"):
        shutil.copytree(ROOT / folder, repo / folder)
    fleetgen.build(repo / "fleet.py", use_cache=False)  # imports and caches settle first
    kept = [[index] for index in range(1_000)]
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen >= len(kept)
    samples: list[bool] = []
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            samples.append(gc.isenabled())
            done.wait(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = fleetgen.build(repo / "fleet.py", use_cache=False)
        checked = fleetgen.check(repo / "fleet.py", use_cache=False)
    finally:
        done.set()
        sampler.join()
        after = gc.get_freeze_count()
        gc.unfreeze()
    assert result.report.unchanged and not checked.findings
    assert len(samples) > 10 and all(samples)
    assert after == frozen


def test_the_console_command_runs_with_the_collector_off_and_freezes_at_its_end() -> None:
    """Whatever way the command ends (here: an exit code), the collector was off inside and
    every object alive is then in the permanent generation."""
    gc.collect()
    try:
        try:
            with collector.command():
                assert not gc.isenabled()
                raise SystemExit(0)
        except SystemExit:
            pass
        assert gc.get_freeze_count() > 1_000
    finally:
        gc.unfreeze()
        gc.enable()


def test_cycles_left_by_a_command_are_collected_once_the_heap_is_unfrozen() -> None:
    """Freezing keeps objects; it frees nothing wrongly: a cycle made while the collector was off
    goes at the first full collection after the heap is unfrozen."""

    class Node:
        other: object = None

    try:
        with collector.command():
            first, second = Node(), Node()
            first.other, second.other = second, first
            found = weakref.ref(first)
            del first, second
    finally:
        gc.unfreeze()
        gc.enable()
    assert found() is not None  # kept alive by its cycle alone
    gc.collect()
    assert found() is None
