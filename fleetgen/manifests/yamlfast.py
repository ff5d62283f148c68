"""A pure-Python writer for the common subset of YAML documents, byte for byte libyaml's output.

libyaml's emitter goes through a Python node tree per document; for the documents fleetgen
writes most (dicts, lists, str, int, bool, None) this writes the same text directly, laid out as
PyYAML's CSafeDumper does with ``default_flow_style=False``, ``sort_keys=False`` and no line
width: two-space indentation, sequences not indented inside mappings, a mapping or sequence in a
sequence item starting on the ``- `` line, ``{}`` and ``[]`` for empty collections.

Strings are limited to printable ASCII, where libyaml picks between plain and single quotes only
(`scalar`). Anything else (floats, non-str keys, other types, non-ASCII, tabs, line breaks, long
strings or keys, deep nesting) makes `BlockWriter.document` return None, and the caller falls
back to libyaml for that document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["BlockWriter", "scalar"]

# First characters that make libyaml's analyze_scalar refuse a plain scalar in block context.
_INDICATOR_FIRST = frozenset("#,[]{}&*!|>'\"%@`")
# First characters that are indicators when followed by a space or the end of the scalar.
_INDICATOR_BEFORE_SPACE = frozenset("-?:")
_MAX_VALUE = 1024  # longer strings fall back (libyaml does not wrap them; not worth the doubt)
_MAX_KEY = 128  # libyaml writes longer keys in the "? key" form
_MAX_INDENT = 2 * 64  # deeper nesting falls back, far from Python's recursion limit
_MAX_CACHE = 1 << 16  # memoized strings; the caches are cleared when they reach this size


class _Unsupported(Exception):
    """Raised from inside a document for something the fast path does not reproduce."""


def _plain_allowed(s: str) -> bool:
    """libyaml's ``block_plain_allowed`` for a non-empty printable ASCII string."""
    first = s[0]
    if first == " " or s[-1] == " " or first in _INDICATOR_FIRST:
        return False
    if first in _INDICATOR_BEFORE_SPACE and (len(s) == 1 or s[1] == " "):
        return False
    if s.startswith(("---", "...")):
        return False
    return s[-1] != ":" and ": " not in s and " #" not in s


def scalar(s: str, must_quote: Callable[[str], bool]) -> str | None:
    """``s`` as libyaml writes it in block context (plain or single-quoted), or None.

    ``must_quote(s)`` is the dumper's resolver test: true when a plain ``s`` would be read as
    something else. None for strings outside printable ASCII or longer than 1024 characters.
    """
    if len(s) > _MAX_VALUE or not (s.isascii() and s.isprintable()):
        return None
    if s and _plain_allowed(s) and not must_quote(s):
        return s
    return "'" + s.replace("'", "''") + "'"


