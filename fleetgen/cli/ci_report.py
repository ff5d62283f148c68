"""The pull-request report of fleetgen's CI action (``action.yml``; docs/ci.md): `report` runs
``build --check``, ``validate`` and ``diff`` as a user would and writes the comment and the
artifact; `main` is its command line, whose help (`_command`'s docstring) says what it writes and
when it fails:

    python -m fleetgen.ci_report --base origin/main [--out fleet-report] [--spec fleet.py]
        [--render] [--max-chars 65000]

The comment starts with `MARKER` (the publishing job finds its earlier comment by it and updates
that) and stays within `COMMENT_CHARS` (the diff's sections cut to fit).
"""

from __future__ import annotations

import html
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

MARKER = "<!-- fleetgen-report -->"
COMMENT_CHARS = 65_000  # GitHub refuses comments over 65,536 characters
MAX_CHECK_LINES = 30  # lines of build --check's output in the comment
FULL_DIFF_CHARS = 100_000_000  # the artifact's diff.md: in effect uncut
FOOTER = (
    "\n---\n_The full report (uncut `diff.md`, `diff.json`, `validate.sarif`, `check.txt`) is "
    "this run's artifact._\n"
)


@dataclass(frozen=True, slots=True)
class Ran:
    """One fleetgen command: its exit code and output."""

    code: int
    stdout: str
    stderr: str


def fleetgen(*args: str) -> Ran:
    """Run ``fleetgen ARGS`` with this Python (the fleetgen installed beside this module)."""
    done = subprocess.run(
        [sys.executable, "-m", "fleetgen", *args], capture_output=True, text=True, check=False
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def report(
    base: str,
    out: Path,
    spec: str | None = None,
    *,
    render: bool = False,
    limit: int = COMMENT_CHARS,
) -> int:
    """Run the three commands against ``base`` and write the comment (within ``limit``
    characters) and the full report into ``out``; the exit code (`_command`'s docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    where = ["--spec", spec] if spec else []
    check = fleetgen("build", "--check", *where)
    (out / "check.txt").write_text(check.stdout + check.stderr, encoding="utf-8")
    validated = fleetgen("validate", "--format", "sarif", "--quiet", *where)
    (out / "validate.sarif").write_text(validated.stdout, encoding="utf-8")
    diff_args = ["diff", "--base", base, "--format", "markdown", "--quiet", *where]
    diff_args += ["--render"] * render
    full = fleetgen(
        *diff_args, "--max-chars", str(FULL_DIFF_CHARS), "--json-file", str(out / "diff.json")
    )
    (out / "diff.md").write_text(full.stdout or full.stderr, encoding="utf-8")
    head = _header(check, validated)
    budget = limit - len(head) - len(FOOTER)
    diff = fleetgen(*diff_args, "--max-chars", str(budget)) if len(full.stdout) > budget else full
    body = head + (diff.stdout or _failed("fleetgen diff", diff) + "\n") + FOOTER
    (out / "comment.md").write_text(body, encoding="utf-8")
    return int(check.code != 0 or validated.code != 0 or diff.code > 1)


def _header(check: Ran, validated: Ran) -> str:
    """The comment's marker and the outcome of ``build --check`` and ``validate``."""
    checked = (
        "- :white_check_mark: `fleetgen build --check`: output is up to date"
        if check.code == 0
        else _failed("fleetgen build --check", check)
    )
    # blank lines between: a <details> block ends only at one
    return "\n\n".join([MARKER, checked, _validated(validated)]) + "\n\n"


def _validated(validated: Ran) -> str:
    """One line: what ``validate`` found, by level, from its SARIF."""
    try:
        runs = json.loads(validated.stdout)["runs"]
    except (ValueError, KeyError, TypeError):
        return _failed("fleetgen validate", validated)
    levels = [result.get("level", "warning") for run in runs for result in run.get("results", [])]
    errors, warnings = levels.count("error"), levels.count("warning")
    mark = ":x:" if validated.code else ":white_check_mark:"
    return f"- {mark} `fleetgen validate`: {errors} error(s), {warnings} warning(s)" + (
        " (code scanning shows them where SARIF is uploaded)" if errors or warnings else ""
    )


def _failed(command: str, ran: Ran) -> str:
    """A failed command and the start of what it said, folded (as HTML: no fence to break)."""
    said = (ran.stdout + ran.stderr).splitlines()
    if len(said) > MAX_CHECK_LINES:
        said = [*said[:MAX_CHECK_LINES], f"… {len(said) - MAX_CHECK_LINES} more lines"]
    shown = html.escape("\n".join(said))
    return (
        f"- :x: `{command}` exited {ran.code}\n\n<details><summary>its output</summary>\n\n"
        f"<pre>{shown}</pre>\n\n</details>"
    )


# One command, no subcommands; plain (click-style) help, as `fleetgen.cli.app`'s; `-h` kept.
app = typer.Typer(
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.command()
def _command(
    base: Annotated[str, typer.Option("--base", metavar="REF", help="the pull request's base ref")],
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="the report's folder")] = Path(
        "fleet-report"
    ),
    spec: Annotated[
        str | None,
        typer.Option(
            "--spec", metavar="FILE", help="the fleet spec (default: fleet.py here or above)"
        ),
    ] = None,
    render: Annotated[bool, typer.Option("--render", help="diff --render")] = False,
    max_chars: Annotated[
        int, typer.Option("--max-chars", metavar="N", help="the comment's length at most")
    ] = COMMENT_CHARS,
) -> None:
    """Run ``build --check``, ``validate --format sarif`` and ``diff --format markdown`` against
    the pull request's base, as a user would, and write what the publishing job posts into one
    folder: comment.md, the pull-request comment (a marker first, by which the publishing job
    finds and updates its earlier comment; within --max-chars, the diff's sections cut to fit);
    diff.md (uncut), diff.json, validate.sarif and check.txt, the full report, kept as the run's
    artifact.

    Exit 1 when output/ is stale, validate finds an error or a ref does not compile; else 0 (a
    diff with changes is no failure). It runs the pull request's fleet.py: run it in a job whose
    token is read-only, and post the comment from another one.
    """
    raise typer.Exit(report(base, out, spec, render=render, limit=max_chars))


def main(argv: list[str] | None = None) -> None:
    """``python -m fleetgen.cli.ci_report``: `report` with the command line's arguments."""
    app(args=argv, prog_name="python -m fleetgen.cli.ci_report")


if __name__ == "__main__":
    main()
