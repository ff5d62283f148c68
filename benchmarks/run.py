"""The incremental-build benchmark: full, floor, no-op, one-app change, check and diff, one run.

    .venv/bin/python benchmarks/run.py [--clusters 1000] [--apps 100] [--json]

Generates a fleet in a temporary Git repository (4 environments, dev and test on Flux, staging
and prod on Argo CD, a rollout in prod, per_env and per_cluster layers on a tenth of the apps)
and measures, in this one process:

- ``full``: ``fleetgen build`` into an empty output folder (no cache);
- ``floor``: ``json.dumps`` of exactly the documents that build wrote, plus writing the same
  files (no fsync): what any generator of these files pays; the whole run has the garbage
  collector off, as the console command runs (`fleetgen.cli.collector`; the library leaves it as
  the caller set it), else the build and the floor would pay for it walking the data held;
- ``noop``: the same build again; ``one_app``: one app's image tag changed, then build;
  ``one_app_flux`` (after ``diff``): that app's labels too, which its Flux Kustomizations carry,
  so every cluster's ``kustomizations.yaml`` it is in is made again;
- ``check``: ``fleetgen build --check`` after that; ``diff``: ``fleetgen diff`` of that change
  against the commit (both refs were built, so both read their stored compiles from the
  cache); ``diff_cold``: the same diff with the whole cache removed
  first (both refs compiled from scratch).

Each step is timed three ways: wall clock (the ``*_s`` figures and ``ratios``), the CPU time of
this process and its finished children (``cpu``, ``cpu_ratios``), which other work on a shared
machine disturbs far less, and of that the time in user space (``user``, ``user_ratios``): the
kernel's share, creating and writing thousands of files, varies several-fold between runs with
the state of the page cache and writeback. The floor and the full build also wait for the disk,
which only the wall clock counts.

Prints a table, or with ``--json`` one object. Asserts nothing; tests never assert on time.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import fleetgen
from fleetgen.inputs.load import load
from fleetgen.pipeline import api
from fleetgen.util.cache import CACHE_DIR
from fleetgen.write import writer
from fleetgen.write.output import OutputFile

sys.path.insert(0, str(Path(__file__).parent))
from bench_build import make_repo

T = TypeVar("T")

FLEET = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Overrides,
                      Project, Rollout, Step, SyncPolicy)

ENVS = ["dev", "test", "staging", "prod"]
TAGS = {{}}  # app index -> image tag; the one-app change edits this line
fleet = Fleet(
    name="bench", repo="https://git.example.com/bench.git", engines=["argocd", "flux"],
    cascade_delete={cascade},
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[  # dev and test on Flux, staging and prod on Argo CD
        Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="test", engine="flux", sync=SyncPolicy(automated=True)),
        Environment(name="staging", engine="argocd", sync=SyncPolicy(automated=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True),
                    rollout=Rollout(steps=[Step(match_labels={{"ring": "canary"}}),
                                           Step(max_update="25%"), Step(max_update="100%")])),
    ],
    clusters=[Cluster(name=f"c{{i:04d}}", env=ENVS[i % 4], server=f"https://c{{i}}.example.com",
                      labels={{"ring": "canary" if i % 20 == 3 else "main",
                              "region": ["east", "west", "north"][i % 3]}})
              for i in range({clusters})],
    projects=[Project(name=f"team{{t}}", namespaces=[f"ns{{n}}" for n in range(t, 20, 5)])
              for t in range(5)],
    apps=[App(name=f"app{{a:03d}}", project=f"team{{a % 5}}", namespace=f"ns{{a % 20}}",
              path="apps/app/base",
              images=[Image(name="app", new_name="registry.example.com/app",
                            tag=TAGS.get(a, "1.0"))],
              config={{"app-config": {{"LOG_LEVEL": "info"}}}},
              per_env={{"prod": Overrides(replicas={{"app": 3}})}} if a % 10 == 0 else {{}},
              per_cluster={{f"c{{i:04d}}": Overrides(config={{"app-config": {{"SHARD": str(i)}}}})
                           for i in range(a % 7, {clusters}, 7)}} if a % 10 == 0 else {{}})
          for a in range({apps})],
)
"""
ONE_APP = ("TAGS = {}", "TAGS = {7: '1.1'}")
# The same app's labels, which its Flux Kustomizations carry: every cluster's file it is in.
ONE_APP_LABELS = (
    'project=f"team{a % 5}"',
    'project=f"team{a % 5}", **({"labels": {"example.com/owner": "x"}} if a == 7 else {})',
)


def main() -> None:
    args = _arguments()
    gc.disable()  # as the console command runs (`fleetgen.cli.collector`)
    with tempfile.TemporaryDirectory(prefix="fleetgen-bench-") as tmp:
        figures = measure(Path(tmp), args.clusters, args.apps, args.cascade)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(table(figures))


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--cascade",
        action="store_true",
        help="cascade_delete=True: the record holds every registration and project",
    )
    return parser.parse_args()


