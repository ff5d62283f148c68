"""Time ``validate --render`` on bench_build's generated fleet against bare kustomize builds.

    .venv/bin/python benchmarks/bench_validate.py [--clusters 60] [--apps 20] [--envs 3]

Bare: ``fleetgen build``, then kustomize-build, in parallel (``build_many``, one worker per CPU),
every overlay a placement uses (as a script would) and one overlay per distinct content (what
validate builds). Validate: the whole command, cold (empty cache) and warm (nothing changed).
Prints the figures and the ratios; asserts nothing.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fleetgen import validate as validation
from fleetgen.pipeline import api
from fleetgen.tools.kustomize import build_many
from fleetgen.validate.render import render

sys.path.insert(0, str(Path(__file__).parent))
from bench_build import fleet_arguments, make_repo


def timed(label: str, step: Callable[[], object]) -> float:
    start = time.perf_counter()
    result = step()
    elapsed = time.perf_counter() - start
    builds = getattr(getattr(result, "summary", None), "builds", None)
    print(f"{label:<30}{elapsed:8.2f} s" + (f"  ({builds})" if builds else ""))
    return elapsed


def main() -> None:
    args = fleet_arguments()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_repo(root, args)
        spec = root / "fleet.py"
        compiled = api.build(spec).compiled
        overlays = sorted({p.overlay for p in compiled.plan.placements})
        print(
            f"{args.clusters} clusters x {args.apps} apps, {args.envs} environments: "
            f"{len(compiled.plan.placements)} placements, {len(overlays)} overlays"
        )
        every = timed(
            "bare builds, every overlay",
            lambda: build_many([compiled.out_dir / overlay for overlay in overlays]),
        )
        cold = timed("validate --render (cold)", lambda: validation.validate(spec, render=True))
        warm = timed("validate --render (warm)", lambda: validation.validate(spec, render=True))
        keys = render(compiled, root, overlays).keys  # warm: only hashes
        distinct = sorted({key: overlay for overlay, key in sorted(keys.items())}.values())
        bare = timed(
            f"bare builds, {len(distinct)} distinct",
            lambda: build_many([compiled.out_dir / overlay for overlay in distinct]),
        )
        plain = timed("validate (no --render)", lambda: validation.validate(spec))
        print(
            f"ratio validate --render / bare distinct builds: cold {cold / bare:.2f}, "
            f"warm {warm / bare:.2f} (/ every overlay: cold {cold / every:.2f}); "
            f"validate without --render / bare distinct: {plain / bare:.2f}"
        )


if __name__ == "__main__":
    main()
