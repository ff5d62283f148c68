"""Argo CD's ApplicationSets: each Application a set's generators make is imported as an
Application, named as the set names it with the cluster's part left out (one app across
clusters)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fleetgen.importer.argocd.applications import application
from fleetgen.importer.argocd.clusters import destination_cluster
from fleetgen.importer.argocd.common import Reader
from fleetgen.importer.argocd.generators import Unresolved, parameter_sets, render, template_of
from fleetgen.importer.argocd.standins import selection
from fleetgen.importer.findings import unmapped
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


def application_set(reader: Reader, doc: Doc) -> None:
    """Each Application the set's generators make, named as the set names it with the
    cluster's part left out (one app across clusters); those on clusters another tool
    registers select them at run time by the generator's selector."""
    spec = doc.spec
    template = mapping(spec.get("template"))
    reader.draft.findings += unmapped(doc, _SET_MAPPED, _SET_TODO)
    external = {c.draft.server for c in reader.clusters.values() if c.external}
    made: list[tuple[dict[str, str], Mapping[str, Any], dict[str, Any] | None]] = []
    reader.missed = []
    try:
        for generator in mappings(spec.get("generators")):
            sets = parameter_sets(reader, doc, generator, top=True)
            runtime = any(p.get("server") in external for p in sets)
            own = template_of(generator, template)
            made += [(p, own, selection(generator) if runtime else None) for p in sets]
        rendered = [(params, own, render(own, params), picked) for params, own, picked in made]
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
    if not made:
        reader.draft.findings.append(
            doc.finding(
                f"ApplicationSet {doc.name!r}: its generators make no Application from what "
                "the repository holds",
                "add its apps by hand if it deploys any",
                ("spec", "generators"),
            )
        )
    every = [params for params, _, _ in made]
    for params, own, app, picked in rendered:
        destination_cluster(reader, doc, mapping(at(app, "spec", "destination")))  # named below
        name = _app_name(reader, doc, own, params, every)
        application(reader, doc, app, name, picked)


def _app_name(
    reader: Reader,
    doc: Doc,
    template: Mapping[str, Any],
    params: Mapping[str, str],
    every: list[dict[str, str]],
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
    name = str(render(at(template, "metadata", "name") or "", masked))
    return to_dns_label(re.sub(r"-+", "-", name), to_dns_label(doc.name, "app"))
