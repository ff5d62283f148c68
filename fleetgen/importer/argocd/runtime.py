"""Clusters another tool registers: an ApplicationSet cluster generator whose selector matches no
cluster Secret of the repository selects, when it runs, Secrets written elsewhere (Terraform,
Cluster API). Import maps them to clusters registered by another tool that stand for them
(`stand_ins`): one per environment the selectors name (their ``env``/``environment`` label),
carrying the labels the selectors require. What a template reads of such a cluster's metadata
is a marker while generating (`marker`), and a `ClusterVar` in the app (`settle`); the app
selects its clusters at run time by the generator's selector (``Selector(runtime=True)``)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
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
from fleetgen.importer.draft import ClusterDraft, Instance, env_rank
from fleetgen.importer.repo import Doc, at, mapping, mappings, strings
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model.fields import VAR_NAME_LIMIT, VAR_PREFIX, to_dns_label
from fleetgen.rules.argocd import SECRET_TYPE
from fleetgen.util.templating import Call, py_literal
from fleetgen.write.output import ENV_LABEL

_MARKER = re.compile(r"fleetgen-var\(([A-Za-z0-9._-]+)\)")
_EXTERNAL = "external"  # the environment of stand-ins when no selector names one


def marker(var: str) -> str:
    """What a template renders where it reads ``var`` of a cluster selected at run time."""
    return f"fleetgen-var({var})"


def var_name(key: str) -> str:
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
    fixed = {*ENV_KEYS, *_fixed_labels(selector)}
    params = {
        key: value
        for key, value in cluster.params().items()
        if not key.startswith("metadata.") or key.removeprefix("metadata.labels.") in fixed
    }
    for key in sorted(reads - params.keys()):
        kind, _, name = key.removeprefix("metadata.").partition(".")
        var = var_name(name)
        reader.reads.setdefault(var, (f"{kind.removesuffix('s')} {name!r}", key))
        params[key] = marker(var)
    return params


def _fixed_labels(selector: Mapping[str, Any]) -> set[str]:
    """The labels a selector requires one value of."""
    exprs = mappings(selector.get("matchExpressions"))
    single = {
        str(e.get("key"))
        for e in exprs
        if e.get("operator") == "In" and len(strings(e.get("values"))) == 1
    }
    return {*map(str, mapping(selector.get("matchLabels"))), *single}


def requirement(selector: Mapping[str, Any]) -> dict[str, Any]:
    """A generator's selector as text, without its terms on Argo CD's secret-type label, which
    the generator adds to every selector (``getSecretsByClusterName``)."""
    labels = {
        str(k): str(v) for k, v in mapping(selector.get("matchLabels")).items() if k != SECRET_TYPE
    }
    exprs = [
        {
            "key": str(e.get("key")),
            "operator": str(e.get("operator")),
            "values": strings(e.get("values")),
        }
        for e in mappings(selector.get("matchExpressions"))
        if e.get("key") != SECRET_TYPE
    ]
    return {
        **({"matchLabels": labels} if labels else {}),
        **({"matchExpressions": exprs} if exprs else {}),
    }


def selection(generator: Mapping[str, Any]) -> dict[str, Any] | None:
    """The selector that picks the clusters of a generator's parameter sets: a cluster
    generator's, a merge's first generator's (later ones only override its sets), those of a
    matrix's generators together; None without a cluster generator."""
    if "clusters" in generator:
        return requirement(mapping(at(generator, "clusters", "selector")))
    children = mappings(at(generator, "merge", "generators"))[:1]
    children = children or mappings(at(generator, "matrix", "generators"))
    found = [s for s in map(selection, children) if s is not None]
    if not found:
        return None
    labels = {k: v for s in found for k, v in mapping(s.get("matchLabels")).items()}
    exprs = [e for s in found for e in mappings(s.get("matchExpressions"))]
    return requirement({"matchLabels": labels, "matchExpressions": exprs})


@dataclass(frozen=True, slots=True)
class _Unseen:
    """A cluster generator whose selector matches no cluster Secret here."""

    doc: Doc
    path: Path
    selector: dict[str, Any]


