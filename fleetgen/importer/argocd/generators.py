"""ApplicationSet generators evaluated as the controller does, against the repository's clusters
and files: list, cluster, git (directories and files: `gitfiles`), matrix and merge generators,
each set of parameters flat as fasttemplate names them, and templates rendered with them."""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from fleetgen.importer.argocd.clusters import local_cluster
from fleetgen.importer.argocd.clustervars import metadata_params
from fleetgen.importer.argocd.common import EXPR, Cluster, Reader, expr_key, texts
from fleetgen.importer.argocd.gitfiles import NotParams, file_params, matching_files, path_params
from fleetgen.importer.argocd.standins import shown
from fleetgen.importer.findings import Finding
from fleetgen.importer.repo import Doc, at, mapping, mappings, strings
from fleetgen.importer.sources import carries_credentials
from fleetgen.manifests.k8s import selector_matches
from fleetgen.model.clusters import IN_CLUSTER

_THIS_REVISION = ("", "HEAD", "main")  # the revision the fleet's Applications read


class Unresolved(Exception):
    """A generator or template expression import cannot evaluate: said at the ApplicationSet,
    or at ``where`` (a file and line), with ``todo``."""

    def __init__(
        self, what: str, where: tuple[str, int] | None = None, todo: str = "add its apps by hand"
    ) -> None:
        super().__init__(what)
        self.where, self.todo = where, todo

    def finding(self, doc: Doc) -> Finding:
        """The finding of the ApplicationSet ``doc`` this stopped."""
        what = f"ApplicationSet {doc.name!r}: {self}"
        if self.where is None:
            return doc.finding(what, self.todo)
        return Finding(*self.where, what, self.todo)


def parameter_sets(
    reader: Reader, doc: Doc, generator: Mapping[str, Any], top: bool = False
) -> list[dict[str, str]]:
    """A generator's parameter sets its ``selector`` keeps (matched against the sets); its own
    template only on a generator of the set itself (`template_of`)."""
    if not top and any(mapping(value).get("template") for value in generator.values()):
        raise Unresolved("a generator's own template within a matrix or merge is not mapped")
    selector = mapping(generator.get("selector"))
    return [p for p in _generate(reader, doc, generator) if selector_matches(selector, p)]


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


def with_values(params: dict[str, str], values: Mapping[str, Any]) -> dict[str, str]:
    """``params`` with a generator's ``values``, each rendered with them, as ``values.KEY``
    (generators ``appendTemplatedValues``)."""
    return params | {f"values.{k}": str(render(str(v), params)) for k, v in values.items()}


