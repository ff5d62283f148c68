"""What an ApplicationSet's template reads of the clusters another tool registers (`standins`):
while generating, a marker stands for each annotation or label the selector does not fix
(`metadata_params`); in the app it becomes a `ClusterVar` where fleetgen can read one at run
time, Helm values and another source's path (`settle`), and anywhere else a finding
(`reads_elsewhere`). fleetgen reads a var from the cluster Secret's annotation
``fleetgen.io/var.<name>``: a finding per var says the clusters' owner must set it, and the
stand-ins carry a placeholder value (`vars_of`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from fleetgen.importer.argocd.common import (
    ENV_KEYS,
    EXPR,
    Cluster,
    Path,
    Reader,
    expr_key,
    texts,
)
from fleetgen.importer.argocd.standins import fixed_labels
from fleetgen.importer.draft import Instance
from fleetgen.importer.repo import Doc, at
from fleetgen.model.fields import VAR_NAME_LIMIT, VAR_PREFIX
from fleetgen.util.templating import Call

_MARKER = re.compile(r"fleetgen-var\(([A-Za-z0-9._-]+)\)")


def _marker(var: str) -> str:
    """What a template renders where it reads ``var`` of a cluster selected at run time."""
    return f"fleetgen-var({var})"


def _var_name(key: str) -> str:
    """The `ClusterVar` name of a label or annotation key (``example.com/x``:
    ``example.com.x``)."""
    name = re.sub(r"[^A-Za-z0-9._-]", ".", key).strip("._-")
    return name[:VAR_NAME_LIMIT].rstrip("._-") or "var"


def metadata_params(
    reader: Reader, cluster: Cluster, reads: set[str], selector: Mapping[str, Any]
) -> dict[str, str]:
    """A stand-in's parameters for a generator: its name, server, environment and the labels
    the generator's ``selector`` fixes (the same on every cluster it selects); every other label
    or annotation the templates read (``reads``, flat keys) a marker."""
    fixed = {*ENV_KEYS, *fixed_labels(selector)}
    params = {
        key: value
        for key, value in cluster.params().items()
        if not key.startswith("metadata.") or key.removeprefix("metadata.labels.") in fixed
    }
    for key in sorted(reads - params.keys()):
        kind, _, name = key.removeprefix("metadata.").partition(".")
        var = _var_name(name)
        reader.reads.setdefault(var, (f"{kind.removesuffix('s')} {name!r}", key))
        params[key] = _marker(var)
    return params


_LEFT_OUT = object()  # a value `_vars` leaves out
_TEMPLATE = ("spec", "template", "spec")
# Where a generated Application may read a cluster selected at run time: its destination (the
# cluster itself), the path of its source (another source's: a ClusterVar) and Helm values.
_READABLE: tuple[Path, ...] = (
    ("destination", "server"),
    ("destination", "name"),
    ("source", "path"),
    ("source", "helm", "values"),
    ("source", "helm", "valuesObject"),
    ("source", "helm", "valueFiles"),
)


def reads_cluster(reader: Reader, cluster: Cluster, text: str) -> bool:
    """Whether ``text`` (rendered for the stand-in ``cluster``) reads the clusters it stands for:
    an annotation or label the selector does not fix, their name or server."""
    return _reads(text, _tokens(reader, cluster))


def after_var(text: str) -> str:
    """``text`` without the var a template read of a stand-in at its start (a base path)."""
    found = _MARKER.match(text)
    return text[found.end() :] if found else text


def reads_elsewhere(
    reader: Reader,
    origin: Doc,
    name: str,
    spec: Mapping[str, Any],
    cluster: Cluster,
    source: tuple[Path, Mapping[str, Any]],
) -> bool:
    """Whether an Application generated for a stand-in reads the cluster where a fleetgen app
    cannot (its namespace, its source's repository, revision or chart, ...): a finding at
    the first such field. Of its sources, only ``source`` (where it is, what it says) is read:
    the one it deploys (`applications`); the value files are `valuefiles`'."""
    tokens = _tokens(reader, cluster)
    where, chosen = source
    read = {**{k: v for k, v in spec.items() if k not in ("source", "sources")}, "source": chosen}
    for path, text in texts(read):
        if _reads(text, tokens) and not any(path[: len(r)] == r for r in _READABLE):
            written = (*where, *path[1:]) if path[0] == "source" else path
            reader.draft.findings.append(
                origin.finding(
                    f"{name}: its spec.{'.'.join(map(str, written))} reads the clusters "
                    "selected at run time: not mapped",
                    "fleetgen reads a cluster's vars only in Helm values and another source's "
                    "path; add the app by hand (per_env for what differs by environment)",
                    (*_TEMPLATE, *written),
                )
            )
            return True
    return False


def settle(reader: Reader, origin: Doc, instance: Instance, cluster: Cluster) -> bool:
    """An instance on a stand-in: what its template read of the cluster as `ClusterVar`s in
    its Helm values and another source's path (a whole value each); False (a finding) when
    its path reads the cluster otherwise."""
    tokens = _tokens(reader, cluster)
    left: list[str] = []
    path = _vars(instance.path, "path", tokens, left) if instance.source is not None else None
    if left or (instance.source is None and _reads(str(instance.path), tokens)):
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: its folder {instance.path!r} is the cluster's, for clusters "
                "selected at run time: not mapped",
                "add an app per folder by hand (per_env for what differs by environment)",
                (*_TEMPLATE, "source", "path"),
            )
        )
        return False
    if instance.source is not None:
        instance.path = path
    instance.values = _vars(instance.values, "values", tokens, left)
    for where in left:
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: {where} reads the cluster within a string: left out",
                "a ClusterVar is a whole value: give the clusters a var holding the whole "
                "value and write ClusterVar(...) there",
                (*_TEMPLATE, "source", "helm"),
            )
        )
    for var in sorted(_used(instance.values) | _used(instance.path)):
        _say(reader, origin, var)
    return True


