"""ApplicationSet generators evaluated as the controller does, against the repository's clusters
and files: list, cluster, git (directories and files: `gitfiles`), matrix and merge generators,
each set of parameters flat as fasttemplate names them (`rendering` renders templates with
them); the keys of a generator import does not read are findings."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from fleetgen.importer.argocd.clusters import local_cluster
from fleetgen.importer.argocd.clustervars import metadata_params
from fleetgen.importer.argocd.common import (
    EXPR,
    Cluster,
    LocalRead,
    Path,
    Reader,
    expr_key,
    texts,
)
from fleetgen.importer.argocd.gitfiles import NotParams, file_params, matching_files, path_params
from fleetgen.importer.argocd.rendering import Syntax, Unresolved, render
from fleetgen.importer.argocd.standins import shown
from fleetgen.importer.argocd.thisrepo import read_here
from fleetgen.importer.findings import Finding, dotted, unmapped
from fleetgen.importer.repo import Doc, at, mapping, mappings, strings
from fleetgen.importer.sources import carries_credentials
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model.clusters import IN_CLUSTER
from fleetgen.rules.argoproject import normalize_git_url

# The keys of each generator import evaluates (a generator of another kind is not mapped).
_READ: dict[str, tuple[str, ...]] = {
    "list": ("elements", "template"),
    "clusters": ("selector", "values", "template", "flatList"),
    "git": ("repoURL", "revision", "directories", "files", "values", "pathParamPrefix", "template"),
    "matrix": ("generators", "template"),
    "merge": ("generators", "mergeKeys", "template"),
}
_ENTRY = {"path": (), "exclude": ()}  # the keys of a git generator's directories and files
_TODO = {
    "requeueAfterSeconds": "fleetgen's ApplicationSets generate from what fleet.py lists, not "
    "from Git: an app for a folder or file added later is added to fleet.py",
}


def parameter_sets(
    reader: Reader, doc: Doc, generator: Mapping[str, Any], syntax: Syntax, where: Path
) -> list[dict[str, str]]:
    """The parameter sets of the generator written at ``where`` its ``selector`` keeps
    (matched against the sets); its own template only on a generator of the set itself
    (`template_of`)."""
    top = len(where) == 3  # spec.generators[N]
    if not top and any(mapping(value).get("template") for value in generator.values()):
        raise Unresolved("a generator's own template within a matrix or merge is not mapped")
    selector = mapping(generator.get("selector"))
    made = _generate(reader, doc, generator, syntax, where)
    return [p for p in made if selector_matches(selector, p)]


def unread(doc: Doc) -> list[Finding]:
    """A finding for each key of the set's generators (at any depth) import does not read."""
    found: list[Finding] = []
    listed = enumerate(mappings(doc.spec.get("generators")))
    pending: list[tuple[Path, Mapping[str, Any]]] = [
        (("spec", "generators", i), g) for i, g in listed
    ]
    while pending:
        where, generator = pending.pop(0)
        for kind, value in generator.items():
            if kind not in _READ or not isinstance(value, Mapping):
                continue  # its selector, or a generator import does not map (said)
            place: Path = (*where, kind)
            found += unmapped(
                doc, dict.fromkeys(_READ[kind], ()), _TODO, value, place, dotted(place)
            )
            for key in ("directories", "files") if kind == "git" else ():
                for index, entry in enumerate(mappings(value.get(key))):
                    entry_at = (*place, key, index)
                    found += unmapped(doc, _ENTRY, {}, entry, entry_at, dotted(entry_at))
            children = enumerate(mappings(value.get("generators")))
            pending += [((*place, "generators", i), child) for i, child in children]
    return found


def template_of(generator: Mapping[str, Any], template: Mapping[str, Any]) -> Mapping[str, Any]:
    """The template a generator of the set makes its Applications from: the fields of its own
    template, the set's where it sets none (applicationset generators
    ``mergeGeneratorTemplate``: mergo.Merge fills a field that is empty)."""
    owns = [mapping(value).get("template") for value in generator.values()]
    return mapping(_filled(next((own for own in owns if own), {}), template))


def _filled(own: Any, base: Any) -> Any:
    """``own`` with its empty fields (and the keys it lacks) taken from ``base``."""
    if not isinstance(own, Mapping) or not isinstance(base, Mapping):
        return base if own in (None, "", 0, False, [], {}) else own
    return {key: _filled(own.get(key), base.get(key)) for key in {**base, **own}}


