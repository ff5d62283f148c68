"""Reading the repository: the `Reader` and `Lister` that every scan goes through (over the
working tree here; ``diff`` gives ones over a Git tree), and helpers that read kustomizations,
YAML nodes and the digest of a folder's files.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from fleetgen.manifests.yamlio import document_nodes

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")

# (path relative to the repo root) -> bytes, or None when there is no such file.
Reader = Callable[[str], bytes | None]
# (directory relative to the repo root) -> the repo-relative paths of every file under it.
Lister = Callable[[str], Iterable[str]]
Document = tuple[str, bytes, int]  # a file's path and bytes, and the index of a document in it


def filesystem_reader(root: Path) -> Reader:
    """A Reader over a directory on disk."""

    def read(path: str) -> bytes | None:
        target = root / path
        return target.read_bytes() if target.is_file() else None

    return read


def filesystem_lister(root: Path) -> Lister:
    """A Lister over a directory on disk."""

    def files(directory: str) -> list[str]:
        return sorted(
            path.relative_to(root).as_posix()
            for path in (root / directory).rglob("*")
            if path.is_file()
        )

    return files


def find_kustomization(read: Reader, directory: str) -> tuple[str, bytes] | None:
    """The file name and bytes of the kustomization in ``directory``, None when it has none."""
    for name in KUSTOMIZATION_FILES:
        data = read(posixpath.join(directory, name))
        if data is not None:
            return name, data
    return None


def folder_digest(read: Reader, files: Iterable[str], path: str) -> str:
    """The digest of ``files``, those under the folder ``path``: their paths and bytes."""
    total = hashlib.sha256()
    for name in sorted(files):
        data = read(name) or b""
        total.update(f"{posixpath.relpath(name, path)}\0{len(data)}\0".encode())
        total.update(data)
    return total.hexdigest()


def node_of(data: bytes, index: int) -> yaml.Node | None:
    """The node of document ``index`` of ``data`` (None if it cannot be read)."""
    try:
        nodes = document_nodes(data)
    except yaml.YAMLError:
        return None
    return nodes[index] if index < len(nodes) else None


def nodes_of(data: bytes, count: int) -> list[yaml.Node | None]:
    """The node of each of the ``count`` documents of ``data`` (Nones if it cannot be read)."""
    try:
        return list(document_nodes(data))
    except yaml.YAMLError:
        return [None] * count


def as_mapping(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []
