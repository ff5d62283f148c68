"""Start-up time of the command line (issue 22 item 3): wall clock and CPU, medians of N runs.

    .venv/bin/python benchmarks/startup.py [--runs 10] [--json]

Each figure is one process started from scratch, as a user or a pre-commit hook starts it:

- ``python``: the interpreter alone (``python -c pass``), the floor of every other figure;
- ``import``: ``python -c "import fleetgen"`` (the spec classes, what a fleet.py imports);
- ``version``: ``fleetgen --version``; ``help``: ``fleetgen --help``;
- ``noop_build``: the example's no-op ``fleetgen build``: the repository's fleet.py, its bases
  and its committed output/ copied to a temporary folder, built once (that fills the cache),
  then timed: every later build there has nothing to do.

One untimed run of each command comes first (it writes the bytecode caches: the runs go without
PYTHONDONTWRITEBYTECODE, which some shells set, as a user's install has them). Each figure is the
median wall clock (the targets of issue 22 on the shared 2-core machine: ``version`` ≤ 0.25 s,
``noop_build`` ≤ 0.6 s) and the median CPU time (user + system) of the process, which other work
on a shared machine disturbs far less. Prints a table, or with ``--json`` one object
``{"wall": {...}, "cpu": {...}}`` in seconds. Asserts nothing; tests never assert on time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What the example's build reads: the spec, its bases and charts, and the committed output.
EXAMPLE = ("fleet.py", "apps", "charts", "output")


def _fleetgen() -> str:
    """The console script installed beside this interpreter (else the one on PATH)."""
    beside = Path(sys.executable).with_name("fleetgen")
    return str(beside) if beside.exists() else shutil.which("fleetgen") or "fleetgen"


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime


def _time(command: Sequence[str], cwd: Path, runs: int) -> tuple[float, float]:
    """The median wall clock and CPU seconds of ``runs`` runs of ``command``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)  # warm-up
    walls, cpus = [], []
    for _ in range(runs):
        start, cpu = time.perf_counter(), _cpu()
        subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Median wall-clock and CPU seconds of each start-up figure over ``runs`` runs."""
    fleetgen = _fleetgen()
    with tempfile.TemporaryDirectory(prefix="fleetgen-startup-") as scratch:
        example = Path(scratch)
        for name in EXAMPLE:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, example / name)
            elif source.exists():
                shutil.copy2(source, example / name)
        commands = {
            "python": [sys.executable, "-c", "pass"],
            "import": [sys.executable, "-c", "import fleetgen"],
            "version": [fleetgen, "--version"],
            "help": [fleetgen, "--help"],
            "noop_build": [fleetgen, "build"],
        }
        figures = {name: _time(command, example, runs) for name, command in commands.items()}
    return {
        "wall": {name: wall for name, (wall, _) in figures.items()},
        "cpu": {name: cpu for name, (_, cpu) in figures.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs per figure")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figures = measure(args.runs)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"medians of {args.runs} runs    wall      cpu")
    for name, wall in figures["wall"].items():
        print(f"{name:<20} {wall:6.3f} s {figures['cpu'][name]:6.3f} s")


if __name__ == "__main__":
    main()
