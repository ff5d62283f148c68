"""The names fleet.py gives its apps, clusters, environments and projects, read from its syntax
tree: what shell completion offers. fleet.py is parsed, never run (a TAB must not execute code),
so only names written as string literals, ``App(name="web", ...)``, are found. Standard library
only: every TAB pays this module's import."""

from __future__ import annotations

import ast
from pathlib import Path

# What completes -> the spec class whose name= it is.
KINDS = {"app": "App", "cluster": "Cluster", "environment": "Environment", "project": "Project"}


def defined(source: str, *kinds: str) -> list[str]:
    """The literal ``name=`` of every call to the classes of ``kinds`` (keys of `KINDS`) in
    ``source``, in order of appearance, each once; none when it does not parse."""
    classes = {KINDS[kind] for kind in kinds}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = sorted(
        (node.lineno, node.col_offset, keyword.value.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called(node.func) in classes
        for keyword in node.keywords
        if keyword.arg == "name"
        and isinstance(keyword.value, ast.Constant)
        and isinstance(keyword.value.value, str)
    )
    return list(dict.fromkeys(name for _, _, name in found))


def read(spec: Path, *kinds: str) -> list[str]:
    """`defined` names of the fleet.py at ``spec``; none when it cannot be read."""
    try:
        source = spec.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return defined(source, *kinds)


def _called(func: ast.expr) -> str:
    """``App`` for ``App(...)`` and ``fleetgen.App(...)``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""
