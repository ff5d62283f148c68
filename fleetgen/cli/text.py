"""What ``build`` and ``build --check`` print, with no command-line library imported: the
command line (`fleetgen.cli.app`) and the quick path (`fleetgen.cli.quick`) print through it
alike."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fleetgen.pipeline.api import BuildResult, CheckResult

EXIT_OK, EXIT_CHANGED = 0, 1


def shown(path: Path) -> str:
    """``path`` relative to the current folder when it is below it, else as given."""
    resolved = path.resolve()
    return str(resolved.relative_to(Path.cwd()) if resolved.is_relative_to(Path.cwd()) else path)


def count(number: int, noun: str) -> str:
    """``1 placement``, ``2 placements``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def err(message: str) -> None:
    """One line on stderr."""
    print(message, file=sys.stderr)


def print_build(result: BuildResult) -> int:
    """The warnings of a build on stderr, what it wrote on stdout; the exit code."""
    report = result.report
    for warning in result.warnings:
        err(warning.render(severity="warning"))
    for path in report.overwritten:
        err(
            f"{shown(result.out_dir / path)}: warning: this generated file was edited "
            "by hand; the edit is overwritten (change fleet.py instead)"
        )
    for finding in result.applied:
        err(f"{shown(result.out_dir / finding.path)}: warning: {finding.detail}")
    print(
        f"{shown(result.out_dir)}: {len(report.written)} written, "
        f"{report.unchanged} unchanged, {len(report.deleted)} deleted "
        f"({count(result.placements, 'placement')})"
    )
    return EXIT_OK


def print_check(result: CheckResult) -> int:
    """What ``build --check`` found: every differing file on stderr, or "up to date" on
    stdout; the exit code."""
    findings, where = result.findings, shown(result.out_dir)
    for finding in findings:
        err(f"{where}/{finding.path}: {finding.kind}: {finding.detail}")
    stale = [finding for finding in findings if finding.kind != "applied"]
    if stale and result.changed:
        err(f"changed since the last build: {', '.join(result.changed)}")
    if stale:
        err(f"{len(stale)} file(s) differ from a fresh build: run `fleetgen build` and commit")
    if len(stale) < len(findings):
        err(
            f"{len(findings) - len(stale)} file(s) fleetgen did not write would be applied by a "
            "controller: move them out of the output folder"
        )
    if findings:
        return EXIT_CHANGED
    print(f"{where} is up to date")
    return EXIT_OK
