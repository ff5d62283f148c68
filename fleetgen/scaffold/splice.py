"""Text edits of fleet.py in the style of what they touch: an element appended to a bracketed
sequence (a `syntax.Site`) or put after one of its items, in the indentation and trailing-comma
style of its neighbours (an element given as a `Call` laid out where it goes as ruff's formatter
lays it out at the file's line length); names added to the ``from fleetgen import ...``, sorted
in; and the edits spliced into the source, every other byte kept."""

from __future__ import annotations

from collections.abc import Sequence

from fleetgen.scaffold.syntax import EditError, Item, Site, Source, bound_names, import_site
from fleetgen.util.linelength import DEFAULT_WIDTH
from fleetgen.util.templating import Call, formatted, py_literal

INDENT = "    "
Span = tuple[int, int, str]  # (start, end, text): source[start:end] replaced by text
Edit = tuple[int, str]  # (offset, text): text inserted at offset
# What an edit writes: Python text (continuation lines indented from column 0), or a call laid
# out where it goes.
Element = str | Call


def append(source: str, site: Site, element: Element, width: int = DEFAULT_WIDTH) -> list[Edit]:
    """Edits (offset, text) appending ``element`` to ``site`` in the style of its items (a call
    laid out to ``width``)."""
    if not site.items:
        indent = _indent_at(source, site.open)
        body = _indented(_lines(element, indent + INDENT, width), indent + INDENT)
        if source[site.open + 1 : site.close].strip():  # comments only: keep them
            return [(_line_start(source, site.close), f"{indent}{INDENT}{body},\n")]
        return [(site.open + 1, f"\n{indent}{INDENT}{body},\n{indent}")]
    last = site.items[-1]
    after = last.comma_end if last.comma_end is not None else last.end
    comma = "," if last.comma_end is not None else ""
    fix = [] if comma else [(last.end, ",")]
    if _line_of(source, last.start) == _line_of(source, site.open):  # all on one line
        return [*fix, (after, f" {_flat(element)}{comma}")]
    indent = _indent_at(source, last.start)
    body = _indented(_lines(element, indent, width), indent)
    if _line_of(source, site.close) > _line_of(source, after):  # closing bracket on its own line
        return [*fix, (source.index("\n", after) + 1, f"{indent}{body}{comma}\n")]
    return [*fix, (after, f"\n{indent}{body}{comma}")]


def insert_after(
    source: str, site: Site, index: int, element: Element, width: int = DEFAULT_WIDTH
) -> list[Edit]:
    """Edits putting ``element`` right after item ``index`` of ``site``, in its style."""
    if index == len(site.items) - 1:
        return append(source, site, element, width)
    item, following = site.items[index], site.items[index + 1]
    assert item.comma_end is not None  # an item followed by another has its comma
    if _line_of(source, following.start) == _line_of(source, item.comma_end):  # same line
        return [(item.comma_end, f" {_flat(element)},")]
    indent = " " * (following.start - _line_start(source, following.start))
    lines = _lines(element, indent, width)
    return [(source.index("\n", item.comma_end) + 1, f"{indent}{_indented(lines, indent)},\n")]


def appended(parsed: Source, site: Site, text: str, names: Sequence[str] = ()) -> list[Span]:
    """``text`` appended at ``site`` (`append`), with the imports of what of ``names`` (fleetgen
    names ``text`` calls) the module lacks."""
    return _spans(with_imports(parsed, append(parsed.text, site, text), names))


def with_imports(parsed: Source, edits: list[Edit], names: Sequence[str]) -> list[Edit]:
    """``edits`` and those importing from fleetgen what of ``names`` the module lacks."""
    missing = sorted(set(names) - bound_names(parsed))
    return [*edits, *_import_edits(parsed, missing)] if missing else edits


def applied(source: str, edits: list[Edit]) -> str:
    """``source`` with the insertions ``edits``."""
    return spliced(source, _spans(edits))


def spliced(source: str, spans: list[Span]) -> str:
    """``source`` with each span replaced (spans at one offset end up in the order listed)."""
    for start, end, text in sorted(reversed(spans), key=lambda span: span[0], reverse=True):
        source = source[:start] + text + source[end:]
    return source


def _spans(edits: list[Edit]) -> list[Span]:
    return [(offset, offset, text) for offset, text in edits]


def _import_edits(parsed: Source, missing: list[str]) -> list[Edit]:
    """Edits adding ``missing`` to the ``from fleetgen import ...`` statement, sorted in."""
    if "*" in bound_names(parsed):
        return []
    site = import_site(parsed)
    if site is None:
        raise EditError(
            f"fleet.py has no `from fleetgen import ...`; add one importing {', '.join(missing)}", 1
        )
    groups: dict[Item | None, list[str]] = {}
    for name in missing:
        groups.setdefault(next((i for i in site.items if i.name > name), None), []).append(name)
    return [
        edit
        for later, names in groups.items()
        for edit in _import_names(parsed.text, site, later, names)
    ]


def _import_names(source: str, site: Site, later: Item | None, names: list[str]) -> list[Edit]:
    """Insert ``names`` before the imported name ``later`` (None: after the last one)."""
    if later is None:
        return append(source, site, ",\n".join(names))
    if _line_of(source, later.start) == _line_of(source, site.open):
        return [(later.start, "".join(f"{name}, " for name in names))]
    indent = _indent_at(source, later.start)
    return [(later.start, "".join(f"{name},\n{indent}" for name in names))]


def _lines(element: Element, indent: str, width: int) -> list[str]:
    """``element``'s lines at ``indent`` (followed by its comma), continuation lines indented
    from column 0."""
    if isinstance(element, str):
        return element.splitlines()
    return formatted(element, width - len(indent), tail=1).splitlines()


def _flat(element: Element) -> str:
    """``element`` on one line."""
    if isinstance(element, str):
        return " ".join(line.strip() for line in element.splitlines())
    return py_literal(element)


def _indented(lines: list[str], indent: str) -> str:
    return "\n".join([lines[0], *(indent + line if line else line for line in lines[1:])])


def _line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset)


def _line_start(source: str, offset: int) -> int:
    return source.rfind("\n", 0, offset) + 1


def _indent_at(source: str, offset: int) -> str:
    start = _line_start(source, offset)
    line = source[start:offset]
    return line[: len(line) - len(line.lstrip())]
