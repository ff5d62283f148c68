"""An Argo CD chart's Helm value files (``helm.valueFiles``) as fleetgen's ``values_files``, per
instance (its cluster), as the repo-server resolves them (``getResolvedValueFiles``): a
``$ref/PATH`` entry is PATH in the repository of the source whose ``ref`` is ``ref``
(``getResolvedRefValueFile``), any other entry a file of the chart's folder (``/PATH``: of the
repository's root), never outside the repository. A source with a ``ref`` and neither path nor
chart deploys nothing (``GenerateManifest`` skips it): only its files are read.

Whether a ref source is this repository is known once every source has been read (`settle`):
the files of another repository, or of another revision, are findings; a file missing here is left
out under ``ignoreMissingValueFiles``, as Argo CD does, else a finding. On clusters selected at run
time, a ref source's URL or revision read from their annotations is taken as this repository at
the fleet's revision, and an annotation a path starts with as its base path in it, as this
repository's root (the control-plane pattern; a finding says so); a path that reads them
otherwise is a finding."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fleetgen.importer.argocd.clustervars import after_var, reads_cluster
from fleetgen.importer.argocd.common import Cluster, Path, Reader, RefSource, ValueFiles
from fleetgen.importer.argocd.thisrepo import is_fleet_revision
from fleetgen.importer.draft import Instance
from fleetgen.importer.repo import Doc, mapping, mappings, strings
from fleetgen.inputs.reading import filesystem_reader
from fleetgen.inputs.workspace import ValuesFile, scan
from fleetgen.rules.argoproject import GLOB_CHARS, normalize_git_url

# The keys of a source's ``helm`` this module reads.
VALUE_FILES_KEYS = ("valueFiles", "ignoreMissingValueFiles")
_SECRET_TODO = (
    "not mapped: keep it in a Secret the chart reads (existingSecret), and the rest of the file in "
    "values_files="
)


@dataclass(frozen=True, slots=True)
class Sources:
    """An Application's sources as Argo CD reads them: those it deploys, each with where it is
    written, and those value files name by ``$ref``."""

    deployed: list[tuple[Path, Mapping[str, Any]]]
    refs: dict[str, tuple[Path, Mapping[str, Any]]]


def sources_of(spec: Mapping[str, Any]) -> Sources:
    """``spec.sources`` (else ``spec.source``) split as the repo-server reads them."""
    listed = mappings(spec.get("sources"))
    found: list[tuple[Path, Mapping[str, Any]]] = [
        (("sources", i), s) for i, s in enumerate(listed)
    ] or [(("source",), mapping(spec.get("source")))]
    refs = {f"${s['ref']}": (where, s) for where, s in found if s.get("ref")}
    return Sources([(where, s) for where, s in found if _deployed(s)], refs)


def _deployed(source: Mapping[str, Any]) -> bool:
    """Whether Argo CD deploys a source: any but one with a ``ref`` and neither path nor chart
    (``Service.GenerateManifest``)."""
    oci = str(source.get("repoURL", "")).startswith("oci://")
    return not source.get("ref") or bool(source.get("path") or source.get("chart") or oci)


def read(
    reader: Reader, origin: Doc, instance: Instance, sources: Sources, cluster: Cluster | None
) -> None:
    """The value files of an instance's chart (the first deployed source), to be settled once
    this repository's URLs are known; what cannot be one a finding now. ``cluster``: the
    stand-in of clusters selected at run time the instance is on, if it is on one."""
    where, source = sources.deployed[0]
    helm = mapping(source.get("helm"))
    top = ("spec", "template", "spec") if origin.kind == "ApplicationSet" else ("spec",)
    at = (*top, *where, "helm", "valueFiles")
    chart = instance.chart
    files: list[tuple[int, str, RefSource | None]] = []
    runtime: list[int] = []
    for index, raw in enumerate(strings(helm.get("valueFiles"))):
        name, _, rest = raw.partition("/")
        ref = _ref(reader, sources.refs.get(name), top, cluster) if raw.startswith("$") else None
        if ref is not None and ref.guessed:  # its base path in that repository: the root
            rest = after_var(rest)
        if cluster is not None and reads_cluster(reader, cluster, rest if ref else raw):
            runtime.append(index)
            continue
        if raw.startswith("$"):
            path = _inside("", f"/{rest}")
        else:
            path = _inside(chart.path if chart and chart.path else None, raw)
        what = _unreadable(raw, path, ref, name, chart is not None and chart.path is None)
        if what is not None:
            reader.draft.findings.append(
                origin.finding(
                    f"{instance.name}: helm.valueFiles[{index}] {what}", _todo(what), (*at, index)
                )
            )
        elif path is not None:
            files.append((index, path, ref))
    if runtime:
        shown = ", ".join(f"[{i}]" for i in runtime)
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: helm.valueFiles{shown} read the clusters selected at run time: "
                "not mapped",
                "fleetgen's values files are the same for the clusters of a layer: add them by "
                "hand (per_env Overrides(values_files=...) for what differs by environment)",
                (*at, runtime[0]),
            )
        )
    if files:
        ignore = helm.get("ignoreMissingValueFiles") is True
        reader.value_files.append(ValueFiles(instance, origin, at, tuple(files), ignore))


def _ref(
    reader: Reader, found: tuple[Path, Mapping[str, Any]] | None, top: Path, cluster: Cluster | None
) -> RefSource | None:
    """The ref source a ``$ref/`` entry names (None: no source has that ref)."""
    if found is None:
        return None
    where, source = found
    url, revision = str(source.get("repoURL", "")), str(source.get("targetRevision") or "")
    guessed = cluster is not None and any(
        reads_cluster(reader, cluster, t) for t in (url, revision)
    )
    return RefSource((*top, *where), url, revision, guessed)


def _inside(base: str | None, raw: str) -> str | None:
    """A value file's repo-relative path: ``/PATH`` from the repository's root, any other from
    ``base`` (a chart's folder); None outside the repository or without a ``base``
    (``resolveFileOrDirectory``)."""
    if raw.startswith("/"):
        base = ""
    if base is None:
        return None
    path = posixpath.normpath(posixpath.join(base, raw.lstrip("/")))
    return None if path == "." or path.split("/")[0] == ".." else path


def _unreadable(
    raw: str,
    path: str | None,
    ref: RefSource | None,
    name: str,
    remote_chart: bool,
) -> str | None:
    """Why an entry cannot be a fleetgen values file; None when it can (or is said elsewhere)."""
    if "://" in raw:
        return "is a URL: not mapped"
    if raw.startswith("$") and ref is None:
        return f"names {name!r}, which no source's ref is: Argo CD cannot render the app"
    if not raw.startswith("$") and remote_chart:
        return "is a file of the chart repository's chart: not mapped"
    if path is None:
        return "leaves the repository: not mapped"
    if GLOB_CHARS.intersection(path):
        return "is a glob: not mapped"
    return None


def _todo(what: str) -> str:
    """What to do about an entry `_unreadable` refuses."""
    if "ref is" in what:
        return "fix the Application, then add the file to values_files= by hand"
    return "copy its values into values= (or the file into this repository, values_files=)"


def settle(reader: Reader, origin: str | None) -> None:
    """Each instance's value files, now that this repository's URLs and revisions are known:
    those of this repository that exist and Helm can read, in order, each once; the rest
    findings. A ref source is this repository when its URL is one the repository's folder
    sources name (or its Git remote ``origin``), or, when none does, when its files are here."""
    known = {normalize_git_url(url) for url in reader.urls if url}
    known |= {normalize_git_url(origin)} if origin else set()
    checked: dict[str, ValuesFile] = {}
    for wanted in reader.value_files:
        refs = dict.fromkeys(ref for _, _, ref in wanted.files if ref is not None)
        away = {
            ref: None if ref.guessed else _elsewhere(reader, wanted, ref, known) for ref in refs
        }
        paths: list[str] = []
        for index, path, ref in wanted.files:
            if ref is not None and away[ref]:
                reader.draft.findings.append(
                    wanted.origin.finding(
                        f"{wanted.instance.name}: helm.valueFiles[{index}] is {path!r} "
                        f"{away[ref]}: not mapped",
                        "copy its values into values= (or the file into this repository, "
                        "values_files=)",
                        (*wanted.at, index),
                    )
                )
                continue
            problem = _problem(reader, path, checked, wanted.ignore_missing)
            if problem is None:
                paths += [] if path in paths else [path]
                _guessed(reader, wanted, ref)
            elif problem[0]:
                reader.draft.findings.append(
                    wanted.origin.finding(
                        f"{wanted.instance.name}: values file {path!r} {problem[0]}",
                        problem[1],
                        (*wanted.at, index),
                    )
                )
        wanted.instance.values_files = paths


def _guessed(reader: Reader, wanted: ValueFiles, ref: RefSource | None) -> None:
    """The finding that a file is read from this repository on the word of no URL but an
    annotation of the clusters selected at run time."""
    if ref is not None and ref.guessed:
        reader.draft.findings.append(
            wanted.origin.finding(
                f"{wanted.instance.name}: its value files' repository, revision (and base path) "
                "are annotations of the clusters selected at run time: read as this "
                "repository's root at the fleet's revision",
                "check their annotations name this repository; else copy the values into values=",
                (*ref.where, "repoURL"),
            )
        )


def _elsewhere(reader: Reader, wanted: ValueFiles, ref: RefSource, known: set[str]) -> str | None:
    """Where a ref source reads other than this repository at the fleet's revision; None when
    it reads there."""
    url = normalize_git_url(ref.url)
    here = url in known or (
        not known and any((reader.repo.root / p).is_file() for _, p, r in wanted.files if r == ref)
    )
    if not here:
        return f"of another repository ({ref.url}, revision {ref.revision or 'HEAD'!r})"
    if not is_fleet_revision(reader, ref.revision):
        return f"of this repository at revision {ref.revision!r}, not the fleet's"
    if not known:
        reader.urls[ref.url] += 1  # this repository's URL, as its ref sources name it
    return None


def _problem(
    reader: Reader, path: str, checked: dict[str, ValuesFile], ignore_missing: bool
) -> tuple[str, str] | None:
    """Why a file of this repository is no values file fleetgen reads, and what to do (nothing
    said when it is missing and ``ignoreMissingValueFiles`` leaves it out); None when it is
    one."""
    if not (reader.repo.root / path).is_file():
        if ignore_missing:
            return "", ""
        return (
            "is not in the repository: Argo CD cannot render the app",
            "imported without it: add the file, then put it in values_files=",
        )
    if path not in checked:
        read = filesystem_reader(reader.repo.root)
        checked[path] = scan(read, (), values_files=[path]).values_files[path]
    found = checked[path]
    if found.problem is not None:
        return f"{found.problem}: not mapped", "fix the file, then put it in values_files="
    return ("looks like it holds secret material", _SECRET_TODO) if found.secrets else None
