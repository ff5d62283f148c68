"""The secret scan's cost: on the spec, on a compile's load and resolve, on a large app base.

    .venv/bin/python benchmarks/bench_scan.py [--clusters 1000] [--apps 100] [--objects 1000]
                                              [--reps 7] [--json]

Each figure is CPU seconds (``time.process_time``), the median and the minimum of ``--reps``
repetitions in this one process, every memo of the scan cleared before each (as in a fresh
process), the garbage collector off:

- ``spec_scan``: `scan.problems` over run.py's fleet (the walk of every string of the spec);
- ``load`` and ``resolve``: run fleet.py and inventory its base, then resolve (the spec scan
  and the base's findings included);
- ``base_scan``: `scanrules.in_object` over every object of a generated base of ``--objects``
  objects (Deployments, ConfigMaps holding config texts with references, Services), and
  ``base_parse``: reading the same YAML, for scale.

Prints a table, or with ``--json`` one object. Asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fleetgen.inputs.scan
import fleetgen.manifests.yamlio
import fleetgen.rules.secrets
from fleetgen.inputs.load import load
from fleetgen.manifests.yamlio import dump_documents, load_all
from fleetgen.resolver import resolve

sys.path.insert(0, str(Path(__file__).parent))
from bench_build import make_repo
from run import FLEET


def _clear() -> None:
    rules = [name for name in sys.modules if name.startswith("fleetgen.rules.secrets")]
    for module in (fleetgen.inputs.scan, *(sys.modules[name] for name in rules)):
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def _timed(reps: int, step: Callable[[], Any]) -> dict[str, float]:
    times = []
    for _ in range(reps):
        _clear()
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return {"median": round(statistics.median(times), 4), "min": round(min(times), 4)}


def base_objects(count: int) -> list[dict[str, Any]]:
    """``count`` objects as an app base holds them: 60% Deployments, 30% ConfigMaps, 10%
    Services, with digests, references and config texts and no secret."""
    objects: list[dict[str, Any]] = []
    for i in range(count):
        if i % 10 < 6:
            container = {
                "name": "app",
                "image": f"registry.example.com/app{i}@sha256:{i:064x}",
                "args": ["--port=8080", "--log-level", "info"],
                "env": [
                    {"name": "DB_HOST", "value": "db"},
                    {
                        "name": "DB_PASSWORD",
                        "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}},
                    },
                ],
                "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}},
            }
            objects.append(
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": f"d{i}", "labels": {"app": f"d{i}"}},
                    "spec": {
                        "selector": {"matchLabels": {"app": f"d{i}"}},
                        "template": {
                            "metadata": {"labels": {"app": f"d{i}"}},
                            "spec": {"containers": [container]},
                        },
                    },
                }
            )
        elif i % 10 < 9:
            text = "server:\n  port: 8080\ndb:\n  host: db\n  password: ${DB_PASSWORD}\n" * 5
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": f"c{i}"},
                    "data": {"app.yaml": text, "LOG_LEVEL": "info"},
                }
            )
        else:
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": f"s{i}"},
                    "spec": {"ports": [{"port": 80, "targetPort": 8080}]},
                }
            )
    return objects


def measure(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    gc.disable()
    with tempfile.TemporaryDirectory(prefix="fleetgen-bench-scan-") as tmp:
        root = Path(tmp)
        make_repo(root, argparse.Namespace(clusters=args.clusters, apps=args.apps), FLEET)
        loaded = load(root / "fleet.py")
        figures["spec_scan"] = _timed(
            args.reps, lambda: list(fleetgen.inputs.scan.problems(loaded.fleet))
        )
        figures["load"] = _timed(args.reps, lambda: load(root / "fleet.py"))
        figures["resolve"] = _timed(args.reps, lambda: resolve(loaded.fleet, loaded.workspace))
    objects = base_objects(args.objects)
    text = dump_documents(objects)
    figures["base_bytes"] = len(text.encode())
    in_object = getattr(fleetgen.rules.secrets, "in_object", None)  # None: a fleetgen before it
    if in_object is not None:
        # a fleetgen whose rules read no YAML themselves is given the parser (``parse=``)
        takes = "parse" in inspect.signature(in_object).parameters
        parse = {"parse": fleetgen.manifests.yamlio.load_first} if takes else {}
        figures["base_scan"] = _timed(
            args.reps, lambda: [in_object(doc, **parse) for doc in objects]
        )
    figures["base_parse"] = _timed(args.reps, lambda: load_all(text))
    gc.enable()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figures = measure(args)
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"{args.clusters} clusters x {args.apps} apps; a base of {args.objects} objects")
    for name, value in figures.items():
        if isinstance(value, dict):
            print(f"{name:<12}{value['median']:8.3f} s cpu (min {value['min']:.3f})")
        else:
            print(f"{name:<12}{value:>8}")


if __name__ == "__main__":
    main()
