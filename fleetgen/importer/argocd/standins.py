"""Clusters another tool registers: an ApplicationSet cluster generator whose selector matches no
cluster Secret of the repository selects, when it runs, Secrets written elsewhere (Terraform,
Cluster API). Import maps them to clusters registered by another tool that stand for them
(`stand_ins`): one per environment the selectors name (their ``env``/``environment`` label),
carrying the labels the selecting generators require; an app made on them selects its clusters
at run time by its generator's selector (`selection`, ``Selector(runtime=True)``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fleetgen.importer.argocd.common import ENV_KEYS, Cluster, Path, Reader
from fleetgen.importer.draft import ClusterDraft, env_rank
from fleetgen.importer.repo import Doc, at, mapping, mappings, strings
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model.fields import to_dns_label
from fleetgen.rules.argocd import SECRET_TYPE
from fleetgen.write.output import ENV_LABEL

_EXTERNAL = "external"  # the environment of stand-ins when no selector names one


def fixed_labels(selector: Mapping[str, Any]) -> set[str]:
    """The labels a selector requires one value of."""
    exprs = mappings(selector.get("matchExpressions"))
    single = {
        str(e.get("key"))
        for e in exprs
        if e.get("operator") == "In" and len(strings(e.get("values"))) == 1
    }
    return {*map(str, mapping(selector.get("matchLabels"))), *single}


def shown(selector: Mapping[str, Any]) -> str:
    """A label selector as kubectl writes one (``env=prod,zone in (a,b),!legacy``)."""
    terms = [f"{k}={v}" for k, v in mapping(selector.get("matchLabels")).items()]
    for expr in mappings(selector.get("matchExpressions")):
        key, operator = str(expr.get("key")), expr.get("operator")
        values = ",".join(strings(expr.get("values")))
        terms.append(
            {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key}.get(
                str(operator), f"!{key}"
            )
        )
    return ",".join(terms)


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
    environment any selector names, as few as carry every label the selecting generators
    require (a merge's later generators only override the sets of its first: they name
    environments, but select no cluster)."""
    secrets = [c for c in reader.clusters.values() if c.listed]
    unseen = [
        (_Unseen(doc, path, requirement(selector)), selects)
        for doc in sets
        for path, selector, selects in _cluster_selectors(doc)
        if (selector.get("matchLabels") or selector.get("matchExpressions"))
        and not any(selector_matches(selector, c.labels) for c in secrets)
    ]
    keys = sorted({k for item, _ in unseen for k in _keys(item.selector) if k in ENV_KEYS})
    envs = sorted({e for item, _ in unseen for e in _envs(item.selector)}, key=env_rank)
    taken = {c.draft.name for c in reader.clusters.values()}
    for env in envs or [_EXTERNAL]:
        made: list[_StandIn] = []
        for item in (item for item, selects in unseen if selects):
            wanted = _wanted(item.selector, {key: env for key in keys} if envs else {})
            if wanted is not None:
                _place(made, env, item, wanted)
        for index, standin in enumerate(made):
            stem = _EXTERNAL if env == _EXTERNAL else f"{_EXTERNAL}-{env}"
            name = _free(to_dns_label(stem if index == 0 else f"{stem}-{index + 1}", "x"), taken)
            _register(reader, standin, name)


def _cluster_selectors(doc: Doc) -> Iterator[tuple[Path, Mapping[str, Any], bool]]:
    """(where, selector, whether it selects clusters) of every cluster generator of an
    ApplicationSet, also in matrix and merge generators (a merge's later generators do not
    select: they override the parameter sets of its first)."""
    pending: list[tuple[Path, Mapping[str, Any], bool]] = [
        (("spec", "generators", i), g, True)
        for i, g in enumerate(mappings(doc.spec.get("generators")))
    ]
    while pending:
        path, generator, selects = pending.pop(0)
        if "clusters" in generator:
            yield (*path, "clusters"), mapping(at(generator, "clusters", "selector")), selects
        for kind in ("matrix", "merge"):
            children = mappings(at(generator, kind, "generators"))
            pending += [
                ((*path, kind, "generators", i), g, selects and (kind == "matrix" or i == 0))
                for i, g in enumerate(children)
            ]


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
        if agrees and all(selector_matches(u.selector, merged) for u in [*standin.unseen, item]):
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
