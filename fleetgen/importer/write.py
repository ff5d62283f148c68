"""The fleet.py text of a draft: a call on one line when it fits, else its first arguments on the
call's line and each further one on a line of its own, aligned after the opening parenthesis
(`fleetgen.util.templating.Call` and ``py_literal`` give the text of each value; ``fleetgen add``
lays out what it inserts as ruff does instead, with `fleetgen.util.templating.formatted`)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from fleetgen.importer.findings import Finding
from fleetgen.util.templating import Call, call_names, py_literal

WIDTH = 100  # ruff's line length in this project, and in the fleets `init` writes
# Arguments on the call's own line; each further argument of these calls goes on a line of its
# own.
_HEADS = {
    "App": ("name", "project", "namespace"),
    "Cluster": ("name", "env", "server"),
    "Project": ("name",),
    "Environment": ("name",),
}
_INDENT = "    "


def layout(value: Any, column: int, indent: int, tail: int = 1) -> str:
    """``value`` as Python text starting at ``column`` on a line indented by ``indent``, broken
    over lines to fit `WIDTH` with the ``tail`` characters that follow it (its comma, the
    parentheses of the calls it ends): calls aligned after their parenthesis, dicts and lists
    with their items indented a level deeper."""
    flat = py_literal(value)
    if column + len(flat) + tail <= WIDTH:
        return flat
    if isinstance(value, Call):
        return _call(value, column, tail)
    if isinstance(value, str) and WIDTH - column > 20:
        parts = _pieces(value, WIDTH - column - 2)  # the parenthesis and a comma
        return "(" + ("\n" + " " * (column + 1)).join(parts) + ")"
    deeper = indent + len(_INDENT)
    if isinstance(value, Mapping) and value:
        items = [(f"{py_literal(key)}: ", item) for key, item in value.items()]
    elif isinstance(value, list | tuple) and value:
        items = [("", item) for item in value]
    else:
        return flat
    open_, close = ("{", "}") if isinstance(value, Mapping) else ("[", "]")
    body = "".join(
        f"{' ' * deeper}{lead}{layout(item, deeper + len(lead), deeper)},\n" for lead, item in items
    )
    return f"{open_}\n{body}{' ' * indent}{close}"


def _pieces(value: str, width: int) -> list[str]:
    """``value`` as string literals of at most ``width`` characters each, which Python joins
    back into it (an escape sequence never split)."""
    parts: list[str] = []
    piece = ""
    for char in value:
        if piece and len(py_literal(piece + char)) > width:
            parts.append(py_literal(piece))
            piece = ""
        piece += char
    return [*parts, py_literal(piece)]


def _call(call: Call, column: int, tail: int) -> str:
    """``Name(...)``: the arguments of `_HEADS` first on its line, each further one on a line of
    its own (other calls: packed while they fit), aligned after the parenthesis; the last one
    followed by the parenthesis and ``tail``."""
    inner = column + len(call.name) + 1
    head = _HEADS.get(call.name)
    count = len(call.args) + len(call.kwargs)
    ends = [1] * (count - 1) + [tail + 1]  # what follows each argument: ",", or ")" and tail
    texts = [py_literal(arg) for arg in call.args]
    texts += [
        f"{key}=" + layout(value, inner + len(key) + 1, inner, ends[len(call.args) + index])
        for index, (key, value) in enumerate(call.kwargs.items())
    ]
    keys = [""] * len(call.args) + list(call.kwargs)
    lines: list[str] = []
    for key, text, end in zip(keys, texts, ends, strict=True):
        fits = bool(lines) and inner + len(lines[-1]) + 2 + len(text) + end <= WIDTH
        packs = head is None or not key or key in head
        if fits and packs and "\n" not in lines[-1] + text:
            lines[-1] += ", " + text
        else:
            lines.append(text)
    return f"{call.name}(" + (",\n" + " " * inner).join(lines) + ")"


def fleet_text(fleet: Mapping[str, Any], what: str, findings: Sequence[Finding]) -> str:
    """fleet.py: a docstring saying where it came from (``what``), the findings as comments,
    the imports it needs and ``fleet = Fleet(...)`` with one argument a line, lists of calls
    one call a line."""
    about = (
        f'"""The {fleet["name"]} fleet, imported by `fleetgen import` from {what}. Review it, '
        "then `fleetgen build` compiles it into output/; commit both. The files it came from "
        "are untouched: retire them once the engines read output/."
    )
    lines = [*textwrap.wrap(about, WIDTH - 1), '"""', ""]
    if findings:
        lines += ["# fleetgen import could not map everything; fix each, then delete its lines:"]
        lines += [_comment(finding.render()) for finding in findings]
        lines += [""]
    names = sorted({"Fleet"} | call_names(fleet), key=lambda name: (name.lower(), name))  # isort's
    lines += ["from fleetgen import (", *(f"{_INDENT}{name}," for name in names), ")", ""]
    lines += ["fleet = Fleet(", *(_argument(key, value) for key, value in fleet.items()), ")"]
    return "\n".join(lines) + "\n"


def _argument(key: str, value: Any) -> str:
    column = 2 * len(_INDENT)
    if isinstance(value, list) and value and isinstance(value[0], Call):
        body = "".join(f"{' ' * column}{layout(item, column, column)},\n" for item in value)
        return f"{_INDENT}{key}=[\n{body}{_INDENT}],"
    return f"{_INDENT}{key}={layout(value, len(_INDENT) + len(key) + 1, len(_INDENT))},"


def _comment(text: str) -> str:
    return "\n".join(
        textwrap.wrap(text, WIDTH - 1, initial_indent="# ", subsequent_indent="#     ")
    )
