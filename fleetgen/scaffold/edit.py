"""Edit fleet.py as text, guided by its concrete syntax tree (libcst), so that every byte the edit
does not touch stays as it was: comments, formatting, quoting.

`insert` adds one element to a list argument (``clusters=``, ``apps=``, ``environments=``,
``projects=``) of the ``Fleet(...)`` bound to ``fleet`` (the list may also be a module-level name,
``CLUSTERS = [...]``), at the end or after a named element, in the indentation and trailing-comma
style of its neighbours, and imports from ``fleetgen`` the names the element uses. `extend` adds a
value to a list argument of one named element (a project's ``namespaces=``), `extend_fleet` to
one of the ``Fleet(...)`` itself (``engines=``), and `set_keyword` sets an argument of a named
element (an environment's ``engine=``). `set_layer_keyword` and `pin_image` set an argument of an
app's ``Overrides(...)`` in one of its layer dicts (``per_env={"prod": Overrides(...)}``) and
the version of one ``Image(...)`` of its ``images=``, creating the dict entry, the
``Overrides(...)`` and the list where missing. What cannot be found statically raises
`EditError` saying where to add it by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

INDENT = "    "


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


class _Source:
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


def insert(
    source: str, field: str, element: str, names: Sequence[str], after: str | None = None
) -> str:
    """``source`` with ``element`` (Python text; continuation lines indented from column 0)
    appended to the Fleet's ``field`` list (or put right after its element named ``after``) and
    ``names`` imported from fleetgen."""
    parsed = _Source(source)
    node = _list_node(parsed, field, element)
    site = _site(parsed, node)
    if after is None:
        edits = _append(parsed.text, site, element)
    else:
        index, _ = _named(parsed, node, field, after)
        edits = _insert_after(parsed.text, site, index, element)
    return _applied(source, _with_imports(parsed, edits, names))


def extend(source: str, field: str, name: str, keyword: str, value: str) -> str:
    """``source`` with ``value`` (Python text) appended to the ``keyword=`` list of the element
    named ``name`` in the Fleet's ``field`` list, or ``keyword=[value]`` added to it."""
    parsed = _Source(source)
    hand = f"; add {value} to its {keyword}= by hand"
    _, call = _named(parsed, _list_node(parsed, field, hand), field, name)
    return _extended(parsed, call, keyword, value, f"[{value}]", f"{field}: {name!r}", hand)


def extend_fleet(source: str, keyword: str, value: str, absent: str) -> str:
    """``source`` with ``value`` (Python text) appended to the ``keyword=`` list of the
    ``Fleet(...)``, or ``keyword=absent`` added to it."""
    parsed = _Source(source)
    hand = f"; add {value} to its {keyword}= by hand"
    return _extended(parsed, _fleet_call(parsed), keyword, value, absent, "Fleet(...)", hand)


def set_keyword(source: str, field: str, name: str, keyword: str, value: str) -> str:
    """``source`` with ``keyword=value`` (Python text) on the element named ``name`` in the
    Fleet's ``field`` list: the value it has replaced, or the argument added."""
    parsed = _Source(source)
    hand = f"; set {keyword}={value} on it by hand"
    _, call = _named(parsed, _list_node(parsed, field, hand), field, name)
    return _spliced(source, _keyword_set(parsed, call, keyword, value))


def set_layer_keyword(source: str, app: str, layer: str, key: str, keyword: str, value: str) -> str:
    """``source`` with ``keyword=value`` (Python text) on the ``Overrides(...)`` of the app
    named ``app`` at ``key`` of its ``layer`` dict (``per_env``): the value it has replaced, or
    the argument added (with the entry, or the dict, where missing)."""
    parsed = _Source(source)
    return _spliced(
        source,
        _layer_edits(
            parsed,
            app,
            (layer, key),
            f"{keyword}={value}",
            (),
            lambda overrides: _keyword_set(parsed, overrides, keyword, value),
        ),
    )


