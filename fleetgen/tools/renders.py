"""Overlays built with kustomize through the cache: the one render cache of ``validate --render``
and ``diff --render``.

What the builds read is laid out in a scratch directory (`lay_out`, never the repository): the
generated overlay files, each kustomization with kustomize's ``buildMetadata:
[originAnnotations]`` so that every rendered object names the file it came from (the annotation
is removed again), and every input of the bases, read from the working tree or a Git tree. An
overlay's cache key hashes the kustomize version and every file its build can read, by path
relative to the overlay (generated files by their parsed content, without fleetgen's header
comments): overlays with the same complete inputs share one entry and one build, whichever
command built them, and an unchanged overlay is not built again. A plain directory (no
kustomization) is built as kustomize-controller builds it (`plain_directory`).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from fleetgen.inputs.plaindirs import FLUX_SUFFIXES
from fleetgen.inputs.reading import Lister, Reader
from fleetgen.inputs.workspace import base_deps
from fleetgen.manifests.yamlio import dump, load_all
from fleetgen.tools.kustomize import Kustomize, KustomizeBuildError, build_many
from fleetgen.util.cache import Cache, key
from fleetgen.util.progress import SILENT, Progress

NAMESPACE = "kustomize"  # the cache folder of kustomize builds
_ORIGIN = "config.kubernetes.io/origin"
_ORIGINS = b"\nbuildMetadata:\n- originAnnotations\n"
_KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}


@dataclass(frozen=True, slots=True)
class Rendered:
    """One rendered object and the scratch-relative file it came from (None when unknown)."""

    doc: dict[str, Any]
    origin: str | None


@dataclass(frozen=True, slots=True)
class Builds:
    """Rendered objects per overlay and how they were obtained."""

    objects: Mapping[str, list[Rendered]]
    failures: Mapping[str, str]  # overlay -> kustomize's error
    distinct: int  # distinct overlay contents
    built: int  # kustomize runs in this call
    cached: int  # distinct contents served from the cache
    keys: Mapping[str, str] = field(default_factory=dict)  # overlay -> cache key


@dataclass(frozen=True, slots=True)
class Scratch:
    """A laid-out scratch directory: what each base's build reads (scratch-relative files and
    directories), and the content hash of each generated file."""

    root: Path
    base_inputs: Mapping[str, list[str]]
    generated: Mapping[str, str]

    def inputs(self, overlay: str, builds_on: str | None, bases: Iterable[str]) -> list[str]:
        """What the build of ``overlay`` reads (scratch-relative): its folder, the env overlay
        a cluster overlay ``builds_on``, and the inputs of its ``bases``: its app's base and
        the directories its layers add (resources, components)."""
        found = dict.fromkeys(path for base in bases for path in self.base_inputs[base])
        return [overlay, *([builds_on] if builds_on else []), *found]


def lay_out(
    root: Path, generated: Mapping[str, bytes], bases: Iterable[str], read: Reader, files: Lister
) -> Scratch:
    """Write under ``root`` (an empty scratch directory) the ``generated`` files (by
    root-relative path) and every input of the ``bases``, read through ``read`` and ``files``."""
    hashes = {}
    for path, data in generated.items():
        if posixpath.basename(path) == "kustomization.yaml":
            data += _ORIGINS
        _write(root / path, data)
        hashes[path] = _content_hash(data)
    base_inputs: dict[str, list[str]] = {}
    for base in sorted(set(bases)):
        deps = base_deps(read, base)
        wanted = {path for directory in deps.dirs for path in files(directory)} | deps.files
        for path in sorted(wanted):
            found = read(path)
            if found is not None:
                _write(root / path, found)
        base_inputs[base] = sorted(deps.dirs | deps.files)
    return Scratch(root, base_inputs, hashes)


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def build(
    scratch: Scratch,
    overlays: Mapping[str, Sequence[str]],
    store: Cache | None,
    kustomize: Kustomize,
    progress: Progress = SILENT,
    phase: str = "kustomize build",
) -> Builds:
    """Build ``overlays`` (scratch-relative path -> the scratch-relative files and directories
    its build reads) once per distinct content, reusing the builds ``store`` holds; a failure
    does not stop the rest. ``progress`` gets the builds as a counted ``phase``."""
    keys = {
        overlay: key({"kustomize": kustomize.version, "files": _hashes(scratch, overlay, inputs)})
        for overlay, inputs in overlays.items()
    }
    by_key: dict[str, str] = {}
    for overlay in sorted(overlays):
        by_key.setdefault(keys[overlay], overlay)
    results: dict[str, list[list[Any]]] = {}
    for entry in by_key:
        value = store.get(NAMESPACE, entry) if store is not None else None
        if _valid(value):
            results[entry] = value
    missing = {scratch.root / by_key[entry]: entry for entry in by_key if entry not in results}
    if by_key:
        progress.phase(
            phase,
            unit="overlays",
            verb="built",
            total=len(by_key),
            cached=len(by_key) - len(missing),
        )
    outputs, errors = _build(sorted(missing), kustomize, lambda _: progress.advance())
    for path, text in outputs.items():
        results[missing[path]] = _parse(text)
        if store is not None:
            store.put(NAMESPACE, missing[path], results[missing[path]])
    failed = {missing[path]: error for path, error in errors.items()}
    return Builds(
        {
            overlay: list(_resolve(overlay, results[keys[overlay]]))
            for overlay in overlays
            if keys[overlay] not in failed
        },
        {overlay: failed[keys[overlay]] for overlay in overlays if keys[overlay] in failed},
        len(by_key),
        len(missing),
        len(by_key) - len(missing),
        keys,
    )


def _build(
    paths: Sequence[Path], kustomize: Kustomize, done: Callable[[Path], None]
) -> tuple[dict[Path, str], dict[Path, str]]:
    """(outputs, errors) of building ``paths`` in parallel; a failure does not stop the rest.
    ``done``: called once per path, as its first build ends."""
    try:
        return build_many(paths, kustomize=kustomize, done=done), {}
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


def _hashes(scratch: Scratch, overlay: str, inputs: Sequence[str]) -> list[tuple[str, str]]:
    """(path relative to the overlay, sha256) of every file under ``inputs`` in the scratch
    directory; generated files by their parsed content, so overlays that differ only in
    fleetgen's header comments share a key."""
    files: set[Path] = set()
    for entry in inputs:
        path = scratch.root / entry
        if path.is_file():
            files.add(path)
        elif path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file())
    hashes = []
    for path in files:
        relative = path.relative_to(scratch.root).as_posix()
        digest = scratch.generated.get(relative) or hashlib.sha256(path.read_bytes()).hexdigest()
        hashes.append((posixpath.relpath(relative, overlay), digest))
    return sorted(hashes)


