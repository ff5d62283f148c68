"""The inventory of what the spec refers to on disk: app bases and what they contain.

``load`` takes it once so that ``resolve`` stays pure. Reading goes through a ``Reader`` so the
same scan works on the working tree and (for ``diff``) on a Git tree.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")

# (path relative to the repo root) -> bytes, or None when there is no such file.
Reader = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class Base:
    """What fleetgen knows about one kustomize base."""

    path: str
    kustomization: str | None = None
    configmaps: frozenset[str] = frozenset()
    resources: frozenset[tuple[str, str]] = frozenset()  # (kind, name)
    complete: bool = True  # False when the base pulls in things fleetgen cannot see
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChartDir:
    """A Helm chart kept in the repository: what its Chart.yaml says (None: no Chart.yaml)."""

    path: str
    name: str | None = None
    version: str | None = None
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Workspace:
    """Bases and charts by repo-relative path."""

    bases: Mapping[str, Base] = field(default_factory=dict)
    charts: Mapping[str, ChartDir] = field(default_factory=dict)


def base_path(path: str) -> str:
    """An app's ``path``, normalized: its base relative to the repo root (the directory holding
    fleet.py)."""
    return posixpath.normpath(path.replace("\\", "/"))


def filesystem_reader(root: Path) -> Reader:
    """A Reader over a directory on disk."""

    def read(path: str) -> bytes | None:
        target = root / path
        return target.read_bytes() if target.is_file() else None

    return read


def scan(read: Reader, paths: Iterable[str], charts: Iterable[str] = ()) -> Workspace:
    """Inventory every base in ``paths`` and chart in ``charts`` (repo-relative, normalized)."""
    return Workspace({path: _scan_base(read, path) for path in sorted(set(paths))},
                     {path: _scan_chart(read, path) for path in sorted(set(charts))})


def _scan_chart(read: Reader, path: str) -> ChartDir:
    data = read(posixpath.join(path, "Chart.yaml"))
    if data is None:
        return ChartDir(path)
    try:
        doc = yaml.load(data, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as error:
        return ChartDir(path, problems=(f"Chart.yaml is not valid YAML: {error}".replace(
            "\n", " "),))
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) and doc[k]
                                            for k in ("name", "version")):
        return ChartDir(path, problems=("Chart.yaml needs a name and a version (strings)",))
    return ChartDir(path, doc["name"], doc["version"])


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
    dirs = {base} | {posixpath.dirname(path) for path, found in reads
                     if found and posixpath.basename(path) in KUSTOMIZATION_FILES}
    files = {path for path, _ in reads if not any(_under(path, d) for d in dirs)}
    return Deps(frozenset(dirs), frozenset(files))


def _under(path: str, directory: str) -> bool:
    return directory in (".", "") or path.startswith(directory.rstrip("/") + "/")


def _find_kustomization(read: Reader, directory: str) -> tuple[str, bytes] | None:
    for name in KUSTOMIZATION_FILES:
        data = read(posixpath.join(directory, name))
        if data is not None:
            return name, data
    return None


def _scan_base(read: Reader, path: str) -> Base:
    found = _find_kustomization(read, path)
    if found is None:
        return Base(path=path)
    inventory = _Inventory()
    inventory.add_kustomization(read, path, found[1], depth=0)
    return Base(
        path=path,
        kustomization=found[0],
        configmaps=frozenset(inventory.configmaps),
        resources=frozenset(inventory.resources),
        complete=inventory.complete,
        problems=tuple(inventory.problems),
    )


@dataclass
class _Inventory:
    configmaps: set[str] = field(default_factory=set)
    resources: set[tuple[str, str]] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    complete: bool = True

    def add_kustomization(self, read: Reader, directory: str, data: bytes, depth: int) -> None:
        doc = self._parse(directory, data)
        if not isinstance(doc, dict):
            return
        if depth > 8 or doc.get("namePrefix") or doc.get("nameSuffix") or doc.get("helmCharts"):
            self.complete = False
        for generator in doc.get("configMapGenerator") or []:
            if isinstance(generator, dict) and isinstance(generator.get("name"), str):
                self.configmaps.add(generator["name"])
        for entry in doc.get("resources") or []:
            if isinstance(entry, str):
                self._add_resource(read, posixpath.normpath(posixpath.join(directory, entry)),
                                   depth)

    def _add_resource(self, read: Reader, path: str, depth: int) -> None:
        if "://" in path or path.startswith(("github.com/", "git@")) or path.startswith(".."):
            self.complete = False
            return
        data = read(path)
        if data is not None:
            for doc in self._parse_all(path, data):
                self._add_object(doc)
            return
        nested = _find_kustomization(read, path)
        if nested is None:
            self.problems.append(f"resource {path!r} listed in a kustomization does not exist")
        else:
            self.add_kustomization(read, path, nested[1], depth + 1)

    def _add_object(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            return
        kind, name = doc.get("kind"), (doc.get("metadata") or {}).get("name")
        if isinstance(kind, str) and isinstance(name, str):
            self.resources.add((kind, name))
            if kind == "ConfigMap":
                self.configmaps.add(name)

    def _parse(self, path: str, data: bytes) -> Any:
        docs = self._parse_all(path, data)
        return docs[0] if docs else None

    def _parse_all(self, path: str, data: bytes) -> list[Any]:
        try:
            return [d for d in yaml.load_all(data, Loader=yaml.CSafeLoader) if d is not None]
        except yaml.YAMLError as error:
            self.problems.append(f"{path} is not valid YAML: {error}".replace("\n", " "))
            return []