@dataclass(slots=True)
class _StandIn:
    """The labels of a stand-in being made and the generators it stands for."""

    env: str
    labels: dict[str, str]
    unseen: list[_Unseen] = field(default_factory=list)


def stand_ins(reader: Reader, sets: list[Doc]) -> None:
    """Clusters registered by another tool, standing for those the cluster generators of
    ``sets`` select at run time (their selectors match no cluster Secret here): per
    environment, as few as carry every label the selectors require."""
    secrets = [c for c in reader.clusters.values() if c.listed]
    unseen = [
        _Unseen(doc, path, requirement(selector))
        for doc in sets
        for path, selector in _cluster_selectors(doc)
        if (selector.get("matchLabels") or selector.get("matchExpressions"))
        and not any(selector_matches(selector, c.labels) for c in secrets)
    ]
    keys = sorted({key for item in unseen for key in _keys(item.selector) if key in ENV_KEYS})
    envs = sorted({e for item in unseen for e in _envs(item.selector)}, key=env_rank)
    taken = {c.draft.name for c in reader.clusters.values()}
    for env in envs or [_EXTERNAL]:
        made: list[_StandIn] = []
        for item in unseen:
            wanted = _wanted(item.selector, {key: env for key in keys} if envs else {})
            if wanted is not None:
                _place(made, env, item, wanted)
        for index, standin in enumerate(made):
            stem = _EXTERNAL if env == _EXTERNAL else f"{_EXTERNAL}-{env}"
            name = _free(to_dns_label(stem if index == 0 else f"{stem}-{index + 1}", "x"), taken)
            _register(reader, standin, name)


def _cluster_selectors(doc: Doc) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """(where, selector) of every cluster generator of an ApplicationSet, also in matrix and
    merge generators."""
    pending: list[tuple[Path, Mapping[str, Any]]] = [
        (("spec", "generators", i), g) for i, g in enumerate(mappings(doc.spec.get("generators")))
    ]
    while pending:
        path, generator = pending.pop(0)
        if "clusters" in generator:
            yield (*path, "clusters"), mapping(at(generator, "clusters", "selector"))
        for kind in ("matrix", "merge"):
            children = mappings(at(generator, kind, "generators"))
            pending += [((*path, kind, "generators", i), g) for i, g in enumerate(children)]


def _keys(selector: Mapping[str, Any]) -> list[str]:
    """The label keys a selector names."""
    exprs = mappings(selector.get("matchExpressions"))
    return [*map(str, mapping(selector.get("matchLabels"))), *(str(e.get("key")) for e in exprs)]


def _envs(selector: Mapping[str, Any]) -> list[str]:
    """The environments a selector requires by the ``env``/``environment`` label."""
    labels = mapping(selector.get("matchLabels"))
    found = [str(labels[key]) for key in ENV_KEYS if key in labels]
    for expr in mappings(selector.get("matchExpressions")):
        if expr.get("key") in ENV_KEYS and expr.get("operator") == "In":
            found += strings(expr.get("values"))
    return found


def _wanted(selector: Mapping[str, Any], base: Mapping[str, str]) -> dict[str, str] | None:
    """The labels a cluster with the ``base`` labels (its environment) needs to be selected:
    a required value, the first an ``In`` allows, ``"true"`` for ``Exists``; None when no
    such cluster is selected (another environment, conflicting terms)."""
    labels = dict(base)
    for key, value in mapping(selector.get("matchLabels")).items():
        labels.setdefault(str(key), str(value))
    for expr in mappings(selector.get("matchExpressions")):
        key, values = str(expr.get("key")), strings(expr.get("values"))
        if expr.get("operator") == "In" and values:
            labels.setdefault(key, values[0])
        elif expr.get("operator") == "Exists":
            labels.setdefault(key, "true")
    return labels if selector_matches(selector, labels) else None


def _place(made: list[_StandIn], env: str, item: _Unseen, wanted: dict[str, str]) -> None:
    """``item`` on the first stand-in its labels can join without another generator losing
    it, else on a new one."""
    for standin in made:
        merged = {**standin.labels, **wanted}
        agrees = all(standin.labels.get(k, v) == v for k, v in wanted.items())
        if agrees and all(selector_matches(u.selector, merged) for u in standin.unseen):
            standin.labels = merged
            standin.unseen.append(item)
            return
    made.append(_StandIn(env, wanted, [item]))