def _content_hash(data: bytes) -> str:
    """The hash of a generated YAML file's documents, comments left out."""
    docs = load_all(data)
    return hashlib.sha256(json.dumps(docs, sort_keys=True).encode()).hexdigest()


def directory_unit(path: str, namespace: str | None) -> str:
    """The name a plain directory's objects go by in place of an overlay, read with the app
    ``namespace``: the scratch folder of the kustomization that builds it."""
    return f"{_PLAIN}/{namespace or '_'}/{path}"


_PLAIN = ".plain-directories"  # in the scratch directory, beside the repository's folders


def directory_of(unit: str) -> tuple[str, str | None] | None:
    """The plain directory and the namespace a `directory_unit` builds; None for any other
    name (an overlay's)."""
    if not unit.startswith(_PLAIN + "/"):
        return None
    namespace, _, path = unit[len(_PLAIN) + 1 :].partition("/")
    return path, None if namespace == "_" else namespace  # "_" is no namespace name


def plain_directory(unit: str, files: Iterable[str]) -> dict[str, bytes]:
    """The kustomization kustomize-controller generates for the plain directory of ``unit``
    (`directory_of`; ``files``: those under it; fluxcd/pkg kustomize ``scanManifests``: every
    .yaml and .yml file), and the one of ``unit`` that builds it with Flux's
    ``targetNamespace`` (``Generator.GenerateManifest``: the generated kustomization's
    ``namespace``), which Argo CD's destination namespace matches where resolve let it
    through."""
    found = directory_of(unit)
    assert found is not None, unit
    path, namespace = found
    resources = [
        "./" + posixpath.relpath(name, path)
        for name in sorted(files)
        if name.endswith(FLUX_SUFFIXES)
    ]
    outer: dict[str, Any] = {**_KUSTOMIZATION, "resources": [posixpath.relpath(path, unit)]}
    if namespace is not None:
        outer["namespace"] = namespace
    return {
        f"{path}/kustomization.yaml": dump({**_KUSTOMIZATION, "resources": resources}).encode(),
        f"{unit}/kustomization.yaml": dump(outer).encode(),
    }