def pin_image(
    source: str,
    app: str,
    layer: str,
    key: str,
    image: str,
    versions: Mapping[str, str | None],
    call: str,
) -> str:
    """``source`` with the ``Image(name=image, ...)`` of the ``images=`` of the app's
    ``Overrides(...)`` at ``key`` of its ``layer`` dict given ``versions`` (keyword -> Python
    text, None: the argument removed), its other arguments kept; ``call`` (Python text, the whole
    ``Image(...)``) is appended where the list has none (the list, the entry or the dict added
    where missing)."""
    parsed = _Source(source)

    def inside(overrides: cst.Call) -> list[Span]:
        argument = _keyword(overrides, "images")
        if argument is None:
            return _appended(parsed, _arguments(parsed, overrides), f"images=[{call}]", ["Image"])
        if not isinstance(argument.value, cst.List):
            raise EditError(
                f"app {app!r}: {layer}[{key!r}] sets images= to something other than a list "
                f"literal; set {call} in it by hand",
                parsed.line(argument),
            )
        found = _find_named(argument.value, image)
        if found is not None:
            return _arguments_set(parsed, found[1], versions)
        hidden = [e for e in argument.value.elements if _literal_name(e.value) is None]
        if hidden:  # it may be this image: another would be appended after it
            raise EditError(
                f"app {app!r}: {layer}[{key!r}] has images= fleetgen cannot name statically; "
                f"set {call} in it by hand",
                parsed.line(hidden[0]),
            )
        return _appended(parsed, _site(parsed, argument.value), call, ["Image"])

    return _spliced(
        source, _layer_edits(parsed, app, (layer, key), f"images=[{call}]", ["Image"], inside)
    )


Span = tuple[int, int, str]  # (start, end, text): source[start:end] replaced by text


def _layer_edits(
    parsed: _Source,
    app: str,
    where: tuple[str, str],
    absent: str,
    names: Sequence[str],
    inside: Callable[[cst.Call], list[Span]],
) -> list[Span]:
    """The edits of ``inside`` on the ``Overrides(...)`` of the app ``app`` at ``where`` (layer
    dict, key); where there is none, ``Overrides(absent)`` added (``names``: what ``absent``
    calls), with the layer dict if missing."""
    layer, key = where
    hand = f"; set {absent} in its {layer}[{key!r}] by hand"
    _, call = _named(parsed, _list_node(parsed, "apps", hand), "apps", app)
    argument = _keyword(call, layer)
    entry = f'"{key}": Overrides({absent})'
    if argument is None:
        site = _arguments(parsed, call)
        return _appended(parsed, site, f"{layer}={{{entry}}}", ["Overrides", *names])
    if not isinstance(argument.value, cst.Dict):
        raise EditError(
            f"app {app!r} sets {layer}= to something other than a dict literal{hand}",
            parsed.line(argument),
        )
    literal = {
        e.key.evaluated_value: e
        for e in argument.value.elements
        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
    }
    element = literal.get(key)
    if element is None:
        hidden = [e for e in argument.value.elements if e not in literal.values()]
        if hidden:  # it may be this key: a new entry would replace it
            raise EditError(
                f"app {app!r}: {layer}= has keys fleetgen cannot read statically{hand}",
                parsed.line(hidden[0]),
            )
        return _appended(parsed, _site(parsed, argument.value), entry, ["Overrides", *names])
    if not (isinstance(element.value, cst.Call) and _called_name(element.value) == "Overrides"):
        raise EditError(
            f"app {app!r}: {layer}[{key!r}] is not an Overrides(...) call written there{hand}",
            parsed.line(element),
        )
    return inside(element.value)


def _keyword_set(parsed: _Source, call: cst.Call, keyword: str, value: str) -> list[Span]:
    """``keyword=value`` on ``call``: its value replaced, or the argument appended."""
    argument = _keyword(call, keyword)
    if argument is None:
        return _appended(parsed, _arguments(parsed, call), f"{keyword}={value}")
    return [(parsed.start(argument.value), parsed.end(argument.value), value)]


def _arguments_set(parsed: _Source, call: cst.Call, values: Mapping[str, str | None]) -> list[Span]:
    """``call`` with the keyword arguments ``values`` (None: removed): those it has are
    rewritten in place, one by one (``digest=`` may become ``tag=``), the rest appended or
    removed."""
    site = _arguments(parsed, call)
    held = [i for i, a in enumerate(call.args) if a.keyword and a.keyword.value in values]
    wanted = [f"{keyword}={value}" for keyword, value in values.items() if value is not None]
    spans: list[Span] = []
    for index, text in zip(held, wanted, strict=False):
        argument = call.args[index]
        assert argument.keyword is not None
        spans.append((parsed.start(argument.keyword), parsed.end(argument.value), text))
    items = site.items
    for index in held[len(wanted) :]:
        if index > 0:
            spans.append((items[index - 1].end, items[index].end, ""))
        else:
            spans.append((items[0].start, items[1].start if len(items) > 1 else items[0].end, ""))
    if len(wanted) > len(held):
        spans += _appended(parsed, site, ", ".join(wanted[len(held) :]))
    return spans


