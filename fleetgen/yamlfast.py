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
    """Writes documents as the libyaml dumper does; memoizes the text of every string seen."""

    def __init__(self, must_quote: Callable[[str], bool]) -> None:
        """``must_quote``: whether a string must not be written plain (see `scalar`)."""
        self._must_quote = must_quote
        self._values: dict[str, str] = {}  # s -> " text\n", after ":" or "-"
        self._keys: dict[str, str] = {}  # s -> "text:"

    def document(self, doc: Any) -> str | None:
        """The text of a non-empty dict or list document (without ``---``), or None."""
        out: list[str] = []
        try:
            if type(doc) is dict and doc:
                self._mapping(out, doc, "", "")
            elif type(doc) in (list, tuple) and doc:
                self._sequence(out, doc, "", "")
            else:
                return None
        except _Unsupported:
            return None
        return "".join(out)

    def _mapping(self, out: list[str], mapping: dict[Any, Any], indent: str, lead: str) -> None:
        """Append ``mapping``'s lines at ``indent``; ``lead`` starts the first line."""
        if len(indent) > _MAX_INDENT:
            raise _Unsupported
        keys, values = self._keys, self._values
        for key, value in mapping.items():
            text = keys.get(key) if type(key) is str else None
            out.append(lead + (text if text is not None else self._key(key)))
            lead = indent
            kind = type(value)
            if kind is str:  # the common cases, inlined
                text = values.get(value)
                out.append(text if text is not None else self._value(value))
            elif kind is dict and value:  # a mapping under a key: on the next lines, indented
                out.append("\n")
                deeper = indent + "  "
                self._mapping(out, value, deeper, deeper)
            else:
                self._node(out, value, indent, False)

    def _sequence(self, out: list[str], items: list[Any], indent: str, lead: str) -> None:
        """Append ``items``' lines at ``indent``; ``lead`` starts the first line."""
        if len(indent) > _MAX_INDENT:
            raise _Unsupported
        for item in items:
            out.append(lead + "-")
            lead = indent
            self._node(out, item, indent, True)

    def _node(self, out: list[str], node: Any, indent: str, after_dash: bool) -> None:
        """Append ``node``, written after a ``key:`` or ``-`` at ``indent``, and a line end."""
        kind = type(node)
        if kind is str:
            text = self._values.get(node)
            out.append(text if text is not None else self._value(node))
        elif kind is dict or kind is list or kind is tuple:
            self._collection(out, node, indent, after_dash)
        else:
            out.append(_non_string(node))

    def _collection(self, out: list[str], node: Any, indent: str, after_dash: bool) -> None:
        """A non-empty collection after a dash starts on the dash's line, indented past it;
        after a key it starts on the next line, a sequence without indentation."""
        if not node:
            out.append(" {}\n" if type(node) is dict else " []\n")
            return
        out.append(" " if after_dash else "\n")
        if type(node) is dict:
            deeper = indent + "  "
            self._mapping(out, node, deeper, "" if after_dash else deeper)
        elif after_dash:
            self._sequence(out, node, indent + "  ", "")
        else:
            self._sequence(out, node, indent, indent)

    def _value(self, s: str) -> str:
        """Memoized text of a string after ``key:`` or ``-``, with its line end."""
        text = scalar(s, self._must_quote)
        if text is None:
            raise _Unsupported
        return _remember(self._values, s, f" {text}\n")

    def _key(self, key: Any) -> str:
        """Memoized ``key:`` for a string key that libyaml writes as a simple key."""
        if type(key) is not str or len(key) > _MAX_KEY:
            raise _Unsupported
        text = scalar(key, self._must_quote)
        if text is None:
            raise _Unsupported
        return _remember(self._keys, key, f"{text}:")


def _remember(cache: dict[str, str], s: str, text: str) -> str:
    """Store and return ``text``; a full cache starts over (strings such as names are unique
    per document, so the caches would otherwise grow with the output)."""
    if len(cache) >= _MAX_CACHE:
        cache.clear()
    cache[s] = text
    return text


def _non_string(node: Any) -> str:
    """The text of a bool, int or None after ``key:`` or ``-``, with its line end."""
    kind = type(node)
    if kind is bool:
        return " true\n" if node else " false\n"
    if kind is int:
        return f" {node}\n"
    if node is None:
        return " null\n"
    raise _Unsupported
