"""ApplicationSet templates rendered as the controller renders them (applicationset utils
``Render.Replace``), in the syntax the set declares: fasttemplate without ``goTemplate`` (each
``{{ key }}`` a flat parameter, any other tag left as written), Go's text/template with it
(``{{ .a.b }}``, ``{{ index .a "k" }}``; a key no parameter set has fails under
``missingkey=error``, else renders ``<no value>``). What import cannot evaluate is `Unresolved`:
the set is not mapped."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.importer.findings import Finding
from fleetgen.importer.repo import Doc, strings

# fasttemplate's tag: anything from ``{{`` to the next ``}}`` (fasttemplate.ExecuteFuncString).
_FAST = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
# Go's field chain or ``index`` of one, trim markers allowed: the expressions import evaluates.
_GO = re.compile(r"\{\{-?\s*(?:index\s+\.([\w.]+)\s+(\"[^\"]+\"|\d+)|\.([\w.]+))\s*-?\}\}")
# text/template's Option values: anything else panics (``Template.Option``).
_OPTIONS = frozenset(f"missingkey={v}" for v in ("default", "invalid", "zero", "error"))


class Unresolved(Exception):
    """A generator or template expression import cannot evaluate: said at the ApplicationSet,
    or at ``where`` (a file and line), with ``todo``."""

    def __init__(
        self, what: str, where: tuple[str | int, ...] = (), todo: str = "add its apps by hand"
    ) -> None:
        super().__init__(what)
        self.where, self.todo = where, todo

    def finding(self, doc: Doc) -> Finding:
        """The finding of the ApplicationSet ``doc`` this stopped (at the field ``where``)."""
        return doc.finding(f"ApplicationSet {doc.name!r}: {self}", self.todo, self.where)


@dataclass(frozen=True, slots=True)
class Syntax:
    """How a set's templates read parameters: Go's text/template (``go``) or fasttemplate;
    under Go, whether a key no parameter set has fails the set (``missingkey=error``)."""

    go: bool
    strict: bool = False

    @classmethod
    def of(cls, doc: Doc) -> Syntax:
        """The syntax ``goTemplate`` and ``goTemplateOptions`` declare; raises `Unresolved`
        for an option Go does not know."""
        options = strings(doc.spec.get("goTemplateOptions"))
        if not doc.spec.get("goTemplate"):
            return cls(False)
        for index, option in enumerate(options):
            if option not in _OPTIONS:
                raise Unresolved(
                    f"spec.goTemplateOptions {option!r} is no option of Go's text/template, "
                    "which panics on it: Argo CD renders none of its Applications",
                    ("spec", "goTemplateOptions", index),
                    "fix the option (missingkey=error), rerun import",
                )
        return cls(True, bool(options) and options[-1] == "missingkey=error")


def render(value: Any, params: Mapping[str, str], syntax: Syntax) -> Any:
    """``value`` with every template expression replaced from ``params``, keys and values."""
    if isinstance(value, Mapping):
        return {render(k, params, syntax): render(v, params, syntax) for k, v in value.items()}
    if isinstance(value, list):
        return [render(item, params, syntax) for item in value]
    if not isinstance(value, str) or "{{" not in value:
        return value
    if not syntax.go:
        return _FAST.sub(lambda match: _fast(match, params), value)
    done = _GO.sub(lambda match: _go(match, params, syntax), value)
    if "{{" in done:
        raise Unresolved(f"template expression in {value!r} not evaluated")
    return done


def _fast(match: re.Match[str], params: Mapping[str, str]) -> str:
    """A fasttemplate tag's parameter; one that is none Argo CD leaves as written."""
    key = match[1].strip()
    if key in params:
        return params[key]
    hint = " (Go's syntax, and the set has no goTemplate: true)" if key.startswith(".") else ""
    raise Unresolved(
        f"template value {match[0]!r} is no parameter of its generators{hint}: Argo CD leaves "
        "it as written"
    )


def _go(match: re.Match[str], params: Mapping[str, str], syntax: Syntax) -> str:
    """A Go expression's parameter; one that is none fails or renders ``<no value>``."""
    key = match[1] + "." + match[2].strip('"') if match[1] else str(match[3])
    if key in params:
        return params[key]
    does = "fails (missingkey=error)" if syntax.strict else "renders '<no value>' or fails"
    raise Unresolved(
        f"template value {match[0]!r} is no parameter of its generators: Argo CD {does} there"
    )