def _appended(parsed: _Source, site: Site, text: str, names: Sequence[str] = ()) -> list[Span]:
    """``text`` appended at ``site`` (`_append`), with the imports of what of ``names`` (fleetgen
    names ``text`` calls) the module lacks."""
    return _spans(_with_imports(parsed, _append(parsed.text, site, text), names))


def _spans(edits: list[tuple[int, str]]) -> list[Span]:
    return [(offset, offset, text) for offset, text in edits]


def _spliced(source: str, spans: list[Span]) -> str:
    # Back to front; spans at one offset end up in the order listed.
    for start, end, text in sorted(reversed(spans), key=lambda span: span[0], reverse=True):
        source = source[:start] + text + source[end:]
    return source


def _with_imports(
    parsed: _Source, edits: list[tuple[int, str]], names: Sequence[str]
) -> list[tuple[int, str]]:
    """``edits`` and those importing from fleetgen what of ``names`` the module lacks."""
    missing = sorted(set(names) - _bound_names(parsed))
    return [*edits, *_import_edits(parsed, missing)] if missing else edits


def _extended(
    parsed: _Source,
    call: cst.Call,
    keyword: str,
    value: str,
    absent: str,
    where: str,
    hand: str,
) -> str:
    """``parsed`` with ``value`` appended to the ``keyword=`` list literal of ``call``, or
    ``keyword=absent`` added to its arguments."""
    argument = _keyword(call, keyword)
    if argument is None:
        return _applied(
            parsed.text, _append(parsed.text, _arguments(parsed, call), f"{keyword}={absent}")
        )
    if not isinstance(argument.value, cst.List):
        raise EditError(
            f"{where} sets {keyword}= to something other than a list literal{hand}",
            parsed.line(argument),
        )
    return _applied(parsed.text, _append(parsed.text, _site(parsed, argument.value), value))


def _keyword(call: cst.Call, keyword: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == keyword), None)


def _arguments(parsed: _Source, call: cst.Call) -> Site:
    """The arguments of ``call`` as a site to append an argument to."""
    arguments = tuple(
        Item(
            "",
            parsed.start(a.value),
            parsed.end(a.value),
            parsed.end(a.comma) if isinstance(a.comma, cst.Comma) else None,
        )
        for a in call.args
    )
    return Site(parsed.text.index("(", parsed.end(call.func)), parsed.end(call) - 1, arguments)


def _applied(source: str, edits: list[tuple[int, str]]) -> str:
    return _spliced(source, _spans(edits))


def _find_named(node: cst.List, name: str) -> tuple[int, cst.Call] | None:
    """The index and call of the element of ``node`` written ``Kind(name="name", ...)``."""
    for index, element in enumerate(node.elements):
        value = element.value
        if isinstance(value, cst.Call) and _literal_name(value) == name:
            return index, value
    return None


def _literal_name(node: cst.BaseExpression) -> str | bytes | None:
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


def _named(parsed: _Source, node: cst.List, field: str, name: str) -> tuple[int, cst.Call]:
    """`_find_named`, or EditError."""
    found = _find_named(node, name)
    if found is not None:
        return found
    raise EditError(
        f"Fleet({field}=...) has no element written with name={name!r} in its list literal",
        parsed.line(node),
    )


def _fleet_call(parsed: _Source) -> cst.Call:
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
    if isinstance(found, cst.Call) and _called_name(found) == "Fleet":
        return found
    raise EditError("no module-level `fleet = Fleet(...)` found", line)


def _called_name(call: cst.Call) -> str:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def _list_node(parsed: _Source, field: str, element: str) -> cst.List:
    """The list literal of the Fleet's ``field`` (``element``: what to add by hand, for the
    error)."""
    call = _fleet_call(parsed)
    hand = element if element.startswith("; ") else f"; add this to it by hand:\n{element}"
    argument = _keyword(call, field)
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


