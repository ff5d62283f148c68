"""Flux's ArtifactGenerator (source-watcher, ``source.extensions.fluxcd.io``) and the
ExternalArtifacts it makes of the repository's files, which a Kustomization reads like any
source (kustomize-controller's ``getSource``, behind its ``ExternalArtifact`` feature gate): its
``path`` in the artifact is mapped back to the repository folder the artifact copies there
(`artifacts`), so it imports as a Kustomization of the repository's own GitRepository does. An
artifact of other sources, or of files merged or extracted, or laid out otherwise than the
repository, is a finding, as is a HelmRelease's ``chartRef`` to an ExternalArtifact."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleetgen.importer.draft import Packed
from fleetgen.importer.findings import Finding, dotted, unmapped
from fleetgen.importer.flux.artifacts import Artifact, Copy, Unmapped, build, folder_of
from fleetgen.importer.flux.common import GENERATORS, Walk, key
from fleetgen.importer.repo import Doc, mapping, mappings

_TODO = (
    "point the Kustomization at the repository's folder (sourceRef GitRepository flux-system) "
    "and rerun import, or add the app by hand"
)
# What import reads of an ArtifactGenerator's spec, and of the entries of its lists.
_MAPPED: dict[str, tuple[str, ...]] = {"sources": (), "artifacts": ()}
_ENTRIES = {
    ("sources",): {"alias": (), "kind": (), "name": (), "namespace": ()},
    ("artifacts",): {"name": (), "copy": (), "revision": (), "originRevision": ()},
    ("artifacts", "copy"): {"from": (), "to": (), "exclude": (), "strategy": ()},
}
_GENERATOR_TODO = {
    "pathPattern": "import reads the artifacts spec.artifacts names: point a Kustomization at "
    "each folder the pattern matches (sourceRef GitRepository flux-system), rerun import",
    "commonMetadata": "labels and annotations of the ExternalArtifacts, which fleetgen does not "
    "make: nothing to do unless something selects them",
}
_STRATEGY = {
    "Merge": "merges YAML files (strategy Merge), which makes files no repository folder holds",
    "Extract": "extracts tarballs (strategy Extract), whose files no repository folder holds",
}


def is_generator(doc: Doc) -> bool:
    """Whether ``doc`` is an ArtifactGenerator."""
    return doc.is_(GENERATORS, "ArtifactGenerator")


def register(walk: Walk, doc: Doc) -> None:
    """An ArtifactGenerator the cluster applies: its artifacts known by name (the
    ExternalArtifacts it makes in its namespace), its findings."""
    namespace = doc.namespace or walk.namespace
    for item in mappings(doc.spec.get("artifacts")):
        walk.generators.setdefault((namespace, str(item.get("name", ""))), doc)
    walk.draft.findings += _findings(walk, doc)


def unpacked(walk: Walk, doc: Doc, path: str, ref: Mapping[str, Any]) -> str | None:
    """The repository folder a Kustomization reads as ``path`` of the ExternalArtifact ``ref``
    names (kept as its `Packed` in ``walk.packed``); None, a finding, when it is none."""
    name = str(ref.get("name", ""))
    try:
        artifact = _artifact(walk, str(ref.get("namespace") or doc.namespace), name)
        folder = folder_of(artifact, path, walk.repo.files())
    except Unmapped as why:
        walk.draft.findings.append(
            doc.finding(
                f"Kustomization {doc.name!r}: ExternalArtifact {name!r} is no folder of the "
                f"repository ({why})",
                _TODO,
                ("spec", "sourceRef"),
            )
        )
        return None
    walk.packed[key(doc)] = Packed(path, tuple(sorted(artifact.files.items())))
    return folder


def artifact_chart(walk: Walk, release: Doc) -> Finding:
    """The finding of a HelmRelease whose ``chartRef`` is an ExternalArtifact, naming the
    repository's chart folder the artifact copies where it is one."""
    ref = mapping(release.spec.get("chartRef"))
    name = str(ref.get("name", ""))
    what = f"HelmRelease {release.name!r}: its chart is ExternalArtifact {name!r}"
    try:
        artifact = _artifact(walk, str(ref.get("namespace") or release.namespace), name)
        folder = folder_of(artifact, ".", walk.repo.files())
    except Unmapped as why:
        return release.finding(
            f"{what}, no folder of the repository ({why})",
            "add the app by hand as App(chart=HelmChart(...))",
            ("spec", "chartRef"),
        )
    return release.finding(
        f"{what}, a copy of the repository's folder {folder!r}: not mapped",
        f"add the app by hand with HelmChart(path={folder!r}); fleetgen's release upgrades when "
        "the chart's version changes, helm-controller's did on every change of the artifact",
        ("spec", "chartRef"),
    )


def _artifact(walk: Walk, namespace: str, name: str) -> Artifact:
    """The files of the ExternalArtifact ``name`` in ``namespace``, as its ArtifactGenerator
    builds them; raises `Unmapped`."""
    generator = _generator(walk, namespace or walk.namespace, name)
    if generator.spec.get("pathPattern"):
        raise Unmapped(f"ArtifactGenerator {generator.name!r} makes it by a pathPattern")
    item = next(a for a in mappings(generator.spec.get("artifacts")) if a.get("name") == name)
    try:
        copies = [Copy.of(raw) for raw in mappings(item.get("copy"))]
        return build(copies, _sources(walk, generator))
    except Unmapped as why:
        raise Unmapped(f"ArtifactGenerator {generator.name!r} cannot build it: {why}") from None


