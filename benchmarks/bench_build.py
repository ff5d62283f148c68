"""Time each stage of a build of a large generated fleet; prints figures, asserts nothing.

    .venv/bin/python benchmarks/bench_build.py [--clusters 1000] [--apps 100] [--envs 3]

Every app gets app, per_env and (for one cluster in ten) per_cluster layers. The first environment
runs on Flux, the others on Argo CD (one engine per placement).
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fleetgen.emit import emit
from fleetgen.inputs.load import load
from fleetgen.resolver import resolve
from fleetgen.version import VERSION
from fleetgen.write import writer

T = TypeVar("T")

FLEET = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Overrides,
                      Project, SyncPolicy)

ENVS = [f"env{{e}}" for e in range({envs})]
fleet = Fleet(
    name="bench", repo="https://git.example.com/bench.git", engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name=e, sync=SyncPolicy(automated=True),
                              engine="flux" if e == ENVS[0] else "argocd") for e in ENVS],
    clusters=[Cluster(name=f"c{{i:04d}}", env=ENVS[i % len(ENVS)],
                      server=f"https://c{{i}}.example.com", labels={{"ring": str(i % 4)}})
              for i in range({clusters})],
    projects=[Project(name="p", namespaces=["*"])],
    apps=[App(name=f"app{{a:03d}}", project="p", namespace=f"ns{{a % 10}}", path="apps/app/base",
              images=[Image(name="app", new_name="registry.example.com/app", tag="1.0")],
              config={{"app-config": {{"A": "1"}}}},
              per_env={{e: Overrides(replicas={{"app": 2}}) for e in ENVS}},
              per_cluster={{f"c{{i:04d}}": Overrides(config={{"app-config": {{"C": str(i)}}}})
                           for i in range(a % 10, {clusters}, 10)}})
          for a in range({apps})],
)
"""
BASE = {
    "kustomization.yaml": "resources: [deployment.yaml, configmap.yaml]\n",
    "deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\n"
        "spec:\n  template:\n    spec:\n"
        "      containers: [{name: app, image: app}]\n"
    ),
    "configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-config}\n",
}


def timed(label: str, step: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = step()
    print(f"{label:<28}{time.perf_counter() - start:8.2f} s")
    return result


def fleet_arguments() -> argparse.Namespace:
    """--clusters, --apps and --envs of the generated fleet."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--envs", type=int, default=3)
    return parser.parse_args()


def make_repo(root: Path, args: argparse.Namespace, template: str = FLEET) -> str:
    """Write the generated fleet.py (``template`` filled with ``args``) and its app base under
    ``root``; return the spec source."""
    source = template.format(**{"cascade": False, **vars(args)})
    (root / "fleet.py").write_text(source)
    base = root / "apps/app/base"
    base.mkdir(parents=True)
    for name, text in BASE.items():
        (base / name).write_text(text)
    return source


def main() -> None:
    args = fleet_arguments()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_repo(root, args)
        print(f"{args.clusters} clusters x {args.apps} apps, {args.envs} environments")
        loaded = timed("load (run fleet.py)", lambda: load(root / "fleet.py"))
        gc.freeze()
        plan = timed("resolve", lambda: resolve(loaded.fleet, loaded.workspace))
        files = timed("emit", lambda: emit(plan))
        rendered = timed("render (YAML)", lambda: writer.render(files))
        out = root / "output"
        timed("write (first)", lambda: writer.write(out, rendered, VERSION))
        timed("write (no change)", lambda: writer.write(out, rendered, VERSION))
        timed("check", lambda: writer.check(out, rendered))
        print(
            f"{len(plan.placements)} placements, {len(rendered)} files, "
            f"{sum(map(len, rendered.values())) / 1e6:.1f} MB"
        )


if __name__ == "__main__":
    main()
