"""The CRDs' CEL rules (``x-kubernetes-validations``), evaluated as the API server does on create.

JSON-schema validation does not run them; the API server does
(k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel`` ``Validator.Validate``), and so does
this module, with cel-python: a rule runs at the schema node it is attached to with ``self`` that
node's value; rules of ``items`` run per list item and of ``additionalProperties`` per map value;
a node absent from the object is not evaluated; at the root ``self.metadata`` holds only ``name``
and ``generateName``. Transition rules (those reading ``oldSelf``) run on updates only, so never
here: fleetgen checks objects as created. A failed rule reads as ``fieldPath: message`` with the
rule's ``messageExpression``, else its ``message``, else ``failed rule: RULE``. A rule calling a
function cel-python does not know (one of the Kubernetes CEL libraries') is not evaluated, and
``Rules.not_evaluated`` says why. Each rule is compiled once per run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import celpy
import lark
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, base_functions

__all__ = ["RULES_KEY", "Rules"]

RULES_KEY = "x-kubernetes-validations"
# cel-python's macros and built-in functions: any other name a rule calls is unknown here.
_KNOWN = frozenset(base_functions) | {
    "has",
    "dyn",
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
}
_ROOT_METADATA = ("name", "generateName")  # what CEL sees of ObjectMeta at a resource's root

Program = celpy.Runner


@dataclass(frozen=True, slots=True)
class Compiled:
    """A rule's program and its message expression's, or why it is not evaluated."""

    program: Program | None
    message: Program | None = None
    reason: str | None = None  # set: not evaluated
    transition: bool = False


@dataclass(slots=True)
class Rules:
    """Evaluates the CEL rules of strict schemas, compiling each rule text once.

    ``evaluated`` collects (schema key, field path, rule) of every rule that ran at least once,
    ``not_evaluated`` those that could not run, with the reason.
    """

    evaluated: set[tuple[str, str, str]] = field(default_factory=set)
    not_evaluated: dict[tuple[str, str, str], str] = field(default_factory=dict)
    _compiled: dict[tuple[str, str], Compiled] = field(default_factory=dict)
    _ruled: dict[int, bool] = field(default_factory=dict)  # id(schema node) -> any rule below
    _env: celpy.Environment | None = None  # built on the first rule (its parser takes ~0.5 s)

    def errors(self, key: str, schema: Mapping[str, Any], obj: Mapping[str, Any]) -> Iterator[str]:
        """Every rule of ``schema`` (the strict schema ``key`` names) that ``obj`` fails, as
        'field path: message'."""
        root = dict(obj)
        if isinstance(obj.get("metadata"), Mapping):
            root["metadata"] = {k: v for k, v in obj["metadata"].items() if k in _ROOT_METADATA}
        yield from self._node(key, schema, root, ())

    def _node(
        self, key: str, schema: Mapping[str, Any], value: Any, path: tuple[str, ...]
    ) -> Iterator[str]:
        if not self._has_rules(schema):
            return
        if schema.get(RULES_KEY):
            yield from self._rules(key, schema[RULES_KEY], value, path)
        if isinstance(value, Mapping):
            properties = schema.get("properties", {})
            extra = schema.get("additionalProperties")
            for name, child in value.items():
                sub = properties.get(name, extra if isinstance(extra, Mapping) else None)
                if sub is not None:
                    yield from self._node(key, sub, child, (*path, str(name)))
        elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
            for index, item in enumerate(value):
                yield from self._node(key, schema["items"], item, (*path, str(index)))

    def _has_rules(self, schema: Mapping[str, Any]) -> bool:
        """Whether ``schema`` or a node below it carries a rule (remembered per node)."""
        known = self._ruled.get(id(schema))
        if known is None:
            below = [*schema.get("properties", {}).values(), schema.get("items")]
            below.append(schema.get("additionalProperties"))
            known = bool(schema.get(RULES_KEY)) or any(
                self._has_rules(child) for child in below if isinstance(child, Mapping)
            )
            self._ruled[id(schema)] = known
        return known

    def _rules(
        self, key: str, rules: list[dict[str, Any]], value: Any, path: tuple[str, ...]
    ) -> Iterator[str]:
        pattern = ".".join("*" if part.isdigit() else part for part in path) or "."
        activation = {"self": json_to_cel(value)}
        for rule in rules:
            compiled = self._compile(rule)
            ident = (key, pattern, rule["rule"])
            if compiled.transition:
                continue
            if compiled.program is None:
                self.not_evaluated[ident] = str(compiled.reason)
                continue
            self.evaluated.add(ident)
            failed = _failure(compiled, rule, activation)
            if failed is not None:
                yield f"{_field_path(path, rule)}: {failed} (CEL rule: {rule['rule']})"

    def _compile(self, rule: Mapping[str, Any]) -> Compiled:
        text, message = rule["rule"], rule.get("messageExpression", "")
        compiled = self._compiled.get((text, message))
        if compiled is None:
            compiled = self._compiled[(text, message)] = self._new(text, message, rule)
        return compiled

    def _new(self, text: str, message: str, rule: Mapping[str, Any]) -> Compiled:
        env = self._env = self._env or celpy.Environment()
        try:
            ast = env.compile(text)
            if "oldSelf" in _identifiers(ast):
                if not rule.get("optionalOldSelf"):
                    return Compiled(None, transition=True)
                return Compiled(None, reason="optionalOldSelf: cel-python lacks optional values")
            unknown = sorted(_calls(ast) - _KNOWN)
            if unknown:
                return Compiled(None, reason=f"cel-python lacks {', '.join(unknown)}")
            return Compiled(
                env.program(ast), env.program(env.compile(message)) if message else None
            )
        except CELParseError as error:
            return Compiled(None, reason=f"cannot parse it ({' '.join(str(error).split())})")


def _field_path(path: tuple[str, ...], rule: Mapping[str, Any]) -> str:
    """Where a failed rule points: its node's path, '/'-separated as the schema findings' are,
    extended by the rule's ``fieldPath`` (``.configMapRef``)."""
    extra = str(rule.get("fieldPath", "")).lstrip(".").replace(".", "/")
    return "/".join([*path, extra] if extra else path) or "."


