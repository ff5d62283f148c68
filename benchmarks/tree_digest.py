"""The SHA-256 of every output file of `run.py`'s fleet: to show a change keeps the output.

    .venv/bin/python benchmarks/tree_digest.py [--clusters 200] [--apps 30]

Builds the fleet cold (no cache) and prints the digest of its output tree (each file's path and
bytes, in path order, the cache aside); then applies `run.py`'s one-app edit and prints the
digest of a warm build (over the tree and cache of the first) and of a cold build of the edited
spec, which must be equal. A change that keeps the output prints the same three digests before and
after it.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

from fleetgen.pipeline import api

sys.path.insert(0, str(Path(__file__).parent))
from bench_build import make_repo
from run import FLEET, ONE_APP


def digest(out: Path) -> str:
    """The SHA-256 of every file under ``out`` (path and bytes, in path order), cache aside."""
    found = hashlib.sha256()
    for path in sorted(out.rglob("*")):
        if path.is_file() and ".fleetgen" not in path.parts:
            found.update(path.relative_to(out).as_posix().encode() + b"\0" + path.read_bytes())
    return found.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=200)
    parser.add_argument("--apps", type=int, default=30)
    parser.add_argument("--cascade", action="store_true", help="cascade_delete=True")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fleetgen-digest-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        source = make_repo(root, args, FLEET)
        spec = root / "fleet.py"
        api.build(spec, use_cache=False)
        api.build(spec)  # records the build the edit starts from
        print("cold     ", digest(root / "output"))
        spec.write_text(source.replace(*ONE_APP))
        api.build(spec)
        print("warm edit", digest(root / "output"))
        api.build(spec, root / "cold", use_cache=False)
        print("cold edit", digest(root / "cold"))


if __name__ == "__main__":
    main()
