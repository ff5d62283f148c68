"""An edited element of fleet.py laid out again as ruff lays it out (`templating.formatted`), so
that what an edit changes keeps the file formatted; nothing outside the element moves.

An element is laid out again only when it starts its line and is plain data: calls, dicts,
lists, strings, numbers and names, without comments (a comment would be lost) — else it stays
as the edit left it.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Any

import libcst as cst

from fleetgen.scaffold.syntax import Source
from fleetgen.util.templating import Call, Code, formatted


class _NotData(Exception):
    """An expression that is not plain data."""


def relaid(parsed: Source, node: cst.CSTNode, width: int) -> str:
    """``parsed``'s text with ``node`` (one of its nodes: an expression, or a keyword argument
    whose value is laid out after its ``keyword=``) laid out at ``width`` where it stands, what
    follows it on its last line counted as ruff counts it."""
    source = parsed.text
    start = parsed.start(node)
    line_start = source.rfind("\n", 0, start) + 1
    if source[line_start:start].strip():
        return source  # it shares its line with what precedes it: ruff would break that too
    indent = start - line_start
    expression = node
    if isinstance(node, cst.Arg):
        if node.keyword is None:
            return source
        expression = node.value
        start = parsed.start(expression)
    end = parsed.end(expression)
    value = _data(source[start:end])
    if value is None:
        return source
    line_end = source.find("\n", end)
    tail = len(source[end : line_end if line_end >= 0 else len(source)].rstrip())
    laid = formatted(value, width, indent, start - line_start, tail)
    return source[:start] + laid + source[end:]


def _data(text: str) -> Any:
    """The value ``text`` writes, None when it is not plain data or holds a comment."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        if any(token.type == tokenize.COMMENT for token in tokens):
            return None
        return _value(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, tokenize.TokenError, _NotData):
        return None


def _value(node: ast.expr) -> Any:
    """The data ``node`` writes (`Call` for a call, `Code` for a name); `_NotData` else."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
        return node.value
    if isinstance(node, ast.Name):
        return Code(node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if any(keyword.arg is None for keyword in node.keywords):
            raise _NotData  # **kwargs
        kwargs = {str(k.arg): _value(k.value) for k in node.keywords}
        return Call(node.func.id, kwargs, tuple(_value(arg) for arg in node.args))
    if isinstance(node, ast.Dict) and all(key is not None for key in node.keys):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True) if k}
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    raise _NotData


def kept_laid_out(
    before: Source, old: cst.CSTNode | None, after: Source, new: cst.CSTNode, width: int
) -> str:
    """``after``'s text with ``new`` (what the edit made of ``before``'s ``old``; None: new)
    laid out again where ``old`` was laid out as ruff lays it out, or where the edit made a line
    longer than ``width``: a file written in another style keeps it, and its diff stays small."""
    kept = old is not None and relaid(before, old, width) == before.text
    had = set() if old is None else set(_lines(before, old))
    if kept or any(len(line) > width and line not in had for line in _lines(after, new)):
        return relaid(after, new, width)
    return after.text


def _lines(parsed: Source, node: cst.CSTNode) -> list[str]:
    """The lines ``node`` stands on."""
    text = parsed.text
    first = text.rfind("\n", 0, parsed.start(node)) + 1
    last = text.find("\n", parsed.end(node))
    return text[first : last if last >= 0 else None].split("\n")