class BlockWriter:
    """Writes documents as the libyaml dumper does; memoizes the text of every string seen.

    The memos are plain dicts read by subscript, the cheapest lookup: a miss raises KeyError,
    and the mapping that met it is written again once `_learn` has memoized all of its keys
    and strings.
    """

    def __init__(self, must_quote: Callable[[str], bool]) -> None:
        """``must_quote``: whether a string must not be written plain (see `scalar`)."""
        self._must_quote = must_quote
        self._values: dict[str, str] = {}  # s -> " text\n", after ":" or "-"
        self._keys: dict[str, dict[str, str]] = {}  # indent -> (s -> "<indent>text:")

    def document(self, doc: Any) -> str | None:
        """The text of a non-empty dict or list document (without ``---``), or None."""
        if len(self._values) >= _MAX_CACHE:  # only between documents: see `_learn`
            self._values.clear()
        out: list[str] = []
        try:
            if type(doc) is dict and doc:
                self._mapping(out, doc, "")
            elif type(doc) in (list, tuple) and doc:
                self._sequence(out, doc, "")
            else:
                return None
        except _Unsupported:
            return None
        return "".join(out)

    def _mapping(self, out: list[str], mapping: dict[Any, Any], indent: str) -> None:
        """Append ``mapping``'s lines, its keys at ``indent``."""
        keys = self._keys.get(indent)
        if keys is None:
            if len(indent) > _MAX_INDENT:
                raise _Unsupported
            keys = self._keys[indent] = {}
        values, append, start = self._values, out.append, len(out)
        try:
            for key, value in mapping.items():
                kind = type(value)
                if kind is str:  # the common cases, inlined
                    append(keys[key] + values[value])
                elif kind is dict and value:  # a mapping under a key: on the next lines
                    append(keys[key] + "\n")
                    self._mapping(out, value, indent + "  ")
                else:
                    append(keys[key])
                    self._after_key(out, value, indent)
        except KeyError:  # a key or string not memoized yet (nested mappings catch their own)
            del out[start:]
            self._learn(mapping, indent)
            self._mapping(out, mapping, indent)

    def _learn(self, mapping: dict[Any, Any], indent: str) -> None:
        """Memoize the text of every key and string value of ``mapping``.

        A full memo starts over (strings such as names are unique per document, so the memos
        would otherwise grow with the output): the keys' here, as only this mapping is being
        written at this indent (its ancestors' keys are less indented); the strings' between
        documents, as they are shared by every level.
        """
        keys, values = self._keys[indent], self._values
        if len(keys) >= _MAX_CACHE:
            keys.clear()
        for key, value in mapping.items():
            if type(key) is not str or len(key) > _MAX_KEY:  # libyaml: "? key" form
                raise _Unsupported
            if key not in keys:
                keys[key] = indent + self._text(key) + ":"
            if type(value) is str and value not in values:
                values[value] = self._value(value)

    def _sequence(self, out: list[str], items: list[Any] | tuple[Any, ...], indent: str) -> None:
        """Append the lines of ``items``, their dashes at ``indent``."""
        if len(indent) > _MAX_INDENT:
            raise _Unsupported
        dash, values = indent + "-", self._values
        for item in items:
            if type(item) is str:
                text = values.get(item)
                if text is None:
                    text = values[item] = self._value(item)
                out.append(dash + text)
            else:
                out.append(dash)
                self._after_dash(out, item, indent)

    def _after_key(self, out: list[str], node: Any, indent: str) -> None:
        """Append a non-string ``node`` written after ``key:`` at ``indent``: a collection on
        the next lines (a mapping indented, a sequence not), or a scalar and the line end."""
        kind = type(node)
        if kind is dict and node:
            out.append("\n")
            self._mapping(out, node, indent + "  ")
        elif (kind is list or kind is tuple) and node:
            out.append("\n")
            self._sequence(out, node, indent)
        else:
            out.append(_non_string(node))

    def _after_dash(self, out: list[str], node: Any, indent: str) -> None:
        """Append a non-string ``node`` written after ``-`` at ``indent``: a collection starts
        on the dash's line, indented past it; or a scalar and the line end."""
        kind = type(node)
        if (kind is dict or kind is list or kind is tuple) and node:
            deeper, start = indent + "  ", len(out)
            if kind is dict:
                self._mapping(out, node, deeper)
            else:
                self._sequence(out, node, deeper)
            out[start] = " " + out[start][len(deeper) :]  # its first line: after "- ", unindented
        else:
            out.append(_non_string(node))

    def _value(self, s: str) -> str:
        """The text of a string after ``key:`` or ``-``, with its line end."""
        return f" {self._text(s)}\n"

    def _text(self, s: str) -> str:
        """``s`` plain or quoted (`scalar`); _Unsupported if libyaml would write it otherwise."""
        text = scalar(s, self._must_quote)
        if text is None:
            raise _Unsupported
        return text


def _non_string(node: Any) -> str:
    """The text of an empty collection, bool, int or None after ``key:`` or ``-``, with its
    line end."""
    kind = type(node)
    if kind is dict:
        return " {}\n"
    if kind is list or kind is tuple:
        return " []\n"
    if kind is bool:
        return " true\n" if node else " false\n"
    if kind is int:
        return f" {node}\n"
    if node is None:
        return " null\n"
    raise _Unsupported
