"""Where a keyword argument of a call is written in a Python file: the line a warning about one
field of a spec object points at, rather than its constructor's first line."""

from __future__ import annotations

import ast
from functools import lru_cache


def keyword_line(file: str, line: int, call: str, keyword: str) -> int:
    """The line of ``keyword=`` in the first call of ``call`` (a name, or an attribute ending in
    it) starting on ``line`` of ``file`` that passes it; ``line`` where none does (written as
    ``**mapping``, or the file no longer parses)."""
    try:
        with open(file, "rb") as source:
            calls = _calls(source.read())
    except OSError:
        return line
    for node in calls.get(line, ()):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        name = node.func.id if isinstance(node.func, ast.Name) else name
        if name == call:
            for argument in node.keywords:
                if argument.arg == keyword:
                    return argument.lineno
    return line


@lru_cache(maxsize=4)
def _calls(source: bytes) -> dict[int, list[ast.Call]]:
    """The calls of a Python ``source`` by the line they start on, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    found: dict[int, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found.setdefault(node.lineno, []).append(node)
    for calls in found.values():
        calls.sort(key=lambda node: node.col_offset)
    return found