def _free(name: str, taken: set[str]) -> str:
    """``name``, numbered when a cluster has it; taken from then on."""
    found, number = name, 1
    while found in taken:
        number += 1
        found = f"{name}-{number}"
    taken.add(found)
    return found


def _register(reader: Reader, standin: _StandIn, name: str) -> None:
    """The stand-in as a cluster registered by another tool, with a finding saying what it
    stands for. A label a selector excludes values of (``NotIn``) carries its name, so the
    fleet declares every label its selectors read."""
    for item in standin.unseen:
        for expr in mappings(item.selector.get("matchExpressions")):
            key = str(expr.get("key"))
            if expr.get("operator") == "NotIn" and key not in standin.labels:
                named = {**standin.labels, key: name}
                if all(selector_matches(u.selector, named) for u in standin.unseen):
                    standin.labels = named
    first = standin.unseen[0]
    server = f"https://{name}.invalid"
    labels = tuple(sorted(standin.labels.items()))
    env = to_dns_label(standin.env, _EXTERNAL)
    draft = ClusterDraft(name, env, server, first.doc, labels, registration="external")
    reader.clusters[server] = Cluster(draft, name, dict(labels), {}, external=True)
    reader.draft.clusters.append(draft)
    shown = ", ".join(f"{k}={v}" for k, v in labels) or "any labels"
    reader.draft.findings.append(
        first.doc.finding(
            f"cluster {name!r} stands for the clusters of environment {env!r} that "
            f"cluster generators select by labels no cluster Secret here has ({shown}): "
            "registered by another tool",
            f"give it the name and server of one of them (one Cluster(registration='external') "
            f"each), and have that tool label their Secrets {ENV_LABEL}={env} as "
            "output/README.md lists",
            first.path,
        )
    )


_LEFT_OUT = object()  # a value `_vars` leaves out
_TEMPLATE = ("spec", "template", "spec")
# Where a generated Application's fields are in an ApplicationSet's template spec.
_FIELDS = {
    "namespace": ("destination", "namespace"),
    "path": ("source", "path"),
    "chart": ("source", "chart"),
    "chart version": ("source", "targetRevision"),
    "source": ("source", "repoURL"),
    "sync policy": ("syncPolicy",),
}


def settle(reader: Reader, origin: Doc, instance: Instance, cluster: Cluster) -> bool:
    """An instance on a stand-in: what its template read of the cluster as `ClusterVar`s in
    its Helm values and another source's path (a whole value each); False (a finding) when it
    reads the cluster anywhere else."""
    tokens = {cluster.name: "name", cluster.draft.server: "server"}
    for var in tokens.values():
        reader.reads.setdefault(var, (var, var))
    left: list[str] = []
    instance.values = _vars(instance.values, "values", tokens, left)
    if instance.source is not None and isinstance(instance.path, str):
        instance.path = _vars(instance.path, "path", tokens, left)
    for where in left:
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: {where} reads the cluster within a string: left out",
                "a ClusterVar is a whole value: give the clusters a var holding the whole "
                "value and write ClusterVar(...) there",
                (*_TEMPLATE, "source", "helm"),
            )
        )
    stuck = [name for name, value in _not_vars(instance) if _reads(py_literal(value), tokens)]
    if stuck:
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: its {stuck[0]} reads the clusters selected at run time: "
                "not mapped",
                "fleetgen reads a cluster's vars there only in Helm values and another "
                "source's path; add the app by hand (per_env for what differs by environment)",
                (*_TEMPLATE, *_FIELDS.get(stuck[0], ())),
            )
        )
        return False
    for var in sorted(_used(instance.values) | _used(instance.path)):
        _say(reader, origin, var)
    return True


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


def _not_vars(instance: Instance) -> list[tuple[str, Any]]:
    """The fields of an instance that cannot hold a var when its clusters are selected at run
    time."""
    return [
        ("namespace", instance.namespace),
        ("path", instance.path if instance.source is None else None),
        ("chart", instance.chart),
        ("chart version", instance.chart_version),
        ("source", instance.source),
        *instance.app_fields,
        ("sync policy", instance.sync),
    ]


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