def _tokens(reader: Reader, cluster: Cluster) -> dict[str, str]:
    """What a template renders where it reads a stand-in's name or server, with the var each
    is."""
    for var in ("name", "server"):
        reader.reads.setdefault(var, (var, var))
    return {cluster.name: "name", cluster.draft.server: "server"}


def _vars(value: Any, where: str, tokens: Mapping[str, str], left: list[str]) -> Any:
    """``value`` with each whole marker (or the stand-in's name or server) a ``ClusterVar``;
    a string reading the cluster within other text is left out (noted in ``left``), and so is
    a mapping or list left empty by that."""
    if isinstance(value, Mapping | list):
        pairs = value.items() if isinstance(value, Mapping) else enumerate(value)
        found = [(k, _vars(v, f"{where}.{k}", tokens, left)) for k, v in pairs]
        kept = [(k, v) for k, v in found if v is not _LEFT_OUT]
        if found and not kept:
            return _LEFT_OUT
        return dict(kept) if isinstance(value, Mapping) else [v for _, v in kept]
    if not isinstance(value, str) or not _reads(value, tokens):
        return value
    whole = _MARKER.fullmatch(value)
    var = whole[1] if whole else tokens.get(value)
    if var is None:
        left.append(where)
        return _LEFT_OUT
    return Call("ClusterVar", args=(var,))


def _reads(text: str, tokens: Mapping[str, str]) -> bool:
    """Whether ``text`` holds what a template read of a cluster selected at run time."""
    return bool(_MARKER.search(text)) or any(token in text for token in tokens)


def _used(value: Any) -> set[str]:
    """The names of the ClusterVar calls in ``value``."""
    if isinstance(value, Call):
        return {str(value.args[0])} if value.name == "ClusterVar" else set()
    if isinstance(value, Mapping):
        return set().union(*map(_used, value.values()))
    if isinstance(value, list):
        return set().union(*map(_used, value))
    return set()


def _say(reader: Reader, origin: Doc, var: str) -> None:
    """Once per var: what it reads, where, and that the clusters' owner must set it."""
    if var in reader.said:
        return
    reader.said.add(var)
    what, key = reader.reads[var]
    reader.draft.findings.append(
        origin.finding(
            f"{origin.kind} {origin.name!r}: its template reads the {what} of the clusters it "
            f"selects at run time: ClusterVar({var!r})",
            f"fleetgen reads it from each cluster Secret's annotation {VAR_PREFIX}{var}: have "
            "the tool that registers the clusters set it",
            _first_read(origin, key),
        )
    )


def _first_read(doc: Doc, key: str) -> Path:
    """Where an ApplicationSet first reads the parameter ``key``: in its template's spec, else
    in its generators."""
    for root in (_TEMPLATE, ("spec", "generators")):
        for path, text in texts(at(doc.obj, *map(str, root)), root):
            if key in {expr_key(match) for match in EXPR.finditer(text)}:
                return path
    return ("spec", "template")


def vars_of(reader: Reader) -> None:
    """Each stand-in's values of the vars its apps read: a placeholder saying what the
    original read (the real values are the clusters' own)."""
    used: dict[str, set[str]] = {}
    for instance in reader.draft.instances:
        names = _used(instance.values) | _used(instance.path)
        used.setdefault(instance.cluster, set()).update(names)
    drafts = reader.draft.clusters
    for index, draft in enumerate(drafts):
        if draft.registration == "external" and used.get(draft.name):
            values = ((var, f"<its {reader.reads[var][0]}>") for var in sorted(used[draft.name]))
            drafts[index] = replace(draft, vars=tuple(values))