def _site(parsed: _Source, value: cst.List | cst.Dict) -> Site:
    """The elements of a list or dict literal (a dict entry from its key)."""
    items = tuple(
        Item(
            "",
            parsed.start(e.key if isinstance(e, cst.DictElement) else e.value),
            parsed.end(e.value),
            parsed.end(e.comma) if isinstance(e.comma, cst.Comma) else None,
        )
        for e in value.elements
    )
    bracket = value.lbracket if isinstance(value, cst.List) else value.lbrace
    return Site(parsed.start(bracket), parsed.end(value) - 1, items)


def _module_list(parsed: _Source, name: str) -> cst.List | None:
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


def _append(source: str, site: Site, element: str) -> list[tuple[int, str]]:
    """Edits (offset, text) appending ``element`` to ``site`` in the style of its items."""
    lines = element.splitlines()
    if not site.items:
        indent = _indent_at(source, site.open)
        body = _indented(lines, indent + INDENT)
        if source[site.open + 1 : site.close].strip():  # comments only: keep them
            return [(_line_start(source, site.close), f"{indent}{INDENT}{body},\n")]
        return [(site.open + 1, f"\n{indent}{INDENT}{body},\n{indent}")]
    last = site.items[-1]
    after = last.comma_end if last.comma_end is not None else last.end
    comma = "," if last.comma_end is not None else ""
    fix = [] if comma else [(last.end, ",")]
    if _line_of(source, last.start) == _line_of(source, site.open):  # all on one line
        return [*fix, (after, f" {' '.join(line.strip() for line in lines)}{comma}")]
    indent = _indent_at(source, last.start)
    body = _indented(lines, indent)
    if _line_of(source, site.close) > _line_of(source, after):  # closing bracket on its own line
        return [*fix, (source.index("\n", after) + 1, f"{indent}{body}{comma}\n")]
    return [*fix, (after, f"\n{indent}{body}{comma}")]


def _insert_after(source: str, site: Site, index: int, element: str) -> list[tuple[int, str]]:
    """Edits putting ``element`` right after item ``index`` of ``site``, in its style."""
    if index == len(site.items) - 1:
        return _append(source, site, element)
    item, following = site.items[index], site.items[index + 1]
    assert item.comma_end is not None  # an item followed by another has its comma
    lines = element.splitlines()
    if _line_of(source, following.start) == _line_of(source, item.comma_end):  # same line
        return [(item.comma_end, f" {' '.join(line.strip() for line in lines)},")]
    indent = " " * (following.start - _line_start(source, following.start))
    return [(source.index("\n", item.comma_end) + 1, f"{indent}{_indented(lines, indent)},\n")]


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


def _bound_names(parsed: _Source) -> set[str]:
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


def _alias_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    name = alias.name
    return name.value if isinstance(name, cst.Name) else ""


def _import_edits(parsed: _Source, missing: list[str]) -> list[tuple[int, str]]:
    """Edits adding ``missing`` to the ``from fleetgen import ...`` statement, sorted in."""
    if "*" in _bound_names(parsed):
        return []
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
        raise EditError(
            f"fleet.py has no `from fleetgen import ...`; add one importing {', '.join(missing)}", 1
        )
    items = tuple(
        Item(
            _alias_name(a),
            parsed.start(a.name),
            parsed.end(a.name),
            parsed.end(a.comma) if isinstance(a.comma, cst.Comma) else None,
        )
        for a in statement.names
    )
    if statement.lpar is not None and statement.rpar is not None:
        site = Site(parsed.start(statement.lpar), parsed.end(statement.rpar) - 1, items)
    else:
        site = Site(items[0].start, items[-1].end, items)
    groups: dict[Item | None, list[str]] = {}
    for name in missing:
        groups.setdefault(next((i for i in items if i.name > name), None), []).append(name)
    return [
        edit
        for later, names in groups.items()
        for edit in _import_names(parsed.text, site, later, names)
    ]


def _import_names(
    source: str, site: Site, later: Item | None, names: list[str]
) -> list[tuple[int, str]]:
    """Insert ``names`` before the imported name ``later`` (None: after the last one)."""
    if later is None:
        return _append(source, site, ",\n".join(names))
    if _line_of(source, later.start) == _line_of(source, site.open):
        return [(later.start, "".join(f"{name}, " for name in names))]
    indent = _indent_at(source, later.start)
    return [(later.start, "".join(f"{name},\n{indent}" for name in names))]