def with_values(
    params: dict[str, str], values: Mapping[str, Any], syntax: Syntax
) -> dict[str, str]:
    """``params`` with a generator's ``values``, each rendered with them, as ``values.KEY``
    (generators ``appendTemplatedValues``)."""
    return params | {f"values.{k}": str(render(str(v), params, syntax)) for k, v in values.items()}


def _generate(
    reader: Reader, doc: Doc, generator: Mapping[str, Any], syntax: Syntax, where: Path
) -> list[dict[str, str]]:
    """The parameter sets a generator makes, flat as fasttemplate names them."""
    if "list" in generator:
        return [_flat(mapping(e)) for e in mappings(at(generator, "list", "elements"))]
    if "clusters" in generator:
        return _clusters(reader, doc, mapping(generator["clusters"]), syntax)
    if "git" in generator:
        return _git(reader, doc, mapping(generator["git"]), syntax, (*where, "git"))
    if "matrix" in generator:
        children = mappings(at(generator, "matrix", "generators"))
        if len(children) != 2:
            raise Unresolved("a matrix generator without exactly two generators")
        first, second = (
            parameter_sets(reader, doc, child, syntax, (*where, "matrix", "generators", index))
            for index, child in enumerate(children)
        )
        return [{**b, **a} for a, b in itertools.product(first, second)]
    if "merge" in generator:
        return _merged(reader, doc, mapping(generator["merge"]), syntax, (*where, "merge"))
    raise Unresolved(f"its {next(iter(generator), 'empty')!r} generator is not mapped")


def _clusters(
    reader: Reader, doc: Doc, clusters: Mapping[str, Any], syntax: Syntax
) -> list[dict[str, str]]:
    """The cluster generator's parameters of each cluster its ``selector`` picks, with its
    ``values`` rendered for each: the cluster Secrets here it matches, without a selector also
    the cluster Argo CD runs on unless a Secret registers it (applicationset generators/cluster.go
    ``GenerateParams``); a selector that matches no Secret here, the stand-ins for the clusters
    another tool registers (`standins`)."""
    if clusters.get("flatList"):
        raise Unresolved("a clusters generator's flatList (every cluster in one set) is not mapped")
    selector = mapping(clusters.get("selector"))
    values = mapping(clusters.get("values"))
    listed = [c for c in reader.clusters.values() if c.listed]
    secrets = [c for c in listed if not c.external and selector_matches(selector, c.labels)]
    others = [c for c in listed if c.external and selector_matches(selector, c.labels)]
    chosen = secrets
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        local = any(c.draft.server == IN_CLUSTER for c in listed)
        chosen = secrets if local else [*secrets, local_cluster(reader)]
    elif not secrets:
        chosen, others = others, []
        if not chosen:
            reader.missed.append(shown(selector))
    if others:
        reader.draft.findings.append(_also(doc, chosen, others))
    reads = {expr_key(m) for _, text in texts(doc.spec) for m in EXPR.finditer(text)}
    reads = {key for key in reads if key.startswith("metadata.")}
    made = []
    for cluster in chosen:
        params = (
            metadata_params(reader, cluster, reads, selector)
            if cluster.external
            else cluster.params()
        )
        made.append(with_values(params, values, syntax))
    return made


def _also(doc: Doc, chosen: list[Cluster], others: list[Cluster]) -> Finding:
    """A cluster generator that selects the repository's clusters and those another tool
    registers: imported on the repository's."""
    names = ", ".join(repr(c.draft.name) for c in chosen)
    return doc.finding(
        f"ApplicationSet {doc.name!r}: a cluster generator selects clusters registered here "
        f"({names}) and would also select those another tool registers "
        f"({', '.join(repr(c.draft.name) for c in others)}): imported on the first only",
        "add an app for the others with Selector(runtime=True)",
        ("spec", "generators"),
    )


def _merged(
    reader: Reader, doc: Doc, merge: Mapping[str, Any], syntax: Syntax, where: Path
) -> list[dict[str, str]]:
    """A merge generator's parameter sets as the controller makes them (applicationset
    generators/merge.go ``GenerateParams``): the first generator's sets, each overridden by
    the set of every later generator with the same values of ``mergeKeys``; two sets of one
    generator with the same values are an error there, and here."""
    keys = strings(merge.get("mergeKeys"))
    children = mappings(merge.get("generators"))
    if not keys or len(children) < 2:
        raise Unresolved("a merge generator without mergeKeys or two generators")
    base, *others = (
        _by_merge_key(reader, doc, child, keys, syntax, (*where, "generators", index))
        for index, child in enumerate(children)
    )
    for other in others:
        for key, params in base.items():
            params.update(other.get(key, {}))
    return list(base.values())


