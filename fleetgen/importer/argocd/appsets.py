"""Argo CD's ApplicationSets: each Application a set's generators make is imported as an
Application, named as the set names it with the cluster's part left out (one app across
clusters). What of a set fleetgen writes differently is a finding: its own metadata, its
options, a generator that makes nothing."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fleetgen.importer.argocd.applications import application
from fleetgen.importer.argocd.clusters import destination_cluster
from fleetgen.importer.argocd.common import Path, Reader, not_written
from fleetgen.importer.argocd.generators import parameter_sets, template_of, unread
from fleetgen.importer.argocd.rendering import Syntax, Unresolved, render
from fleetgen.importer.argocd.standins import selection
from fleetgen.importer.findings import Finding, dotted, unmapped
from fleetgen.importer.repo import Doc, at, mapping, mappings
from fleetgen.model.fields import to_dns_label

_SET_MAPPED: dict[str, tuple[str, ...]] = {
    "generators": (),
    "template": (),
    "goTemplate": (),
    "goTemplateOptions": (),
}
_SET_TODO = {
    "strategy": "roll changes through clusters with Environment(rollout=Rollout(steps=...))",
    "syncPolicy": "fleetgen's ApplicationSets keep their Applications' resources as "
    "Fleet(cascade_delete=...) says",
}
# Each parameter set a set's generators make: with the template it renders, and the selector of
# the clusters another tool registers it picks at run time (None: clusters of the repository).
Made = list[tuple[dict[str, str], Mapping[str, Any], dict[str, Any] | None]]


def application_set(reader: Reader, doc: Doc) -> None:
    """Each Application the set's generators make, named as the set names it with the
    cluster's part left out (one app across clusters); those on clusters another tool
    registers select them at run time by the generator's selector."""
    reader.draft.findings += [*unmapped(doc, _SET_MAPPED, _SET_TODO), *unread(doc)]
    reader.draft.findings += [*not_written(doc), *_options(doc)]
    reader.missed = []
    try:
        syntax = Syntax.of(doc)
        made, empty = _generated(reader, doc, syntax)
        rendered = [(p, own, render(own, p, syntax), picked) for p, own, picked in made]
    except Unresolved as error:
        reader.draft.findings.append(error.finding(doc))
        return
    if reader.missed:
        reader.draft.findings.append(
            doc.finding(
                f"ApplicationSet {doc.name!r}: its cluster generators for "
                f"{'; '.join(sorted(set(reader.missed)))} select clusters no Secret here "
                "registers and no cluster of the import stands for: what they generate or "
                "override is not imported",
                "add it by hand where it matters (per_env for an environment's clusters)",
                ("spec", "generators"),
            )
        )
    said = empty if made else [()]  # each generator that makes none, or all of them
    reader.draft.findings += [_none(doc, where) for where in said]
    every = [params for params, _, _ in made]
    for params, own, app, picked in rendered:
        destination_cluster(reader, doc, mapping(at(app, "spec", "destination")))  # named below
        name = _app_name(reader, doc, own, params, every, syntax)
        application(reader, doc, app, name, picked)


def _generated(reader: Reader, doc: Doc, syntax: Syntax) -> tuple[Made, list[Path]]:
    """The parameter sets of the set's generators, and the generators that make none."""
    template = mapping(doc.spec.get("template"))
    external = {c.draft.server for c in reader.clusters.values() if c.external}
    made: Made = []
    empty: list[Path] = []
    for index, generator in enumerate(mappings(doc.spec.get("generators"))):
        where = ("spec", "generators", index)
        sets = parameter_sets(reader, doc, generator, syntax, where)
        runtime = any(p.get("server") in external for p in sets)
        own = template_of(generator, template)
        made += [(p, own, selection(generator) if runtime else None) for p in sets]
        empty += [] if sets else [where]
    return made, empty


def _none(doc: Doc, where: Path) -> Finding:
    """That a generator (``where``; none: all of them) makes no Application here."""
    what = f"{dotted(where)} makes" if where else "its generators make"
    return doc.finding(
        f"ApplicationSet {doc.name!r}: {what} no Application from what the repository holds",
        "add its apps by hand if it deploys any",
        where or ("spec", "generators"),
    )


def _options(doc: Doc) -> list[Finding]:
    """goTemplateOptions of a set without goTemplate, which Argo CD ignores."""
    if doc.spec.get("goTemplate") or not doc.spec.get("goTemplateOptions"):
        return []
    return [
        doc.finding(
            f"ApplicationSet {doc.name!r}: spec.goTemplateOptions apply to Go templates only, "
            "and it has no goTemplate: true",
            "Argo CD ignores them: delete them, or set goTemplate: true and write the "
            "template in Go's syntax",
            ("spec", "goTemplateOptions"),
        )
    ]


def _app_name(
    reader: Reader,
    doc: Doc,
    template: Mapping[str, Any],
    params: Mapping[str, str],
    every: list[dict[str, str]],
    syntax: Syntax,
) -> str:
    """The app's name: the template's, rendered with every parameter that names a cluster (by
    its name, normalized name or server, whichever generator made it) left empty, and a
    generator's ``values`` where they differ between ``every`` parameter set."""
    clusters = reader.clusters
    names = {c.name for c in clusters.values()} | {c.draft.name for c in clusters.values()}
    names |= {c.params()["nameNormalized"] for c in clusters.values()}
    clusterish = {
        key
        for key, value in params.items()
        if key.startswith("metadata.")
        or (key.startswith("values.") and any(other.get(key) != value for other in every))
        or value in names
        or value.rstrip("/") in clusters
    }
    masked = {key: "" if key in clusterish else value for key, value in params.items()}
    name = str(render(at(template, "metadata", "name") or "", masked, syntax))
    return to_dns_label(re.sub(r"-+", "-", name), to_dns_label(doc.name, "app"))
