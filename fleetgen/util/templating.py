"""Jinja2 templates shipped in ``fleetgen.templates``: fleet maps, scaffolding, fleet.py snippets.

Templates render text only (Markdown, Python, CI examples); YAML manifests are data and go through
`fleetgen.manifests.yamlio`. Python values reach ``fleet.py`` through the ``py`` filter (``repr``,
`py_literal`), or laid out over lines as ruff's formatter (and black) lays them out at a line
length through the ``layout`` filter (`formatted`): flat where it fits; else a call's arguments
on one line of their own, or one a line; a list's or dict's items one a line; two or more items
broken one a line end with a trailing comma. Strings are never split (a line too long for a
string stays so, as ruff leaves it); ruff itself is no dependency.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import jinja2


@dataclass(frozen=True, slots=True)
class Call:
    """A constructor call in a fleet.py snippet, e.g. ``Image(name="web", tag="1.0")`` or
    ``CaFile("certs/prod.pem")`` (``args`` come first)."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Code:
    """Python text written as it is: a name the module binds (``REPO``)."""

    text: str


INDENT = 4  # ruff's and black's indentation


def py_literal(value: Any) -> str:
    """``repr`` of ``value``, with strings double-quoted where that needs no escaping."""
    if isinstance(value, Call):
        args = [py_literal(arg) for arg in value.args]
        args += [f"{key}={py_literal(arg)}" for key, arg in value.kwargs.items()]
        return f"{value.name}({', '.join(args)})"
    if isinstance(value, Code):
        return value.text
    if isinstance(value, str):
        text = repr(value)
        return f'"{text[1:-1]}"' if text[0] == "'" and '"' not in value else text
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(py_literal(item) for item in value) + "]"
    return repr(value)


def formatted(
    value: Any, width: int, indent: int = 0, column: int | None = None, tail: int = 0
) -> str:
    """``value`` as ruff lays it out starting at ``column`` (default: ``indent``) on a line
    indented by ``indent``, followed on its last line by ``tail`` characters (a comma, a
    parenthesis): continuation lines are indented absolutely."""
    flat = py_literal(value)
    start = indent if column is None else column
    items = _items(value)
    if not items or start + len(flat) + tail <= width:
        return flat
    deeper = indent + INDENT
    if isinstance(value, Call):
        opening, closing = f"{value.name}(", ")"
        inline = ", ".join(lead + py_literal(item) for lead, item in items)
        if deeper + len(inline) <= width:  # the arguments fit on one line of their own
            return f"{opening}\n{' ' * deeper}{inline}\n{' ' * indent}{closing}"
    else:
        opening, closing = ("{", "}") if isinstance(value, Mapping) else ("[", "]")
    comma = "," if len(items) > 1 else ""  # one item breaks inside its brackets, no comma
    body = "".join(
        f"{' ' * deeper}{lead}{formatted(item, width, deeper, deeper + len(lead), len(comma))}"
        f"{comma}\n"
        for lead, item in items
    )
    return f"{opening}\n{body}{' ' * indent}{closing}"


def _items(value: Any) -> list[tuple[str, Any]]:
    """What a broken ``value`` puts on its lines: (what leads it, the value); none for a value
    that does not break."""
    if isinstance(value, Call):
        return [("", arg) for arg in value.args] + [(f"{k}=", v) for k, v in value.kwargs.items()]
    if isinstance(value, Mapping):
        return [(f"{py_literal(key)}: ", item) for key, item in value.items()]
    if isinstance(value, list | tuple):
        return [("", item) for item in value]
    return []


def call_names(value: Any) -> set[str]:
    """The names of the calls in ``value`` (what fleet.py must import for it)."""
    if isinstance(value, Call):
        found = {value.name}
        for item in (*value.args, *value.kwargs.values()):
            found |= call_names(item)
        return found
    if isinstance(value, Mapping):
        return set().union(*(call_names(item) for item in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(call_names(item) for item in value))
    return set()


def md_cell(value: Any) -> str:
    """``value`` as text safe inside one Markdown table cell."""
    text = " ".join(str(value).split())
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


def _source(name: str) -> str:
    return resources.files("fleetgen.templates").joinpath(name).read_text("utf-8")


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_source),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["py"] = py_literal
    env.filters["layout"] = formatted
    env.filters["cell"] = md_cell
    return env


@cache
def template(path: str) -> jinja2.Template:
    """The template at ``path`` under ``fleetgen/templates/``."""
    return _environment().get_template(path)


def render(path: str, /, **context: Any) -> str:
    """The template at ``path`` rendered with ``context``."""
    return template(path).render(**context)
