"""Flux's post-build variable substitution (a Kustomization's ``postBuild.substitute``), as
kustomize-controller runs it on each object it built: fluxcd/pkg kustomize
``SubstituteVariables`` writes the object as YAML, runs ``envsubst.Eval`` on the text (``$$`` is a
literal ``$``; ``${VAR}``, and ``${VAR:-default}``-style defaults) and reads it back, so
``replicas: ${N}`` becomes a number; an object labelled or annotated
``kustomize.toolkit.fluxcd.io/substitute: disabled`` is left alone.

fleetgen has no substitution: import substitutes what a Kustomization applies with its own
values, so each cluster's values land in its layers (a release's values, a followed
Kustomization's fields), and says per object what an app's own manifests need on each cluster
(`per_cluster`): ConfigMap data as ``config=``, any other field as a JSON patch ``replace``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.flux.common import Walk
from fleetgen.importer.repo import Doc, at, mapping
from fleetgen.manifests.yamlio import dump, load_all

DISABLED = "kustomize.toolkit.fluxcd.io/substitute"
_TOKEN = re.compile(r"\$\$|\$\{([^{}]*)\}")
_EXPRESSION = re.compile(r"([_A-Za-z][_A-Za-z0-9]*)(?:(:?[-=])(.*))?", re.DOTALL)


def variables(spec: Mapping[str, Any]) -> dict[str, str]:
    """A Kustomization's ``postBuild.substitute``, newlines taken out of the values as
    kustomize-controller does."""
    found = mapping(at(spec, "postBuild", "substitute"))
    return {str(key): str(value).replace("\n", "") for key, value in found.items()}


def evaluate(text: str, values: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with its variables replaced, and the expressions left as they are: a variable
    without a value here, or a function import does not evaluate (``${#VAR}``, ``${VAR/a/b}``
    …)."""
    left: list[str] = []

    def replaced(match: re.Match[str]) -> str:
        if match[0] == "$$":
            return "$"
        parts = _EXPRESSION.fullmatch(match[1])
        if parts is None:
            left.append(match[0])
            return match[0]
        name, operator, default = parts.groups()
        value = values.get(name)
        if operator is None and value is None:
            left.append(match[0])
            return match[0]
        if value is None or (operator in (":-", ":=") and not value):
            return str(default)
        return value

    return _TOKEN.sub(replaced, text), left


@dataclass(slots=True)
class Substituted:
    """What substitution made of a Kustomization's objects: the objects, and the expressions it
    left by the object they are in."""

    docs: list[Doc]
    left: dict[int, list[str]] = field(default_factory=dict)  # index in docs -> expressions


def substituted(docs: list[Doc], values: Mapping[str, str]) -> Substituted:
    """``docs`` as kustomize-controller applies them with ``values`` (nothing when there are
    none: Flux substitutes only then, without ``substituteStrategy: Always``)."""
    found = Substituted([])
    for index, doc in enumerate(docs):
        obj, left = applied(doc.obj, values)
        if left:
            found.left[index] = left
        found.docs.append(doc if obj is doc.obj else Doc(doc.file, doc.line, obj, doc.node))
    return found


def applied(
    obj: Mapping[str, Any], values: Mapping[str, str]
) -> tuple[Mapping[str, Any], list[str]]:
    """``obj`` as kustomize-controller applies it with ``values`` (the same object where
    nothing changes), and the expressions left in it."""
    meta = mapping(obj.get("metadata"))
    disabled = (mapping(meta.get(key)).get(DISABLED) for key in ("labels", "annotations"))
    if not values or "disabled" in disabled:
        return obj, []
    written = dump(dict(obj))
    text, left = evaluate(written, values)
    if text == written:
        return obj, left
    try:
        return load_all(text)[0], left
    except (yaml.YAMLError, IndexError):
        return obj, left  # what Flux refuses: kept as it is, the faithfulness check tells


def left_findings(kustomization: Doc, done: Substituted) -> list[Finding]:
    """A finding at each object for the expressions substitution left in it."""
    return [
        done.docs[index].finding(
            f"Kustomization {kustomization.name!r} substitutes {', '.join(sorted(set(left)))} "
            f"in {done.docs[index].kind} {done.docs[index].name!r}: no value here, or a "
            "function import does not evaluate",
            "fleetgen has no variable substitution: write the value into the manifests, or per "
            "cluster in a layer",
        )
        for index, left in sorted(done.left.items())
    ]


def per_cluster(
    walk: Walk, kustomization: Doc, instance: Instance, built: list[Doc], deployed: list[Doc]
) -> None:
    """What substitution changes in the objects of an app of a folder of this repository, as
    its cluster's settings: the data of a ConfigMap of the app's namespace as ``config``, other
    fields as JSON patch ``replace`` operations; a finding where neither can say it (a name or
    namespace, a plain folder, which has no overlay)."""
    changed = [(b, d) for b, d in zip(built, deployed, strict=True) if b.obj != d.obj]
    if not walk.repo.has_kustomization(str(instance.path)):
        walk.draft.findings.append(
            kustomization.finding(
                f"Kustomization {kustomization.name!r}: postBuild.substitute on a plain folder",
                "fleetgen applies a plain folder as it is: add a kustomization.yaml to "
                f"{instance.path} and rerun import, or write the values into the manifests",
                ("spec", "postBuild"),
            )
        )
        return
    for before, after in changed:
        if _identity(before) != _identity(after):
            walk.draft.findings.append(
                before.finding(
                    f"Kustomization {kustomization.name!r} substitutes the name or namespace "
                    f"of {before.kind} {before.name!r}",
                    "fleetgen cannot vary an object's name or namespace per cluster: write "
                    "them into the manifests",
                )
            )
            continue
        # config= merges by name into the ConfigMap of the overlay's namespace
        configmap = (before.group, before.kind) == ("", "ConfigMap") and before.namespace in (
            "",
            instance.namespace,
        )
        for pointer, value in changes(before.obj, after.obj).items():
            parts = pointer.split("/")
            if configmap and len(parts) == 3 and parts[1] == "data":
                instance.config.setdefault(before.name, {})[_unescaped(parts[2])] = str(value)
            else:
                target = (before.group, before.kind, before.name)
                instance.replaced.setdefault(target, {})[pointer] = value


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """JSON pointer -> the value substitution put there, for each place it changed."""
    return dict(_changed(before, after, ""))


def _changed(before: Any, after: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    if isinstance(before, Mapping) and isinstance(after, Mapping) and before.keys() == after.keys():
        for key in before:
            yield from _changed(before[key], after[key], f"{pointer}/{_escaped(str(key))}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from _changed(old, new, f"{pointer}/{index}")
    elif before != after:
        yield pointer, after


def _escaped(key: str) -> str:
    """A key as a JSON pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def _unescaped(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _identity(doc: Doc) -> tuple[str, str, str, str]:
    return (doc.group, doc.kind, doc.namespace, doc.name)
