"""Writer timings on the real disk: first write, no-op rewrite, 1% changed and check.

Run: .venv/bin/python benchmarks/bench_writer.py [FILES] [DIR]   (20,000 files under /tmp)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fleetgen.write.writer import check, write

VERSION = "bench"


def files(count: int, changed_every: int = 0) -> dict[str, bytes]:
    """A fleet-shaped tree: half one overlay per directory, half in cluster dirs of 50."""
    tree = {}
    for i in range(count):
        generation = 1 if changed_every and i % changed_every == 0 else 0
        text = f"apiVersion: v1\nkind: Kustomization\nindex: {i}\ngeneration: {generation}\n"
        path = f"overlays/app{i}/kustomization.yaml" if i % 2 else f"flux/c{i // 100}/{i}.yaml"
        tree[path] = text.encode() * 8
    return tree


def timed(label: str, action: Callable[[], str]) -> None:
    started = time.perf_counter()
    outcome = action()
    print(f"{label:<20} {time.perf_counter() - started:7.2f} s   {outcome}")


def main(count: int, parent: str | None) -> None:
    base, changed = files(count), files(count, changed_every=100)
    root = Path(tempfile.mkdtemp(prefix="bench-writer-", dir=parent))
    out = root / "output"
    try:
        print(f"{count} files of ~500 bytes under {out}")
        timed("first write", lambda: f"{len(write(out, base, VERSION).written)} written")
        timed("no-op rewrite", lambda: f"{len(write(out, base, VERSION).written)} written")
        timed("check, up to date", lambda: f"{len(check(out, base))} findings")
        timed("check, 1% stale", lambda: f"{len(check(out, changed))} findings")
        timed("1% changed", lambda: f"{len(write(out, changed, VERSION).written)} written")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 20_000,
        sys.argv[2] if len(sys.argv) > 2 else None,
    )
