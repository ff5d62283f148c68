"""The inventory of what the spec refers to on disk: app bases (kustomize bases:
`fleetgen.inputs.bases`, or plain directories of manifests: `fleetgen.inputs.plaindirs`), charts
kept in the repository, Helm values files and the CA certificate files of clusters
(`Certificate`).

``load`` takes it once so that ``resolve`` stays pure. Reading goes through a ``Reader``
(`fleetgen.inputs.reading`) so the same scan works on the working tree and (for ``diff``) on a
Git tree.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from fleetgen.inputs.bases import Base, kustomize_base
from fleetgen.inputs.filesecrets import SecretFound, SecretScan
from fleetgen.inputs.plaindirs import scan_directory
from fleetgen.inputs.reading import (
    KUSTOMIZATION_FILES,
    Lister,
    Reader,
    find_kustomization,
    folder_digest,
)
from fleetgen.manifests.yamlio import load_all, load_one
from fleetgen.model.fields import ca_bundle, values_problem


@dataclass(frozen=True, slots=True)
class ChartDir:
    """A Helm chart kept in the repository: what its Chart.yaml says (None: no Chart.yaml)."""

    path: str
    name: str | None = None
    version: str | None = None
    problems: tuple[str, ...] = ()
    digest: str = ""  # of every file under the chart's folder (paths and bytes)


@dataclass(frozen=True, slots=True)
class Certificate:
    """A cluster's CA certificate file (``CaFile``): its content as ``Cluster.ca_data`` holds it,
    or why it cannot be used."""

    path: str
    ca_data: str | None = None  # base64 of the PEM CERTIFICATE blocks
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class ValuesFile:
    """A Helm values file kept in the repository (``values_files=``): its values, or why it is
    none (missing, not YAML, not one mapping of Helm values), and the secret material in it."""

    path: str
    values: Mapping[str, Any] | None = None
    problem: str | None = None
    secrets: tuple[SecretFound, ...] = ()


@dataclass(frozen=True, slots=True)
class Workspace:
    """Bases, charts, CA certificate files and Helm values files by repo-relative path."""

    bases: Mapping[str, Base] = field(default_factory=dict)
    charts: Mapping[str, ChartDir] = field(default_factory=dict)
    certificates: Mapping[str, Certificate] = field(default_factory=dict)
    values_files: Mapping[str, ValuesFile] = field(default_factory=dict)


def scan(
    read: Reader,
    paths: Iterable[str],
    charts: Iterable[str] = (),
    files: Lister | None = None,
    certificates: Iterable[str] = (),
    values_files: Iterable[str] = (),
) -> Workspace:
    """Inventory every base in ``paths``, chart in ``charts``, CA certificate file in
    ``certificates`` and Helm values file in ``values_files`` (repo-relative, normalized);
    ``files`` lists a chart's files for its digest (required when there are charts) and a plain
    directory's (without it, a path without a kustomization is no base)."""
    found = sorted(set(charts))
    if found and files is None:
        raise ValueError("scanning charts needs a Lister")
    return Workspace(
        {path: _scan_base(read, path, files) for path in sorted(set(paths))},
        {path: _scan_chart(read, files, path) for path in found if files is not None},
        {path: _read_certificate(read, path) for path in sorted(set(certificates))},
        {path: _read_values_file(read, path) for path in sorted(set(values_files))},
    )


def _scan_base(read: Reader, path: str, files: Lister | None) -> Base:
    """The inventory of the base at ``path``: a kustomization there and what it reads, else a
    plain directory (when ``files`` lists files under it), else no base."""
    found = find_kustomization(read, path)
    if found is not None:
        return kustomize_base(read, path, found)
    listed = sorted(files(path)) if files is not None else []
    if listed and read(path) is None:  # a directory of files: a plain directory
        return scan_directory(read, path, listed)
    return Base(path=path, file=read(path) is not None)


def _read_values_file(read: Reader, path: str) -> ValuesFile:
    """A values file as Helm reads one ``-f`` file: one YAML document, a mapping (an empty file
    is no values); its secret material by the rules of base files (`scanrules.in_object`)."""
    data = read(path)
    if data is None:
        return ValuesFile(path, problem="no such file")
    try:
        documents = load_all(data)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        return ValuesFile(path, problem=f"is not valid YAML: {problem}{where}")
    docs = [doc for doc in documents if doc is not None]
    if len(docs) > 1:
        return ValuesFile(path, problem=f"holds {len(docs)} YAML documents; Helm reads one")
    values = docs[0] if docs else {}
    problem = (
        values_problem(values, "values")
        if isinstance(values, dict)
        else f"is a YAML {type(values).__name__}, not a mapping of Helm values"
    )
    if problem is not None:
        return ValuesFile(path, problem=problem)
    found = SecretScan()
    found.scan_documents(path, data, documents)
    return ValuesFile(path, values, secrets=tuple(found.secrets))


def _read_certificate(read: Reader, path: str) -> Certificate:
    data = read(path)
    if data is None:
        return Certificate(path, problem="no such file")
    try:
        return Certificate(path, ca_bundle(data.decode("ascii")))
    except UnicodeDecodeError:
        return Certificate(path, problem="not a text file (PEM or base64)")
    except ValueError as error:
        return Certificate(path, problem=str(error))


def _scan_chart(read: Reader, files: Lister, path: str) -> ChartDir:
    digest = folder_digest(read, files(path), path)
    data = read(posixpath.join(path, "Chart.yaml"))
    if data is None:
        return ChartDir(path, digest=digest)
    try:
        doc = load_one(data)
    except yaml.YAMLError as error:
        return ChartDir(
            path,
            problems=(f"Chart.yaml is not valid YAML: {error}".replace("\n", " "),),
            digest=digest,
        )
    if not isinstance(doc, dict) or not all(
        isinstance(doc.get(k), str) and doc[k] for k in ("name", "version")
    ):
        return ChartDir(
            path, problems=("Chart.yaml needs a name and a version (strings)",), digest=digest
        )
    return ChartDir(path, doc["name"], doc["version"], digest=digest)


@dataclass(frozen=True, slots=True)
class Deps:
    """What an app's base reads: whole directories (one per kustomization) and single files."""

    dirs: frozenset[str]
    files: frozenset[str]


def base_deps(read: Reader, base: str) -> Deps:
    """The inputs of the base at ``base``, found by recording what the workspace scan reads."""
    reads: list[tuple[str, bool]] = []

    def recording(path: str) -> bytes | None:
        data = read(path)
        reads.append((path, data is not None))
        return data

    scan(recording, [base])
    dirs = {base} | {
        posixpath.dirname(path)
        for path, found in reads
        if found and posixpath.basename(path) in KUSTOMIZATION_FILES
    }
    files = {path for path, _ in reads if not any(_under(path, d) for d in dirs)}
    return Deps(frozenset(dirs), frozenset(files))


def _under(path: str, directory: str) -> bool:
    return directory in (".", "") or path.startswith(directory.rstrip("/") + "/")