def _generator(walk: Walk, namespace: str, name: str) -> Doc:
    """The ArtifactGenerator making the artifact ``name`` in ``namespace``: the one the cluster
    applies, else the one the repository holds (its findings then said); raises `Unmapped`."""
    found = walk.generators.get((namespace, name))
    if found is not None:
        return found
    held = [
        doc
        for doc in walk.repo.docs
        if is_generator(doc)
        and (doc.namespace or walk.namespace) == namespace
        and name in (str(a.get("name")) for a in mappings(doc.spec.get("artifacts")))
    ]
    if len(held) != 1:
        raise Unmapped(
            "no ArtifactGenerator in the repository makes it"
            if not held
            else f"{len(held)} ArtifactGenerators make it, none applied here"
        )
    walk.draft.findings += _findings(walk, held[0])
    return held[0]


def _sources(walk: Walk, generator: Doc) -> dict[str, frozenset[str] | str]:
    """Each source alias of a generator: the repository's files (its own GitRepository), or
    what the source is."""
    found: dict[str, frozenset[str] | str] = {}
    for source in mappings(generator.spec.get("sources")):
        kind, name = str(source.get("kind", "")), str(source.get("name", ""))
        alias = str(source.get("alias", ""))
        found[alias] = walk.repo.files() if walk.is_root(source, generator) else f"{kind} {name!r}"
    return found


def _findings(walk: Walk, doc: Doc) -> list[Finding]:
    """What of a generator import does not map: its fields but its sources and artifacts, a
    source other than the repository, a Merge or Extract copy; and that its artifacts are read
    as the repository's folders."""
    found = unmapped(doc, _MAPPED, _GENERATOR_TODO)
    for index, source in enumerate(mappings(doc.spec.get("sources"))):
        found += _entry(doc, ("sources", index), source)
        if not walk.is_root(source, doc):
            found.append(
                doc.finding(
                    f"ArtifactGenerator {doc.name!r}: source {source.get('alias')!r} is "
                    f"{source.get('kind')} {source.get('name')!r}, not the repository's "
                    "GitRepository",
                    "import reads this repository's files only: add the apps of the artifacts "
                    "that copy from it by hand",
                    ("spec", "sources", index),
                )
            )
    for index, item in enumerate(mappings(doc.spec.get("artifacts"))):
        found += _entry(doc, ("artifacts", index), item)
        found += _unbuilt(walk, doc, item, ("spec", "artifacts", index))
        for number, copy in enumerate(mappings(item.get("copy"))):
            where = ("artifacts", index, "copy", number)
            found += _entry(doc, where, copy)
            strategy = str(copy.get("strategy") or "Overwrite")
            if strategy in _STRATEGY:
                found.append(
                    doc.finding(
                        f"ArtifactGenerator {doc.name!r}: artifact {item.get('name')!r} "
                        f"{_STRATEGY[strategy]}",
                        "commit the files it makes and copy them as they are, then rerun "
                        "import; or add the apps reading it by hand",
                        ("spec", *where, "strategy"),
                    )
                )
    return [*found, _whole_repository(doc)]


def _unbuilt(
    walk: Walk, doc: Doc, item: Mapping[str, Any], where: tuple[str | int, ...]
) -> list[Finding]:
    """A finding when source-watcher cannot build an artifact (``applyCopyOperations`` fails
    on it: no source of the alias, no file matched), whether a Kustomization reads it or not."""
    try:
        build([Copy.of(raw) for raw in mappings(item.get("copy"))], _sources(walk, doc))
    except Unmapped as why:
        return [
            doc.finding(
                f"ArtifactGenerator {doc.name!r}: source-watcher cannot build its artifact "
                f"{item.get('name')!r} ({why})",
                "it makes no ExternalArtifact: fix the generator, rerun import",
                where,
            )
        ]
    return []


def _entry(doc: Doc, where: tuple[str | int, ...], entry: Mapping[str, Any]) -> list[Finding]:
    """A finding for each field of an entry of the generator's lists import does not read."""
    kinds = tuple(part for part in where if isinstance(part, str))
    return unmapped(doc, _ENTRIES[kinds], {}, entry, ("spec", *where), dotted(("spec", *where)))


def _whole_repository(doc: Doc) -> Finding:
    """That the imported fleet reconciles each app at every commit of the repository, where
    the generator let an artifact whose revision is its content's digest (no ``revision``)
    reconcile only on changes of its own files (source-watcher's ``setArtifactRevisions``)."""
    items = mappings(doc.spec.get("artifacts"))
    own = [str(item.get("name")) for item in items if not item.get("revision")]
    listed = ", ".join(repr(name) for name in own)
    how = (
        "as its artifacts did (their revision is their source's)"
        if not own
        else f"where its artifacts {listed} changed only with their own files"
        if len(own) > 1
        else f"where its artifact {listed} changed only with its own files"
    )
    return doc.finding(
        f"ArtifactGenerator {doc.name!r}: the imported fleet reads the folders its artifacts "
        f"copy from the repository itself, so each app reconciles at every commit, {how}",
        "nothing to do (a Kustomization whose files did not change applies nothing new); "
        "fleetgen writes no ArtifactGenerator: remove it once the engines read output/",
    )