def measure(root: Path, clusters: int, apps: int, cascade: bool = False) -> dict[str, Any]:
    """Every figure of one run on a fleet generated under ``root`` (a fresh directory)."""
    spec = root / "fleet.py"
    fleet = argparse.Namespace(clusters=clusters, apps=apps, cascade=cascade)
    source = make_repo(root, fleet, FLEET)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "fleet")
    full_s, _ = _timed(lambda: api.build(spec), "full_s")
    files = api.emit_loaded(load(spec))[1]
    floor_s, _ = _timed(lambda: _floor(root / "floor", files), "floor_s")
    noop_s, noop = _timed(lambda: api.build(spec), "noop_s")
    spec.write_text(source.replace(*ONE_APP))
    one_app_s, one_app = _timed(lambda: api.build(spec), "one_app_s")
    check_s, checked = _timed(lambda: api.check(spec), "check_s")
    diff_s, report = _timed(lambda: fleetgen.diff(spec), "diff_s")
    spec.write_text(source.replace(*ONE_APP).replace(*ONE_APP_LABELS))
    one_app_flux_s, labelled = _timed(lambda: api.build(spec), "one_app_flux_s")
    spec.write_text(source.replace(*ONE_APP))
    shutil.rmtree(root / "output" / CACHE_DIR)
    diff_cold_s, _ = _timed(lambda: fleetgen.diff(spec), "diff_cold_s")
    rendered = writer.render(files)
    figures: dict[str, Any] = {
        "clusters": clusters,
        "apps": apps,
        "full_s": full_s,
        "floor_s": floor_s,
        "noop_s": noop_s,
        "one_app_s": one_app_s,
        "check_s": check_s,
        "diff_s": diff_s,
        "diff_cold_s": diff_cold_s,
        "one_app_flux_s": one_app_flux_s,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "docs": sum(len(file.documents) for file in files),
        "files": len(rendered),
        "bytes": sum(map(len, rendered.values())),
        "noop_written": len(noop.report.written),
        "one_app_written": len(one_app.report.written),
        "one_app_flux_written": len(labelled.report.written),
        "check_findings": len(checked.findings),
        "diff_changes": len(report.changes),
    }
    figures["ratios"] = _ratios(figures)
    figures["cpu"] = dict(CPU)
    figures["cpu_ratios"] = _ratios(CPU)
    figures["user"] = dict(USER)
    figures["user_ratios"] = _ratios(USER)
    return figures


def _ratios(given: dict[str, Any]) -> dict[str, float]:
    seconds = {
        name: max(value, 0.001)
        for name, value in given.items()  # never divide by 0
        if isinstance(value, float)
    }
    full = seconds["full_s"]
    return {
        "full_over_floor": full / seconds["floor_s"],
        "noop_over_full": seconds["noop_s"] / full,
        "one_app_over_full": seconds["one_app_s"] / full,
        "one_app_flux_over_full": seconds["one_app_flux_s"] / full,
        "diff_over_full": seconds["diff_s"] / full,
        "diff_cold_over_full": seconds["diff_cold_s"] / full,
    }


def _floor(directory: Path, files: list[OutputFile]) -> None:
    """json.dumps of every file's documents (or its text) and a plain write, no fsync."""
    made: set[Path] = set()
    for file in files:
        data = file.text if file.text is not None else json.dumps(file.documents)
        target = directory / file.path
        if target.parent not in made:
            os.makedirs(target.parent, exist_ok=True)
            made.add(target.parent)
        target.write_text(data)


CPU: dict[str, float] = {}  # step figure name -> CPU seconds, filled by `_timed`
USER: dict[str, float] = {}  # step figure name -> user-space CPU seconds, filled by `_timed`


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process and its finished children (``git`` for diff): in all, and
    in user space alone."""
    times = os.times()
    return (
        times.user + times.system + times.children_user + times.children_system,
        times.user + times.children_user,
    )


def _timed(step: Callable[[], T], name: str) -> tuple[float, T]:
    """Wall seconds of ``step`` and its result; its CPU seconds go to ``CPU[name]``, its user
    CPU seconds to ``USER[name]``."""
    start, (cpu, user) = time.perf_counter(), _cpu()
    result = step()
    now, now_user = _cpu()
    CPU[name], USER[name] = round(now - cpu, 3), round(now_user - user, 3)
    return round(time.perf_counter() - start, 3), result


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def table(figures: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    full = figures["full_s"]
    rows = [
        f"{figures['clusters']} clusters x {figures['apps']} apps: {figures['files']} files, "
        f"{figures['docs']} documents, {figures['bytes'] / 1e6:.1f} MB"
    ]
    for name, label in [
        ("full_s", "full build"),
        ("floor_s", "floor (json.dumps + write)"),
        ("noop_s", "no-op rebuild"),
        ("one_app_s", "one app changed"),
        ("one_app_flux_s", "its labels (Flux files)"),
        ("check_s", "build --check"),
        ("diff_s", "diff (one app)"),
        ("diff_cold_s", "diff, no cache"),
    ]:
        cpu, user = figures["cpu"][name], figures["user"][name]
        rows.append(
            f"{label:<28}{figures[name]:8.2f} s  {figures[name] / full:5.2f}x full"
            f"   cpu {cpu:6.2f} s  {cpu / figures['cpu']['full_s']:5.2f}x"
            f"   user {user:6.2f} s  {user / figures['user']['full_s']:5.2f}x"
        )
    rows.append(f"{'peak RSS':<28}{figures['peak_rss_mb']:8d} MB")
    rows.append(
        f"files written: no-op {figures['noop_written']}, "
        f"one app {figures['one_app_written']}, its labels "
        f"{figures['one_app_flux_written']}"
    )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
