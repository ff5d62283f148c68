"""Time ``fleetgen diff`` on bench_build's generated fleet in a temporary git repository.

    .venv/bin/python benchmarks/bench_diff.py [--clusters 1000] [--apps 100] [--envs 3]

Prints figures for: no change, one app in one environment, one app removed. Asserts nothing.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fleetgen
from fleetgen.diffs import formats
from fleetgen.pipeline import api

sys.path.insert(0, str(Path(__file__).parent))
from bench_build import fleet_arguments, make_repo

PER_ENV = 'per_env={e: Overrides(replicas={"app": 2}) for e in ENVS}'
ONE_APP_ONE_ENV = (
    'per_env={e: Overrides(replicas={"app": 3 if (e == "env1" and a == 7) else 2}) for e in ENVS}'
)


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def timed_diff(label: str, spec: Path) -> None:
    start = time.perf_counter()
    report = fleetgen.diff(spec)
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    markdown, as_json = formats.markdown(report), formats.to_json(report)
    formatting = time.perf_counter() - start
    print(
        f"{label:<16}{elapsed:7.2f} s  (+{formatting:.2f} s formats)  "
        f"changes={len(report.changes)} deletions={len(report.deletions)} "
        f"clusters={len(report.touched.clusters)} markdown={len(markdown)} chars "
        f"json={len(as_json) / 1e6:.1f} MB"
    )


def main() -> None:
    args = fleet_arguments()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        spec = root / "fleet.py"
        source = make_repo(root, args)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "fleet")
        start = time.perf_counter()
        compiled = api.compile_spec(spec)
        print(
            f"compile once    {time.perf_counter() - start:7.2f} s  "
            f"({len(compiled.plan.placements)} placements, {len(compiled.rendered)} files)"
        )
        timed_diff("no change", spec)
        spec.write_text(source.replace(PER_ENV, ONE_APP_ONE_ENV))
        timed_diff("1 app x 1 env", spec)
        every_app = f"for a in range({args.apps})]"
        spec.write_text(source.replace(every_app, every_app[:-1] + " if a != 3]"))
        timed_diff("1 app removed", spec)


if __name__ == "__main__":
    main()
