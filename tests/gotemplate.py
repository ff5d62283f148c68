"""A Go ``text/template`` evaluator for the subset fleetgen emits (tests only).

Supported: plain text; actions holding one command: a field chain (``.a.b``), a string literal
(interpreted ``"..."`` or raw ```...```), or ``index <field> <string>...``; trim markers
(``{{- `` and `` -}}``). Anything else raises `Unsupported`, so a test fails as soon as emitted
templates use more than this evaluator understands. Semantics follow Go with
``missingkey=error``: a field chain naming a missing map key is an error, while ``index`` of a
missing key yields the element's zero value (``""`` for Argo CD's ``map[string]string`` labels).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

_SPACE = " \t\r\n"
_FIELD = re.compile(r"(\.[A-Za-z_][A-Za-z0-9_]*)+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}


class TemplateError(Exception):
    """The template fails to parse or to execute (Go would return an error)."""


class Unsupported(TemplateError):
    """Valid Go perhaps, but outside the subset this evaluator implements."""


def render(template: str, data: Mapping[str, Any]) -> str:
    """Execute ``template`` against ``data`` as Go's text/template would."""
    out: list[str] = []
    pos, trim_left_of_next = 0, False
    while True:
        start = template.find("{{", pos)
        text = template[pos:] if start < 0 else template[pos:start]
        if trim_left_of_next:
            text = text.lstrip(_SPACE)
        if start < 0:
            out.append(text)
            return "".join(out)
        body = start + 2
        if template[body : body + 1] == "-" and template[body + 1 : body + 2] in tuple(_SPACE):
            text, body = text.rstrip(_SPACE), body + 1
        out.append(text)
        tokens, pos, trim_left_of_next = _lex_action(template, body)
        out.append(_print(_evaluate(tokens, data)))


def render_tree(value: Any, data: Mapping[str, Any]) -> Any:
    """Every string of ``value`` (map keys too) rendered, as Argo CD renders a template."""
    if isinstance(value, str):
        return render(value, data)
    if isinstance(value, dict):
        return {render(key, data): render_tree(item, data) for key, item in value.items()}
    if isinstance(value, list):
        return [render_tree(item, data) for item in value]
    return value


def _lex_action(template: str, pos: int) -> tuple[list[tuple[str, str]], int, bool]:
    """Tokens of the action starting at ``pos``; the position after it; whether it trims right."""
    tokens: list[tuple[str, str]] = []
    if template[pos:].lstrip(_SPACE).startswith("/*"):
        raise Unsupported("comments")
    while True:
        spaced = pos < len(template) and template[pos] in _SPACE
        while pos < len(template) and template[pos] in _SPACE:
            pos += 1
        if spaced and template.startswith("-}}", pos):
            return tokens, pos + 3, True
        if template.startswith("}}", pos):
            return tokens, pos + 2, False
        if pos >= len(template):
            raise TemplateError("unclosed action")
        token, pos = _token(template, pos)
        tokens.append(token)


def _token(template: str, pos: int) -> tuple[tuple[str, str], int]:
    char = template[pos]
    if char == '"':
        return _interpreted(template, pos)
    if char == "`":
        end = template.find("`", pos + 1)
        if end < 0:
            raise TemplateError("unterminated raw quoted string")
        return ("string", template[pos + 1 : end].replace("\r", "")), end + 1
    for kind, pattern in (("field", _FIELD), ("ident", _IDENT)):
        match = pattern.match(template, pos)
        if match:
            return (kind, match.group()), match.end()
    raise Unsupported(f"token at {template[pos : pos + 10]!r}")


def _interpreted(template: str, pos: int) -> tuple[tuple[str, str], int]:
    """A Go interpreted string literal starting at ``pos`` (the opening quote)."""
    out = bytearray()
    pos += 1
    while True:
        if pos >= len(template) or template[pos] == "\n":
            raise TemplateError("unterminated quoted string")
        char = template[pos]
        if char == '"':
            return ("string", out.decode("utf-8")), pos + 1
        if char != "\\":
            out += char.encode("utf-8")
            pos += 1
            continue
        escape = template[pos + 1 : pos + 2]
        if escape in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[escape].encode()
            pos += 2
        elif escape in ("x", "u", "U"):
            digits = {"x": 2, "u": 4, "U": 8}[escape]
            number = int(_digits(template, pos + 2, digits, 16), 16)
            out += bytes([number]) if escape == "x" else chr(number).encode("utf-8")
            pos += 2 + digits
        elif escape and escape in "01234567":
            number = int(_digits(template, pos + 1, 3, 8), 8)
            if number > 255:
                raise TemplateError(f"octal escape value {number} > 255")
            out += bytes([number])
            pos += 4
        else:
            raise TemplateError(f"unknown escape sequence \\{escape}")


def _digits(template: str, pos: int, count: int, base: int) -> str:
    digits = template[pos : pos + count]
    allowed = "01234567" if base == 8 else string.hexdigits
    if len(digits) != count or any(d not in allowed for d in digits):
        raise TemplateError(f"bad escape digits {digits!r}")
    return digits


def _evaluate(tokens: list[tuple[str, str]], data: Mapping[str, Any]) -> Any:
    kinds = [kind for kind, _ in tokens]
    if kinds == ["field"]:
        return _field(data, tokens[0][1])
    if kinds == ["string"]:
        return tokens[0][1]
    if (
        len(tokens) >= 3
        and tokens[0] == ("ident", "index")
        and kinds[1] == "field"
        and all(kind == "string" for kind in kinds[2:])
    ):
        value = _field(data, tokens[1][1])
        for _, key in tokens[2:]:
            if not isinstance(value, Mapping):
                raise TemplateError(f"can't index item of type {type(value).__name__}")
            value = value.get(key, "")
        return value
    raise Unsupported(f"action {tokens}")


def _field(data: Any, chain: str) -> Any:
    value = data
    for name in chain.split(".")[1:]:
        if not isinstance(value, Mapping):
            raise TemplateError(f"can't evaluate field {name} in {type(value).__name__}")
        if name not in value:
            raise TemplateError(f"map has no entry for key {name!r}")
        value = value[name]
    return value


def _print(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int):
        return str(value)
    raise Unsupported(f"printing a {type(value).__name__}")
