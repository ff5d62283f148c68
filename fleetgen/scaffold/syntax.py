"""fleet.py's concrete syntax tree (libcst), read to find where an edit goes: the module-level
``fleet = Fleet(...)``, its list arguments (literal, or a name bound once to one), the element of
a list written with a given ``name=``, a call's keyword arguments, the names the module binds and
its ``from fleetgen import ...``; each bracketed sequence as a `Site` of offsets in the text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


class EditError(Exception):
    """fleet.py cannot be edited automatically; the message says what to add by hand."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Item:
    """One element of a bracketed sequence: where its value ends and its comma, if any, ends."""

    name: str  # the imported name, for import lists; "" for list elements
    start: int
    end: int
    comma_end: int | None


@dataclass(frozen=True, slots=True)
class Site:
    """A bracketed, comma-separated sequence in the source: a list or an import's names."""

    open: int  # offset of "[" or "(" (of the first name, for an import without parentheses)
    close: int  # offset of "]" or ")" (end of the last name, for an import without parentheses)
    items: tuple[Item, ...]


class Source:
    """The source with its syntax tree and node positions as string offsets."""

    def __init__(self, source: str) -> None:
        self.text = source
        try:
            self.wrapper = MetadataWrapper(cst.parse_module(source))
        except cst.ParserSyntaxError as error:
            raise EditError(f"cannot parse fleet.py: {error.message}", error.raw_line) from None
        self.positions = self.wrapper.resolve(PositionProvider)
        self._starts = [0]
        for line in source.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))

    def range(self, node: cst.CSTNode) -> CodeRange:
        return self.positions[node]

    def line(self, node: cst.CSTNode) -> int:
        return self.range(node).start.line

    def start(self, node: cst.CSTNode) -> int:
        position = self.range(node).start
        return self._starts[position.line - 1] + position.column

    def end(self, node: cst.CSTNode) -> int:
        position = self.range(node).end
        return self._starts[position.line - 1] + position.column

    def statements(self) -> Iterator[cst.BaseSmallStatement]:
        for statement in self.wrapper.module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                yield from statement.body


def keyword_arg(call: cst.Call, keyword: str) -> cst.Arg | None:
    """The argument ``keyword=`` of ``call``, None when it has none."""
    return next((a for a in call.args if a.keyword and a.keyword.value == keyword), None)


def arguments(parsed: Source, call: cst.Call) -> Site:
    """The arguments of ``call`` as a site to append an argument to."""
    found = tuple(_item(parsed, "", a.value, a.value, a.comma) for a in call.args)
    return Site(parsed.text.index("(", parsed.end(call.func)), parsed.end(call) - 1, found)


def site(parsed: Source, value: cst.List | cst.Dict) -> Site:
    """The elements of a list or dict literal (a dict entry from its key)."""
    items = tuple(
        _item(parsed, "", e.key if isinstance(e, cst.DictElement) else e.value, e.value, e.comma)
        for e in value.elements
    )
    bracket = value.lbracket if isinstance(value, cst.List) else value.lbrace
    return Site(parsed.start(bracket), parsed.end(value) - 1, items)


def find_named(node: cst.List, name: str) -> tuple[int, cst.Call] | None:
    """The index and call of the element of ``node`` written ``Kind(name="name", ...)``."""
    for index, element in enumerate(node.elements):
        value = element.value
        if isinstance(value, cst.Call) and literal_name(value) == name:
            return index, value
    return None


def literal_name(node: cst.BaseExpression) -> str | bytes | None:
    """The ``name="..."`` string of a call written so, else None."""
    if not isinstance(node, cst.Call):
        return None
    return next(
        (
            a.value.evaluated_value
            for a in node.args
            if a.keyword and a.keyword.value == "name" and isinstance(a.value, cst.SimpleString)
        ),
        None,
    )


def named(parsed: Source, node: cst.List, field: str, name: str) -> tuple[int, cst.Call]:
    """`find_named`, or EditError."""
    found = find_named(node, name)
    if found is not None:
        return found
    raise EditError(
        f"Fleet({field}=...) has no element written with name={name!r} in its list literal",
        parsed.line(node),
    )