def _failure(compiled: Compiled, rule: Mapping[str, Any], activation: Any) -> str | None:
    """The message of a failed rule, None when it holds."""
    assert compiled.program is not None
    try:
        result = compiled.program.evaluate(activation)
    except CELEvalError as error:
        return f"rule could not be evaluated: {error.args[0]}"
    if not isinstance(result, bool | celtypes.BoolType):
        return f"rule returned {type(result).__name__}, not a bool"
    if result:
        return None
    return _message(compiled, rule, activation)


def _message(compiled: Compiled, rule: Mapping[str, Any], activation: Any) -> str:
    """``messageExpression``'s string, else ``message``, else 'failed rule: RULE' (Kubernetes'
    ``ruleMessageOrDefault``)."""
    if compiled.message is not None:
        try:
            text = compiled.message.evaluate(activation)
        except CELEvalError:
            text = None
        if isinstance(text, str) and text.strip():
            return str(text)
    return str(rule.get("message") or f"failed rule: {rule['rule']}")


def _calls(ast: lark.Tree[Any]) -> set[str]:
    """The names of the functions and methods ``ast`` calls."""
    names = set()
    for node in ast.iter_subtrees():
        if node.data == "member_dot_arg":
            names.add(str(node.children[1]))
        elif node.data == "ident_arg":
            names.add(str(node.children[0]))
    return names


def _identifiers(ast: lark.Tree[Any]) -> set[str]:
    """The variable names ``ast`` reads."""
    return {str(node.children[0]) for node in ast.iter_subtrees() if node.data == "ident"}
