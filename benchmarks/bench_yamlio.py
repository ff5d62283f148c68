"""Docs/s of fleetgen.manifests.yamlio on 20k Flux-Kustomization-like dicts (prints figures only).

Run: .venv/bin/python benchmarks/bench_yamlio.py [COUNT]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import yaml

from fleetgen.manifests.yamlfast import BlockWriter
from fleetgen.manifests.yamlio import _libyaml_dump, dump, dump_documents, load_all
from fleetgen.manifests.yamlscalar import needs_quotes


def flux_kustomization(i: int) -> dict[str, Any]:
    """A Flux Kustomization as fleetgen emits one per (app, cluster)."""
    app, cluster = f"app-{i % 100}", f"cluster-{i // 100}"
    return {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {
            "name": f"{app}-{cluster}",
            "namespace": "flux-system",
            "labels": {"fleetgen.io/app": app, "fleetgen.io/cluster": cluster, "ring": "1"},
            "annotations": {"fleetgen.io/source": "fleet.py", "notify": "on"},
        },
        "spec": {
            "interval": "10m",
            "retryInterval": "1m",
            "timeout": "5m",
            "path": f"./output/overlays/{app}/clusters/{cluster}",
            "prune": True,
            "wait": False,
            "deletionPolicy": "Orphan",
            "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
            "targetNamespace": app,
            "dependsOn": [{"name": f"platform-config-{cluster}"}],
            "healthChecks": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "namespace": app}
            ],
            "kubeConfig": {"secretRef": {"name": f"{cluster}-kubeconfig", "key": "value"}},
        },
    }


def timed(label: str, count: int, run: Callable[[], object]) -> None:
    """Best of 3 runs, printed as per-second throughput."""
    best = min(_seconds(run) for _ in range(3))
    print(f"{label:<48} {best:7.2f} s  {count / best:>10,.0f} /s")


def _seconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    docs = [flux_kustomization(i) for i in range(count)]
    text = dump_documents(docs)
    strings = [line.split(": ", 1)[-1] for line in text.splitlines()]
    print(f"{count:,} documents, {len(text) / 1e6:.1f} MB of YAML, yaml {yaml.__version__}")
    writer = BlockWriter(needs_quotes)
    fast = sum(writer.document(d) is not None for d in docs)
    print(f"fast-path hit rate: {fast:,} of {count:,} documents ({fast / count:.1%})")
    timed("fleetgen dump_documents (one call)", count, lambda: dump_documents(docs))
    timed("libyaml path alone (the fallback)", count, lambda: _libyaml_dump(docs))
    timed("fleetgen dump (one call per document)", count, lambda: [dump(d) for d in docs])
    timed(
        "baseline yaml.dump CSafeDumper per document",
        count,
        lambda: [
            yaml.dump(d, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True) for d in docs
        ],
    )
    timed("load_all (CSafeLoader)", count, lambda: load_all(text))
    timed(
        f"needs_quotes on {len(strings):,} scalars",
        len(strings),
        lambda: [needs_quotes(s) for s in strings],
    )


if __name__ == "__main__":
    main()
