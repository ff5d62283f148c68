"""Import public GitOps repositories and print what became of each: a table row per repository.

    python benchmarks/import_survey.py GITDIR_OR_FOLDER[::IMPORT OPTIONS] ...

Each repository (a git directory, read at HEAD, or a folder) is copied into a scratch folder,
`fleetgen import`ed there, then built and validated: the row gives the commit, import's exit
code and summary (clusters, apps, findings), how many findings the faithfulness check gave (an
app that deploys other objects than the original), `fleetgen build` and `fleetgen validate` exit
codes, and import's wall time. ``--findings`` also prints every finding, grouped by what it says.
Nothing here is a test: the repositories are not part of the project.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from io import BytesIO
from pathlib import Path

# What the faithfulness check says (fleetgen/importer/faithful.py), apart from other findings.
_FAITHFUL = re.compile(
    r"check the app's settings in fleet.py against the original|fleetgen's namespace= puts "
    r"every object|the imported fleet does not build"
)


def _fleetgen(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "fleetgen", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)


def _checkout(source: Path, into: Path) -> str:
    """``source``'s files at HEAD (a git directory) or as they are (a folder) in ``into``; the
    commit, or ``-``."""
    git = source / "repo" if (source / "repo" / "HEAD").is_file() else source
    if (git / "HEAD").is_file():
        archive = subprocess.run(
            ["git", "--git-dir", str(git), "archive", "HEAD"], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(into, filter="data")
        return subprocess.run(
            ["git", "--git-dir", str(git), "rev-parse", "--short=8", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    subprocess.run(["cp", "-a", f"{source}/.", str(into)], check=True)
    return "-"


def _kind(line: str) -> str:
    """A finding's text without its place and names, to group findings of one kind."""
    what = line.split(": ", 1)[-1].split(" — ")[0]
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", what)


def survey(entry: str, show: bool) -> str:
    """One row of the table for ``entry`` (``PATH[::OPTIONS]``)."""
    path, _, options = entry.partition("::")
    source = Path(path)
    name = source.name.replace("+", "/")
    with tempfile.TemporaryDirectory(prefix="fleetgen-survey-") as scratch:
        folder = Path(scratch) / source.name.split("+")[-1]
        folder.mkdir()
        commit = _checkout(source, folder)
        start = time.perf_counter()
        ran = _fleetgen(folder, "import", *options.split())
        took = time.perf_counter() - start
        lines = [line for line in ran.stderr.splitlines() if re.match(r"\S+:\d+: |\S+: ", line)]
        summary = next((s for s in ran.stdout.splitlines() if s.startswith("wrote ")), "")
        faithful = sum(1 for line in lines if _FAITHFUL.search(line))
        built = validated = "-"
        if (folder / "fleet.py").exists():
            built = str(_fleetgen(folder, "build").returncode)
            validated = str(_fleetgen(folder, "validate").returncode)
        if show:
            print(f"## {name} @ {commit}: exit {ran.returncode}", file=sys.stderr)
            print(summary or ran.stderr.strip().splitlines()[:1], file=sys.stderr)
            for kind, count in Counter(_kind(line) for line in lines).most_common():
                print(f"  {count:4} × {kind}", file=sys.stderr)
    what = summary.split(": ", 1)[-1] if summary else ran.stderr.strip().splitlines()[0][:60]
    return (
        f"| {name} @ {commit} | {ran.returncode} | {what} | {faithful} | {built} | {validated} "
        f"| {took:.1f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", help="GITDIR_OR_FOLDER[::IMPORT OPTIONS]")
    parser.add_argument("--findings", action="store_true", help="print findings by kind")
    args = parser.parse_args()
    print(
        "| repository @ commit | import | mapped | faithfulness findings | build | validate "
        "| import time |"
    )
    print("|---|---|---|---|---|---|---|")
    for entry in args.repos:
        print(survey(entry, args.findings), flush=True)


if __name__ == "__main__":
    main()
