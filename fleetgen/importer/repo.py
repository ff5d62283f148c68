"""The repository as import reads it: every YAML document of every ``.yaml``/``.yml`` file, each
with its file and line, and what a directory deploys (its kustomize build, or a plain
directory's files as the engines read them)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from fleetgen.importer.findings import Finding
from fleetgen.inputs.reading import KUSTOMIZATION_FILES
from fleetgen.manifests.k8s import group_of, kustomize_config
from fleetgen.manifests.yamlio import document_nodes, dump, load_all, node_line
from fleetgen.tools import kustomize

# Folders no GitOps object lives in: VCS data, fleetgen's output, tool caches.
_SKIPPED = frozenset({".git", "output", "node_modules", ".venv", "venv", "__pycache__"})


@dataclass(frozen=True, slots=True)
class Doc:
    """One object of the repository: where it is written and what it says."""

    file: str  # repo-relative, POSIX
    line: int
    obj: Mapping[str, Any]
    node: yaml.Node | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind", ""))

    @property
    def group(self) -> str:
        return group_of(self.obj.get("apiVersion"))

    @property
    def name(self) -> str:
        return str(self.meta.get("name", ""))

    @property
    def namespace(self) -> str:
        return str(self.meta.get("namespace", ""))

    @property
    def meta(self) -> Mapping[str, Any]:
        return mapping(self.obj.get("metadata"))

    @property
    def spec(self) -> Mapping[str, Any]:
        return mapping(self.obj.get("spec"))

    def is_(self, group: str, kind: str) -> bool:
        """Whether it is a ``kind`` of API group ``group`` (any version)."""
        return self.kind == kind and (self.group == group or self.group.startswith(f"{group}/"))

    def finding(self, what: str, todo: str, path: tuple[str | int, ...] = ()) -> Finding:
        """A finding at this object (``path``: the field it is about, for its line)."""
        line = node_line(self.node, path) if path and self.node is not None else None
        return Finding(self.file, line or self.line, what, todo)


@dataclass(slots=True)
class Repo:
    """The repository at ``root``: its objects in file and document order, its kustomization
    files, and the files whose YAML could not be read (as findings)."""

    root: Path
    docs: list[Doc] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    lines: dict[tuple[str, str, str], list[Doc]] = field(default_factory=dict)
    builds: dict[str, list[Doc] | Unreadable] = field(default_factory=dict)  # by folder, fields
    kustomizations: dict[str, Doc] = field(default_factory=dict)  # kustomize's own, by file
    listed: frozenset[str] | None = None  # every file, once `files` has listed them

    def files(self) -> frozenset[str]:
        """Every file of the repository (repo-relative, POSIX), but in skipped folders."""
        if self.listed is None:
            self.listed = frozenset(
                path.relative_to(self.root).as_posix()
                for path in self.root.rglob("*")
                if path.is_file() and not _SKIPPED.intersection(path.relative_to(self.root).parts)
            )
        return self.listed

    def under(self, directory: str) -> Iterator[Doc]:
        """The objects written in files under ``directory`` (repo-relative; "." for all)."""
        prefix = "" if directory in ("", ".") else directory.rstrip("/") + "/"
        return (doc for doc in self.docs if doc.file.startswith(prefix))

    def origin(self, obj: Mapping[str, Any], near: str = ".") -> Doc:
        """Where a rendered object is written: the object of its kind and name, under ``near``
        if one is there; else the directory ``near`` itself."""
        meta = mapping(obj.get("metadata"))
        key = (str(obj.get("kind", "")), str(meta.get("name", "")), group_of(obj.get("apiVersion")))
        found = self.lines.get(key, [])
        prefix = near.rstrip("/") + "/"
        written = next((doc for doc in found if doc.file.startswith(prefix)), None)
        written = written or (found[0] if found else None)
        if written is None:
            return Doc(near, 0, obj)
        return Doc(written.file, written.line, obj, written.node)

    def kustomization(self, directory: str) -> Doc | None:
        """The kustomization of ``directory`` as read with the repository, None when it has
        none that parses as a mapping."""
        prefix = "" if directory in ("", ".") else f"{directory.rstrip('/')}/"
        files = (prefix + name for name in KUSTOMIZATION_FILES)
        return next((self.kustomizations[f] for f in files if f in self.kustomizations), None)

    def has_kustomization(self, directory: str) -> bool:
        """Whether ``directory`` holds a kustomization (else it is a plain folder)."""
        return any((self.root / directory / name).is_file() for name in KUSTOMIZATION_FILES)

    def deployed(self, directory: str, added: Mapping[str, Any] | None = None) -> list[Doc]:
        """What ``directory`` deploys: its kustomize build when it holds a kustomization (each
        object located where it is written), with ``added`` (kustomization fields: namespace,
        patches, images) as a Flux Kustomization adds them; else every object of its files (as
        a plain directory). Raises `Unreadable` when kustomize fails."""
        if not self.has_kustomization(directory):
            return list(self.under(directory))
        key = directory + (dump(dict(added)) if added else "")
        if key not in self.builds:  # each cluster folder may apply it: built once
            self.builds[key] = self._built(directory, added or {})
        built = self.builds[key]
        if isinstance(built, Unreadable):
            raise built
        return built

    def _built(self, directory: str, added: Mapping[str, Any]) -> list[Doc] | Unreadable:
        with tempfile.TemporaryDirectory(prefix="fleetgen-import-") as scratch:
            target = self.root / directory
            if added:
                target = Path(scratch)
                overlay = overlay_of(self.root / directory, target, added)
                (target / "kustomization.yaml").write_text(dump(overlay), encoding="utf-8")
            try:
                text = kustomize.build(target)
            except kustomize.KustomizeBuildError as error:
                return Unreadable(str(error).strip().splitlines()[-1])
        return [self.origin(obj, directory) for obj in load_all(text) if _is_object(obj)]


def namespaces_of(docs: Iterable[Doc]) -> set[str]:
    """The namespaces objects are put in, and the Namespaces among them."""
    found = {doc.namespace for doc in docs if doc.namespace}
    return found | {doc.name for doc in docs if doc.kind == "Namespace" and doc.group == ""}


def overlay_of(resource: Path, folder: Path, added: Mapping[str, Any]) -> dict[str, Any]:
    """The kustomization in ``folder`` of ``resource`` (a kustomize folder, reached by a
    relative path as kustomize wants) with ``added`` fields, as a Flux Kustomization's
    ``targetNamespace``, ``patches`` and ``images`` are put on its folder."""
    return {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [Path(os.path.relpath(resource, folder)).as_posix()],
        **added,
    }


class Unreadable(Exception):
    """A directory kustomize cannot build; the message is kustomize's last line."""