def render(value: Any, params: Mapping[str, str]) -> Any:
    """``value`` with every ``{{...}}`` replaced from ``params``."""
    if isinstance(value, Mapping):
        return {render(k, params): render(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [render(item, params) for item in value]
    if not isinstance(value, str) or "{{" not in value:
        return value

    def one(match: re.Match[str]) -> str:
        key = expr_key(match)
        if key not in params:
            raise Unresolved(f"template value {match[0]!r} not known here")
        return params[key]

    done = EXPR.sub(one, value)
    if "{{" in done:
        raise Unresolved(f"template expression in {value!r} not evaluated")
    return done


def _generate(reader: Reader, doc: Doc, generator: Mapping[str, Any]) -> list[dict[str, str]]:
    """The parameter sets a generator makes, flat as fasttemplate names them."""
    if "list" in generator:
        return [_flat(mapping(e)) for e in mappings(at(generator, "list", "elements"))]
    if "clusters" in generator:
        return _clusters(reader, doc, mapping(generator["clusters"]))
    if "git" in generator:
        return _git(reader, doc, mapping(generator["git"]))
    if "matrix" in generator:
        children = mappings(at(generator, "matrix", "generators"))
        if len(children) != 2:
            raise Unresolved("a matrix generator without exactly two generators")
        first, second = (parameter_sets(reader, doc, child) for child in children)
        return [{**b, **a} for a, b in itertools.product(first, second)]
    if "merge" in generator:
        return _merged(reader, doc, mapping(generator["merge"]))
    raise Unresolved(f"its {next(iter(generator), 'empty')!r} generator is not mapped")


def _clusters(reader: Reader, doc: Doc, clusters: Mapping[str, Any]) -> list[dict[str, str]]:
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
        made.append(with_values(params, values))
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


def _merged(reader: Reader, doc: Doc, merge: Mapping[str, Any]) -> list[dict[str, str]]:
    """A merge generator's parameter sets as the controller makes them (applicationset
    generators/merge.go ``GenerateParams``): the first generator's sets, each overridden by
    the set of every later generator with the same values of ``mergeKeys``; two sets of one
    generator with the same values are an error there, and here."""
    keys = strings(merge.get("mergeKeys"))
    children = mappings(merge.get("generators"))
    if not keys or len(children) < 2:
        raise Unresolved("a merge generator without mergeKeys or two generators")
    base, *others = (_by_merge_key(reader, doc, child, keys) for child in children)
    for other in others:
        for key, params in base.items():
            params.update(other.get(key, {}))
    return list(base.values())


def _by_merge_key(
    reader: Reader, doc: Doc, generator: Mapping[str, Any], keys: list[str]
) -> dict[tuple[str | None, ...], dict[str, str]]:
    """A merge generator's child's parameter sets by the values of ``keys``
    (``getParamSetsByMergeKey``)."""
    found: dict[tuple[str | None, ...], dict[str, str]] = {}
    for params in parameter_sets(reader, doc, generator):
        key = tuple(params.get(name) for name in keys)
        if key in found:
            raise Unresolved(
                f"a merge generator whose generators make two parameter sets with the same "
                f"{', '.join(keys)} (Argo CD refuses it too)"
            )
        found[key] = dict(params)
    return found


def _git(reader: Reader, doc: Doc, git: Mapping[str, Any]) -> list[dict[str, str]]:
    """The git generator's parameter sets (generators/git.go ``GenerateParams``): of each folder
    its ``directories`` select, or of each file its ``files`` match, with its ``values``; it
    reads this repository (another is not mapped), at the revision here (another: a finding)."""
    url = str(git.get("repoURL", ""))
    known = {_same(u) for u in reader.urls}
    if known and _same(url) not in known:
        shown = "" if carries_credentials(url) else f" ({url})"
        raise Unresolved(f"its git generator reads another repository{shown}")
    revision = str(git.get("revision") or "")
    if revision not in _THIS_REVISION:
        reader.draft.findings.append(
            doc.finding(
                f"ApplicationSet {doc.name!r}: its git generator reads revision {revision!r}: "
                "evaluated on the files here",
                "check that revision holds the same files, or add its apps by hand",
                ("spec", "generators"),
            )
        )
    reader.urls[url] += 1
    prefix = str(git.get("pathParamPrefix") or "")
    if git.get("files"):
        made = _files(reader, mappings(git["files"]), prefix)
    else:
        made = _directories(reader, mappings(git.get("directories")), prefix)
    return [with_values(params, mapping(git.get("values"))) for params in made]


def _same(url: str) -> str:
    """A repository URL as its host and path, whatever its case, ``.git`` or trailing ``/``."""
    return url.strip().lower().rstrip("/").removesuffix(".git")


def _files(reader: Reader, entries: list[Mapping[str, Any]], prefix: str) -> list[dict[str, str]]:
    """The parameter sets of each file of this repository the entries match (`gitfiles`); a
    file that does not parse stops the generator, as it stops the controller."""
    made: list[dict[str, str]] = []
    for file in matching_files(reader.repo, entries):
        try:
            made += file_params(reader.repo, file, prefix)
        except NotParams as error:
            raise Unresolved(
                f"its git files generator reads {file}, which Argo CD cannot read as parameters "
                f"({error.reason}): it makes none of the set's Applications",
                (error.file, error.line),
                "fix the file, rerun import",
            ) from error
    return made


def _directories(
    reader: Reader, entries: list[Mapping[str, Any]], prefix: str
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
    return [path_params(folder, prefix=prefix) for folder in chosen]


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
