"""Run a real kustomize (v5+): standalone ``kustomize`` or the one built into ``kubectl``.

Nothing is downloaded: the binary is a checked prerequisite. Builds use kustomize's default
load restrictor (``rootOnly``), as Argo CD and Flux do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fleetgen.errors import FleetgenError

__all__ = [
    "Kustomize",
    "KustomizeBuildError",
    "KustomizeNotFound",
    "build",
    "build_many",
    "find_kustomize",
]

MIN_MAJOR = 5
_VERSION_TIMEOUT_S = 30
_BUILD_TIMEOUT_S = 300
_KUSTOMIZE_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
_KUBECTL_KUSTOMIZE_VERSION = re.compile(r"Kustomize Version:\s*(v?(\d+)\.\d+\.\d+)")
# kustomize's error when git fails to clone a remote base (api/internal/git ``gitRunner.run``,
# called by ``ClonerUsingGitExec``).
_CLONE_FAILED = re.compile(r"failed to run '[^']*\bgit (?:init|remote|fetch|checkout|submodule)\b")
_INSTALL_HINT = (
    "install a kustomize >= 5 release binary as `kustomize` on PATH"
    " (https://github.com/kubernetes-sigs/kustomize/releases), or kubectl >= 1.27, which embeds"
    " kustomize v5 as `kubectl kustomize`"
)


@dataclass(frozen=True, slots=True)
class Kustomize:
    """How to run kustomize: ``command`` + a directory builds it; ``version`` as reported."""

    command: tuple[str, ...]
    version: str


class KustomizeNotFound(FleetgenError):
    """No kustomize >= 5 on this machine."""


class KustomizeBuildError(Exception):
    """kustomize failed for one or more directories; ``failures`` maps each to its stderr."""

    def __init__(self, failures: Mapping[Path, str]) -> None:
        self.failures = dict(failures)
        details = "\n".join(
            f"{path}:\n  " + stderr.strip().replace("\n", "\n  ")
            for path, stderr in sorted(self.failures.items())
        )
        super().__init__(f"kustomize build failed for {len(self.failures)} path(s):\n{details}")


def find_kustomize() -> Kustomize:
    """The first of ``kustomize`` (v5+) and ``kubectl kustomize`` (kustomize v5+) on PATH."""
    return _find_on(os.environ.get("PATH", os.defpath))


@cache
def _find_on(search_path: str) -> Kustomize:
    found: list[str] = []
    for probe in (_standalone, _kubectl):
        result = probe(search_path)
        if isinstance(result, Kustomize):
            return result
        found.extend(result)
    seen = "; ".join(found) if found else "neither is on PATH"
    raise KustomizeNotFound(
        f"kustomize >= {MIN_MAJOR} not found: looked for `kustomize` and `kubectl kustomize` on"
        f" PATH ({seen}); {_INSTALL_HINT}"
    )


def _standalone(search_path: str) -> Kustomize | list[str]:
    """``kustomize`` itself, or what was found instead."""
    binary = shutil.which("kustomize", path=search_path)
    if binary is None:
        return []
    output = _run_version([binary, "version"])
    match = _KUSTOMIZE_VERSION.search(output)
    if match is None:
        return [f"{binary} reports no version: {output.strip()[:200]!r}"]
    version = match.group(0)
    if int(match.group(1)) < MIN_MAJOR:
        return [f"{binary} is kustomize {version}, too old"]
    return Kustomize(command=(binary, "build"), version=version)


def _kubectl(search_path: str) -> Kustomize | list[str]:
    """``kubectl kustomize``, or what was found instead."""
    binary = shutil.which("kubectl", path=search_path)
    if binary is None:
        return []
    output = _run_version([binary, "version", "--client"])
    match = _KUBECTL_KUSTOMIZE_VERSION.search(output)
    if match is None:
        return [f"{binary} reports no Kustomize Version: {output.strip()[:200]!r}"]
    version = match.group(1)
    if int(match.group(2)) < MIN_MAJOR:
        return [f"{binary} embeds kustomize {version}, too old"]
    return Kustomize(command=(binary, "kustomize"), version=version)


def _run_version(argv: list[str]) -> str:
    """stdout + stderr of a version command; a failure to run is reported as its output."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=_VERSION_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return done.stdout + done.stderr


def build(path: Path, kustomize: Kustomize | None = None) -> str:
    """``kustomize build path`` with the default (rootOnly) load restrictor; its stdout."""
    runner = kustomize or find_kustomize()
    stdout, stderr = _run_build(runner, path)
    if stderr is not None:
        raise KustomizeBuildError({path: stderr})
    return stdout


def build_many(
    paths: Sequence[Path],
    workers: int | None = None,
    *,
    kustomize: Kustomize | None = None,
    done: Callable[[Path], None] | None = None,
) -> dict[Path, str]:
    """Build every path in parallel (``done`` is called with each as its build ends, in this
    thread); one KustomizeBuildError lists every failed path."""
    runner = kustomize or find_kustomize()
    results: dict[Path, tuple[str, str | None]] = {}
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        running = {pool.submit(_run_build, runner, path): path for path in paths}
        for future in as_completed(running):
            results[running[future]] = future.result()
            if done is not None:
                done(running[future])
    failures = {path: err for path in paths if (err := results[path][1]) is not None}
    if failures:
        raise KustomizeBuildError(failures)
    return {path: results[path][0] for path in paths}  # in the order asked


def _run_build(runner: Kustomize, path: Path) -> tuple[str, str | None]:
    """(stdout, None) on success, ("", stderr) on failure."""
    try:
        done = subprocess.run(
            [*runner.command, str(path)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=_BUILD_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "", f"timed out after {_BUILD_TIMEOUT_S} s"
    except OSError as exc:
        return "", f"cannot run {' '.join(runner.command)}: {exc}"
    if done.returncode != 0:
        return "", _explained(done.stderr) or f"exit status {done.returncode}, no error message"
    return done.stdout, None


def _explained(stderr: str) -> str:
    """kustomize's error, led by what a remote base that git could not fetch needs."""
    if not _CLONE_FAILED.search(stderr):
        return stderr
    return (
        "a remote base could not be fetched (kustomize clones it with git at its ref: this "
        f"needs the remote reachable from here, and its credentials if private): {stderr}"
    )
