"""Secret material never reaches fleet.py: every value import copies (Helm values, patches,
clusters' annotations, Applications' labels and annotations) is searched with the secret rules
(`fleetgen.rules.secrets`), and what they find is left out, with a finding that names where it
was, never what it is."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from fleetgen.importer.draft import Draft, Instance
from fleetgen.importer.findings import Finding
from fleetgen.rules import secrets as scanrules
from fleetgen.util.templating import Call

_TODO = (
    "not copied: keep it in a Secret (App(secrets=[AppSecret(...)]) from your store) and point "
    "the chart or manifests at it (existingSecret, secretKeyRef)"
)


def scrub(draft: Draft) -> list[Finding]:
    """Leave out of ``draft`` every value the secret rules find; one finding each."""
    findings = _annotations(draft)
    for instance in draft.instances:
        instance.values, found = _without(instance.values)
        findings += [_finding(instance, ("spec", "values"), "values", path) for path in found]
        kept = []
        for key, value in instance.app_fields:
            if scanrules.walk(_plain(value)):
                findings.append(_finding(instance, (), key, ()))
            else:
                kept.append((key, value))
        instance.app_fields = tuple(kept)
        findings += _substituted(instance)
        findings += _metadata(instance)
    return findings


def _substituted(instance: Instance) -> list[Finding]:
    """Leave out the values substitution puts into an app's manifests (its ``config`` and
    ``replace`` patches) that the rules find something in; one finding each."""
    at = ("spec", "postBuild", "substitute")
    instance.config, found = _without(instance.config)
    findings = [_finding(instance, at, "config", path) for path in found]
    for target, values in list(instance.replaced.items()):
        instance.replaced[target], found = _without(values)
        shown = f"patches of {target[1]} {target[2]!r} at"  # each path starts with its pointer
        findings += [_finding(instance, at, f"{shown} {path[0]}", path[1:]) for path in found]
    return findings


def _metadata(instance: Instance) -> list[Finding]:
    """Leave out the labels and annotations of an app's Application the rules find something
    in; one finding each."""
    findings = []
    for field, what in (("labels", "label"), ("annotations", "annotation")):
        kept, found = _without(getattr(instance, field))
        setattr(instance, field, kept)
        findings += [
            instance.origin.finding(
                f"{instance.name}: {what} {path[0]!r} looks like secret material", _TODO
            )
            for path in found
        ]
    return findings


def _annotations(draft: Draft) -> list[Finding]:
    """Leave out the clusters' annotations the rules find something in; one finding each."""
    findings: list[Finding] = []
    for index, cluster in enumerate(draft.clusters):
        notes = dict(cluster.annotations)
        found = {str(item.path[0]) for item in scanrules.walk(notes)}
        if found:
            kept = tuple((k, v) for k, v in cluster.annotations if k not in found)
            draft.clusters[index] = replace(cluster, annotations=kept)
            findings += [
                cluster.origin.finding(
                    f"cluster {cluster.name!r}: annotation {scanrules.field_path((key,))} looks "
                    "like secret material",
                    _TODO,
                )
                for key in sorted(found)
            ]
    return findings


def _plain(value: Any) -> Any:
    """``value`` as plain data for the rules: a call as its arguments."""
    if isinstance(value, Call):
        return {key: _plain(item) for key, item in value.kwargs.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _without(values: dict[str, Any]) -> tuple[dict[str, Any], list[scanrules.Path]]:
    """``values`` without what the rules find in it, and the paths of what they found."""
    found = [item.path for item in scanrules.walk(values)]
    if not found:
        return values, []
    kept = copy.deepcopy(values)
    for path in found:
        _drop(kept, path)
    return kept, found


def _drop(value: Any, path: scanrules.Path) -> None:
    *parents, last = path
    for part in parents:
        value = value[part]
    if isinstance(value, dict) and last in value:
        del value[last]
    elif isinstance(value, list) and isinstance(last, int) and last < len(value):
        value[last] = None


def _finding(instance: Instance, at: tuple[str, ...], field: str, path: scanrules.Path) -> Finding:
    where = ".".join([field, *(scanrules.field_path(path).split("/") if path else [])])
    return instance.origin.finding(
        f"{instance.name}: {where} looks like secret material", _TODO, at
    )