def read_repo(root: Path) -> Repo:
    """Every object of the YAML files under ``root`` (kustomize's own files apart)."""
    repo = Repo(root)
    for path in _yaml_files(root):
        relative = path.relative_to(root).as_posix()
        for index, (node, obj) in enumerate(_documents(path, relative, repo.findings)):
            if index == 0 and path.name in KUSTOMIZATION_FILES:
                repo.kustomizations[relative] = Doc(relative, _node_start(node), mapping(obj), node)
            elif _is_object(obj) and not kustomize_config(obj):
                doc = Doc(relative, _node_start(node), obj, node)
                repo.docs.append(doc)
                repo.lines.setdefault((doc.kind, doc.name, doc.group), []).append(doc)
    return repo


def _yaml_files(root: Path) -> list[Path]:
    """The YAML files of the repository, but in skipped folders and in Helm charts (templates
    are no YAML until rendered)."""
    charts = {path.parent for path in root.rglob("Chart.yaml")}
    found = []
    for path in root.rglob("*"):
        parts = path.relative_to(root).parts
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        if any(part in _SKIPPED for part in parts) or any(c in path.parents for c in charts):
            continue
        found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def _documents(
    path: Path, relative: str, findings: list[Finding]
) -> list[tuple[yaml.Node | None, Any]]:
    """(node, document) of each document in the file; a file YAML cannot read is a finding."""
    try:
        data = path.read_bytes()
        nodes = document_nodes(data)
        docs = load_all(data)
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        reason = getattr(error, "problem", None) or type(error).__name__
        findings.append(
            Finding(relative, line, f"YAML that cannot be read ({reason})", "fix the file, rerun")
        )
        return []
    return list(zip(nodes, docs, strict=True))


def _node_start(node: yaml.Node | None) -> int:
    return node.start_mark.line + 1 if node is not None else 0


def _is_object(obj: Any) -> bool:
    return isinstance(obj, Mapping) and isinstance(obj.get("kind"), str)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (YAML may hold anything anywhere)."""
    return value if isinstance(value, Mapping) else {}


def mappings(value: Any) -> list[Mapping[str, Any]]:
    """The mappings among the items of a YAML list; nothing for anything else."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def strings(value: Any) -> list[str]:
    """The items of a YAML list as text; nothing for anything else."""
    return [str(item) for item in value] if isinstance(value, list) else []


def at(value: Any, *keys: str) -> Any:
    """What ``keys`` reach from ``value`` through mappings, None where they break off."""
    for key in keys:
        value = mapping(value).get(key)
    return value


def relative_path(text: str) -> str | None:
    """A Flux/Argo CD ``path`` as a repo-relative POSIX path ("." for the root), None when it
    leaves the repository."""
    parts = [p for p in PurePosixPath(text.strip().lstrip("/")).parts if p != "."]
    if ".." in parts:
        return None
    return "/".join(parts) or "."
