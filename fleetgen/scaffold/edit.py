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

`syntax` finds where an edit goes in the tree; `splice` writes it into the text; `relayout`
lays out again what `insert`, `extend` and `set_keyword` changed where ruff had laid it out
(or where a line became too long), at the configured line length.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import libcst as cst

from fleetgen.scaffold import splice, syntax
from fleetgen.scaffold.relayout import kept_laid_out
from fleetgen.scaffold.splice import Element, Span
from fleetgen.scaffold.syntax import EditError, Source
from fleetgen.util.linelength import DEFAULT_WIDTH
from fleetgen.util.templating import formatted

__all__ = [
    "EditError",
    "extend",
    "extend_fleet",
    "insert",
    "pin_image",
    "set_keyword",
    "set_layer_keyword",
]


def insert(
    source: str,
    field: str,
    element: Element,
    names: Sequence[str],
    after: str | None = None,
    width: int = DEFAULT_WIDTH,
) -> str:
    """``source`` with ``element`` (a call, laid out to ``width`` where it goes; or Python text,
    continuation lines indented from column 0) appended to the Fleet's ``field`` list (or put
    right after its element named ``after``) and ``names`` imported from fleetgen."""
    parsed = Source(source)
    shown = element if isinstance(element, str) else formatted(element, width)
    node = syntax.list_node(parsed, field, shown)
    site = syntax.site(parsed, node)
    if after is None:
        edits = splice.append(parsed.text, site, element, width)
    else:
        index, _ = syntax.named(parsed, node, field, after)
        edits = splice.insert_after(parsed.text, site, index, element, width)
    done = splice.applied(source, splice.with_imports(parsed, edits, names))
    return _field_relaid(source, done, field, width)


def _field_relaid(before: str, source: str, field: str, width: int) -> str:
    """``source`` (an edit of ``before``) with the Fleet's ``field=`` argument laid out again
    (`relayout.kept_laid_out`: a list on one line that no longer fits is broken as ruff breaks
    it); a list bound to a name elsewhere stays as it is."""
    parsed, old = Source(source), Source(before)
    argument = syntax.keyword_arg(syntax.fleet_call(parsed), field)
    previous = syntax.keyword_arg(syntax.fleet_call(old), field)
    if argument is None or not isinstance(argument.value, cst.List):
        return source
    return kept_laid_out(old, previous, parsed, argument, width)


def extend(
    source: str, field: str, name: str, keyword: str, value: str, width: int = DEFAULT_WIDTH
) -> str:
    """``source`` with ``value`` (Python text) appended to the ``keyword=`` list of the element
    named ``name`` in the Fleet's ``field`` list, or ``keyword=[value]`` added to it; the
    element laid out again at ``width``."""
    parsed = Source(source)
    hand = f"; add {value} to its {keyword}= by hand"
    _, call = syntax.named(parsed, syntax.list_node(parsed, field, hand), field, name)
    done = _extended(parsed, call, keyword, value, f"[{value}]", f"{field}: {name!r}", hand)
    return done if done == source else _element_relaid(source, done, field, name, width)


def extend_fleet(source: str, keyword: str, value: str, absent: str) -> str:
    """``source`` with ``value`` (Python text) appended to the ``keyword=`` list of the
    ``Fleet(...)``, or ``keyword=absent`` added to it."""
    parsed = Source(source)
    hand = f"; add {value} to its {keyword}= by hand"
    call = syntax.fleet_call(parsed)
    return _extended(parsed, call, keyword, value, absent, "Fleet(...)", hand)


def set_keyword(
    source: str, field: str, name: str, keyword: str, value: str, width: int = DEFAULT_WIDTH
) -> str:
    """``source`` with ``keyword=value`` (Python text) on the element named ``name`` in the
    Fleet's ``field`` list: the value it has replaced, or the argument added; the element laid
    out again at ``width``."""
    parsed = Source(source)
    hand = f"; set {keyword}={value} on it by hand"
    _, call = syntax.named(parsed, syntax.list_node(parsed, field, hand), field, name)
    done = splice.spliced(source, _keyword_set(parsed, call, keyword, value))
    return done if done == source else _element_relaid(source, done, field, name, width)


def _element_relaid(before: str, source: str, field: str, name: str, width: int) -> str:
    """``source`` (an edit of ``before``) with the element named ``name`` of the Fleet's
    ``field`` list laid out again (`relayout.kept_laid_out`)."""
    parsed, old = Source(source), Source(before)
    _, call = syntax.named(parsed, syntax.list_node(parsed, field, ""), field, name)
    _, was = syntax.named(old, syntax.list_node(old, field, ""), field, name)
    return kept_laid_out(old, was, parsed, call, width)