def _by_merge_key(
    reader: Reader,
    doc: Doc,
    generator: Mapping[str, Any],
    keys: list[str],
    syntax: Syntax,
    where: Path,
) -> dict[tuple[str | None, ...], dict[str, str]]:
    """A merge generator's child's parameter sets by the values of ``keys``
    (``getParamSetsByMergeKey``)."""
    found: dict[tuple[str | None, ...], dict[str, str]] = {}
    for params in parameter_sets(reader, doc, generator, syntax, where):
        key = tuple(params.get(name) for name in keys)
        if key in found:
            raise Unresolved(
                f"a merge generator whose generators make two parameter sets with the same "
                f"{', '.join(keys)} (Argo CD refuses it too)"
            )
        found[key] = dict(params)
    return found


def _git(
    reader: Reader, doc: Doc, git: Mapping[str, Any], syntax: Syntax, where: Path
) -> list[dict[str, str]]:
    """The git generator's parameter sets (generators/git.go ``GenerateParams``): of each folder
    its ``directories`` select, or of each file its ``files`` match, with its ``values``, in the
    set's ``syntax``; it reads this repository (another is not mapped), at a revision
    `thisrepo` compares with the fleet's."""
    url = str(git.get("repoURL", ""))
    known = {_same(u) for u in reader.urls}
    if known and _same(url) not in known:
        shown = "" if carries_credentials(url) else f" ({url})"
        raise Unresolved(f"its git generator reads another repository{shown}")
    who = f"ApplicationSet {doc.name!r}: its git generator"
    revision = str(git.get("revision") or "")
    read_here(reader, LocalRead(doc, who, where, url, revision, "revision"))
    prefix = str(git.get("pathParamPrefix") or "")
    if git.get("files"):
        made = _files(reader, mappings(git["files"]), prefix, syntax.go)
    else:
        made = _directories(reader, mappings(git.get("directories")), prefix, syntax.go)
    return [with_values(params, mapping(git.get("values")), syntax) for params in made]


def _same(url: str) -> str:
    """A repository URL as Argo CD compares them (`normalize_git_url`), a trailing ``/``
    ignored."""
    return normalize_git_url(url.strip().rstrip("/"))


def _files(
    reader: Reader, entries: list[Mapping[str, Any]], prefix: str, go: bool
) -> list[dict[str, str]]:
    """The parameter sets of each file of this repository the entries match (`gitfiles`); a
    file that does not parse stops the generator, as it stops the controller."""
    made: list[dict[str, str]] = []
    for file in matching_files(reader.repo, entries):
        try:
            made += file_params(reader.repo, file, prefix, go)
        except NotParams as error:
            raise Unresolved(
                f"its git files generator reads {error.file}:{error.line}, which Argo CD cannot "
                f"read as parameters ({error.reason}): it makes none of the set's Applications",
                ("spec", "generators"),
                "fix the file and rerun import, or add its apps by hand",
            ) from error
    return made


def _directories(
    reader: Reader, entries: list[Mapping[str, Any]], prefix: str, go: bool
) -> list[dict[str, str]]:
    """The parameters of each folder of this repository the directories select."""
    rules = [(str(d.get("path", "")), bool(d.get("exclude"))) for d in entries]
    root = reader.repo.root
    folders = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_dir() and ".git" not in p.relative_to(root).parts
    )
    chosen = [
        f
        for f in folders
        if any(_glob(f, p) for p, ex in rules if not ex)
        and not any(_glob(f, p) for p, ex in rules if ex)
    ]
    return [path_params(folder, prefix=prefix, go=go) for folder in chosen]


def _glob(folder: str, pattern: str) -> bool:
    """Go's path.Match of a whole path: ``*`` within one segment."""
    parts, wanted = folder.split("/"), pattern.strip("/").split("/")
    return len(parts) == len(wanted) and all(
        fnmatchcase(p, w) for p, w in zip(parts, wanted, strict=True)
    )


def _flat(element: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """A list generator's element as flat parameters (nested keys joined with dots)."""
    found: dict[str, str] = {}
    for key, value in element.items():
        if isinstance(value, Mapping):
            found |= _flat(value, f"{prefix}{key}.")
        else:
            found[f"{prefix}{key}"] = str(value)
    return found
