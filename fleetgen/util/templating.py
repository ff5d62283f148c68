"""Jinja2 templates shipped in ``fleetgen.templates``: fleet maps, scaffolding, fleet.py snippets.

Templates render text only (Markdown, Python, CI examples); YAML manifests are data and go through
`fleetgen.manifests.yamlio`. Python values reach ``fleet.py`` through the ``py`` filter (``repr``).
"""

from __future__ import annotations

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


def py_literal(value: Any) -> str:
    """``repr`` of ``value``, with strings double-quoted where that needs no escaping."""
    if isinstance(value, Call):
        args = [py_literal(arg) for arg in value.args]
        args += [f"{key}={py_literal(arg)}" for key, arg in value.kwargs.items()]
        return f"{value.name}({', '.join(args)})"
    if isinstance(value, str):
        text = repr(value)
        return f'"{text[1:-1]}"' if text[0] == "'" and '"' not in value else text
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(py_literal(item) for item in value) + "]"
    return repr(value)


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
    env.filters["cell"] = md_cell
    return env


@cache
def template(path: str) -> jinja2.Template:
    """The template at ``path`` under ``fleetgen/templates/``."""
    return _environment().get_template(path)


def render(path: str, /, **context: Any) -> str:
    """The template at ``path`` rendered with ``context``."""
    return template(path).render(**context)