def set_layer_keyword(source: str, app: str, layer: str, key: str, keyword: str, value: str) -> str:
    """``source`` with ``keyword=value`` (Python text) on the ``Overrides(...)`` of the app
    named ``app`` at ``key`` of its ``layer`` dict (``per_env``): the value it has replaced, or
    the argument added (with the entry, or the dict, where missing)."""
    parsed = Source(source)
    return splice.spliced(
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
    parsed = Source(source)

    def inside(overrides: cst.Call) -> list[Span]:
        argument = syntax.keyword_arg(overrides, "images")
        if argument is None:
            site = syntax.arguments(parsed, overrides)
            return splice.appended(parsed, site, f"images=[{call}]", ["Image"])
        if not isinstance(argument.value, cst.List):
            raise EditError(
                f"app {app!r}: {layer}[{key!r}] sets images= to something other than a list "
                f"literal; set {call} in it by hand",
                parsed.line(argument),
            )
        found = syntax.find_named(argument.value, image)
        if found is not None:
            return _arguments_set(parsed, found[1], versions)
        hidden = [e for e in argument.value.elements if syntax.literal_name(e.value) is None]
        if hidden:  # it may be this image: another would be appended after it
            raise EditError(
                f"app {app!r}: {layer}[{key!r}] has images= fleetgen cannot name statically; "
                f"set {call} in it by hand",
                parsed.line(hidden[0]),
            )
        return splice.appended(parsed, syntax.site(parsed, argument.value), call, ["Image"])

    return splice.spliced(
        source, _layer_edits(parsed, app, (layer, key), f"images=[{call}]", ["Image"], inside)
    )


def _layer_edits(
    parsed: Source,
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
    _, call = syntax.named(parsed, syntax.list_node(parsed, "apps", hand), "apps", app)
    argument = syntax.keyword_arg(call, layer)
    entry = f'"{key}": Overrides({absent})'
    if argument is None:
        site = syntax.arguments(parsed, call)
        return splice.appended(parsed, site, f"{layer}={{{entry}}}", ["Overrides", *names])
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
        site = syntax.site(parsed, argument.value)
        return splice.appended(parsed, site, entry, ["Overrides", *names])
    overrides = element.value
    if not (isinstance(overrides, cst.Call) and syntax.called_name(overrides) == "Overrides"):
        raise EditError(
            f"app {app!r}: {layer}[{key!r}] is not an Overrides(...) call written there{hand}",
            parsed.line(element),
        )
    return inside(overrides)


def _keyword_set(parsed: Source, call: cst.Call, keyword: str, value: str) -> list[Span]:
    """``keyword=value`` on ``call``: its value replaced, or the argument appended."""
    argument = syntax.keyword_arg(call, keyword)
    if argument is None:
        return splice.appended(parsed, syntax.arguments(parsed, call), f"{keyword}={value}")
    return [(parsed.start(argument.value), parsed.end(argument.value), value)]


def _arguments_set(parsed: Source, call: cst.Call, values: Mapping[str, str | None]) -> list[Span]:
    """``call`` with the keyword arguments ``values`` (None: removed): those it has are
    rewritten in place, one by one (``digest=`` may become ``tag=``), the rest appended or
    removed."""
    site = syntax.arguments(parsed, call)
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
        spans += splice.appended(parsed, site, ", ".join(wanted[len(held) :]))
    return spans


def _extended(
    parsed: Source,
    call: cst.Call,
    keyword: str,
    value: str,
    absent: str,
    where: str,
    hand: str,
) -> str:
    """``parsed`` with ``value`` appended to the ``keyword=`` list literal of ``call``, or
    ``keyword=absent`` added to its arguments."""
    argument = syntax.keyword_arg(call, keyword)
    if argument is None:
        site = syntax.arguments(parsed, call)
        return splice.applied(parsed.text, splice.append(parsed.text, site, f"{keyword}={absent}"))
    if not isinstance(argument.value, cst.List):
        raise EditError(
            f"{where} sets {keyword}= to something other than a list literal{hand}",
            parsed.line(argument),
        )
    site = syntax.site(parsed, argument.value)
    return splice.applied(parsed.text, splice.append(parsed.text, site, value))
