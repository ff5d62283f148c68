"""Every distinct overlay kustomize-built once, in parallel, through the content-addressed cache.

The overlays and the inputs of every app base are copied into a temporary tree (nothing is
written to the repo), each overlay with kustomize's ``buildMetadata: [originAnnotations]`` so
that every rendered object names the file it came from (the annotation is removed again). An
overlay's cache key hashes every file its build can read, by path relative to the overlay,
(generated files by their parsed content, without fleetgen's header comments) plus the
kustomize version: overlays with the same complete inputs share one entry and one build, and an
unchanged overlay is not rebuilt on the next run.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from fleetgen import api, cache
from fleetgen.kustomize import Kustomize, KustomizeBuildError, build_many, find_kustomize
from fleetgen.workspace import base_deps, filesystem_reader
from fleetgen.yamlio import load_all

_ORIGIN = "config.kubernetes.io/origin"
_ORIGINS = b"\nbuildMetadata:\n- originAnnotations\n"
_NAMESPACE = "kustomize"


@dataclass(frozen=True, slots=True)
class Rendered:
    """One rendered object and the repo-relative file it came from (None when unknown)."""

    doc: dict[str, Any]
    origin: str | None


@dataclass(frozen=True, slots=True)
class Builds:
    """Rendered objects per overlay (output-relative path) and how they were obtained."""

    objects: Mapping[str, list[Rendered]]
    failures: Mapping[str, str]  # overlay -> kustomize's error
    distinct: int  # distinct overlay contents
    built: int  # kustomize runs in this call
    cached: int  # distinct contents served from the cache
    keys: Mapping[str, str] = field(default_factory=dict)  # overlay -> cache key


def render(compiled: api.Compiled, root: Path, overlays: Sequence[str]) -> Builds:
    """Build ``overlays`` (output-relative); reuse cached builds of identical inputs."""
    kustomize = find_kustomize()
    store = cache.Cache(compiled.out_dir)
    prefix = compiled.out_dir.resolve().relative_to(root).as_posix()
    with tempfile.TemporaryDirectory(prefix="fleetgen-validate-") as tmp:
        tree = Path(tmp)
        inputs, generated = _materialize(compiled, root, tree, prefix)
        keys = {
            overlay: cache.key(
                {
                    "kustomize": kustomize.version,
                    "files": _hashes(tree, f"{prefix}/{overlay}", inputs[overlay], generated),
                }
            )
            for overlay in overlays
        }
        by_key: dict[str, str] = {}
        for overlay in sorted(overlays):
            by_key.setdefault(keys[overlay], overlay)
        results: dict[str, list[list[Any]]] = {}
        for entry in by_key:
            value = store.get(_NAMESPACE, entry)
            if _valid(value):
                results[entry] = value
        missing = {tree / prefix / by_key[entry]: entry for entry in by_key if entry not in results}
        outputs, errors = _build(sorted(missing), kustomize)
    for path, text in outputs.items():
        results[missing[path]] = _parse(text)
        store.put(_NAMESPACE, missing[path], results[missing[path]])
    failed = {missing[path]: error for path, error in errors.items()}
    objects = {
        overlay: list(_resolve(f"{prefix}/{overlay}", results[keys[overlay]]))
        for overlay in overlays
        if keys[overlay] not in failed
    }
    return Builds(
        objects,
        {overlay: failed[keys[overlay]] for overlay in overlays if keys[overlay] in failed},
        len(by_key),
        len(missing),
        len(by_key) - len(missing),
        keys,
    )


def _build(paths: Sequence[Path], kustomize: Kustomize) -> tuple[dict[Path, str], dict[Path, str]]:
    """(outputs, errors) of building ``paths`` in parallel; a failure does not stop the rest."""
    try:
        return build_many(paths, kustomize=kustomize), {}
    except KustomizeBuildError as error:
        rest = [path for path in paths if path not in error.failures]
        return build_many(rest, kustomize=kustomize), dict(error.failures)


def _valid(value: Any) -> TypeGuard[list[list[Any]]]:
    return isinstance(value, list) and all(
        isinstance(item, list)
        and len(item) == 2
        and isinstance(item[0], dict)
        and (item[1] is None or isinstance(item[1], str))
        for item in value
    )


def _parse(text: str) -> list[list[Any]]:
    """[object, origin relative to the overlay] of every rendered object; annotation removed."""
    found: list[list[Any]] = []
    for doc in load_all(text):
        if not isinstance(doc, dict):
            continue
        metadata = doc.get("metadata") or {}
        annotations = metadata.get("annotations") or {}
        [origin] = load_all(annotations.pop(_ORIGIN, "") or "{}")
        if not annotations:
            metadata.pop("annotations", None)
        if not isinstance(origin, dict) or "repo" in origin:  # unknown, or a remote base
            origin = {}
        where = origin.get("path") or origin.get("configuredIn")
        found.append([doc, where if isinstance(where, str) else None])
    return found


def _resolve(overlay: str, entries: list[list[Any]]) -> Iterator[Rendered]:
    for doc, origin in entries:
        path = posixpath.normpath(posixpath.join(overlay, origin)) if origin else None
        yield Rendered(doc, None if path is None or path.startswith("..") else path)


def _materialize(
    compiled: api.Compiled, root: Path, tree: Path, prefix: str
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Copy overlays and base inputs under ``tree``: the repo-relative inputs of each overlay,
    and the content hash of each generated file."""
    generated = {}
    for path, data in compiled.rendered.items():
        if path.startswith("overlays/"):
            if posixpath.basename(path) == "kustomization.yaml":
                data += _ORIGINS
            target = tree / prefix / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            generated[f"{prefix}/{path}"] = _content_hash(data)
    read = filesystem_reader(root)
    base_inputs: dict[str, list[str]] = {}
    for base in sorted({overlay.base for overlay in compiled.plan.env_overlays}):
        deps = base_deps(read, base)
        for directory in sorted(deps.dirs):
            if (root / directory).is_dir():
                shutil.copytree(root / directory, tree / directory, dirs_exist_ok=True)
        for path in sorted(deps.files):
            if (root / path).is_file():
                (tree / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / path, tree / path)
        base_inputs[base] = sorted(deps.dirs | deps.files)
    inputs: dict[str, list[str]] = {}
    for env in compiled.plan.env_overlays:
        inputs[env.path] = [f"{prefix}/{env.path}", *base_inputs[env.base]]
    for overlay in compiled.plan.cluster_overlays:
        inputs[overlay.path] = [f"{prefix}/{overlay.path}", *inputs[overlay.env_overlay.path]]
    return inputs, generated


def _hashes(
    tree: Path, overlay: str, inputs: Sequence[str], generated: Mapping[str, str]
) -> list[tuple[str, str]]:
    """(path relative to the overlay, sha256) of every file under ``inputs`` in ``tree``.

    Generated files (``generated``: repo-relative path -> hash) count by their parsed content,
    so overlays that differ only in fleetgen's header comments share a key.
    """
    files: set[Path] = set()
    for entry in inputs:
        path = tree / entry
        if path.is_file():
            files.add(path)
        elif path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file())
    hashes = []
    for path in files:
        relative = path.relative_to(tree).as_posix()
        digest = generated.get(relative) or hashlib.sha256(path.read_bytes()).hexdigest()
        hashes.append((posixpath.relpath(relative, overlay), digest))
    return sorted(hashes)


def _content_hash(data: bytes) -> str:
    """The hash of a generated YAML file's documents, comments left out."""
    docs = load_all(data)
    return hashlib.sha256(json.dumps(docs, sort_keys=True).encode()).hexdigest()