def fleet_call(parsed: Source) -> cst.Call:
    """The ``Fleet(...)`` call bound to ``fleet`` at module level, or EditError."""
    found: cst.BaseExpression | None = None
    line = 1
    for statement in parsed.statements():
        targets: list[cst.BaseExpression] = []
        if isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        elif isinstance(statement, cst.AnnAssign):
            targets = [statement.target]
        if any(isinstance(t, cst.Name) and t.value == "fleet" for t in targets):
            found, line = getattr(statement, "value", None), parsed.line(statement)
    if isinstance(found, cst.Call) and called_name(found) == "Fleet":
        return found
    raise EditError("no module-level `fleet = Fleet(...)` found", line)


def called_name(call: cst.Call) -> str:
    """The name a call calls (``Overrides`` of ``fleetgen.Overrides(...)`` too)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def list_node(parsed: Source, field: str, element: str) -> cst.List:
    """The list literal of the Fleet's ``field`` (``element``: what to add by hand, for the
    error)."""
    call = fleet_call(parsed)
    hand = element if element.startswith("; ") else f"; add this to it by hand:\n{element}"
    argument = keyword_arg(call, field)
    if argument is None:
        raise EditError(f"Fleet(...) has no {field}= argument{hand}", parsed.line(call))
    value = argument.value
    if isinstance(value, cst.Name):
        value = _module_list(parsed, value.value) or value
    if not isinstance(value, cst.List):
        raise EditError(
            f"Fleet({field}=...) is not a list literal, nor a name bound once at "
            f"module level to one, so fleetgen cannot find it statically{hand}",
            parsed.line(argument),
        )
    return value


def bound_names(parsed: Source) -> set[str]:
    """Names the module binds at top level (imports and assignments); '*' for a star import."""
    names: set[str] = set()
    for statement in parsed.statements():
        if isinstance(statement, cst.ImportFrom):
            if isinstance(statement.names, cst.ImportStar):
                names.add("*")
                continue
            for alias in statement.names:
                names.add(_alias_name(alias))
        elif isinstance(statement, cst.Assign | cst.AnnAssign):
            names |= {t.value for t in _targets(statement) if isinstance(t, cst.Name)}
    return names


def import_site(parsed: Source) -> Site | None:
    """The names of the module's ``from fleetgen import ...`` (each `Item` named), None when
    it has none."""
    statement = next(
        (
            s
            for s in parsed.statements()
            if isinstance(s, cst.ImportFrom)
            and isinstance(s.module, cst.Name)
            and s.module.value == "fleetgen"
            and not isinstance(s.names, cst.ImportStar)
        ),
        None,
    )
    if statement is None or isinstance(statement.names, cst.ImportStar):
        return None
    items = tuple(_item(parsed, _alias_name(a), a.name, a.name, a.comma) for a in statement.names)
    if statement.lpar is not None and statement.rpar is not None:
        return Site(parsed.start(statement.lpar), parsed.end(statement.rpar) - 1, items)
    return Site(items[0].start, items[-1].end, items)


def _item(
    parsed: Source,
    name: str,
    first: cst.CSTNode,
    last: cst.CSTNode,
    comma: cst.Comma | cst.MaybeSentinel,
) -> Item:
    """The item from ``first`` to ``last``, with its comma if it has one."""
    end = parsed.end(comma) if isinstance(comma, cst.Comma) else None
    return Item(name, parsed.start(first), parsed.end(last), end)


def _module_list(parsed: Source, name: str) -> cst.List | None:
    """The list literal bound to ``name`` by the only module-level assignment to it."""
    values = [
        s.value
        for s in parsed.statements()
        if isinstance(s, cst.Assign | cst.AnnAssign | cst.AugAssign)
        and any(isinstance(t, cst.Name) and t.value == name for t in _targets(s))
    ]
    return values[0] if len(values) == 1 and isinstance(values[0], cst.List) else None


def _targets(statement: cst.Assign | cst.AnnAssign | cst.AugAssign) -> list[cst.BaseExpression]:
    if isinstance(statement, cst.Assign):
        return [t.target for t in statement.targets]
    return [statement.target]


def _alias_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    name = alias.name
    return name.value if isinstance(name, cst.Name) else ""
