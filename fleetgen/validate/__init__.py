"""``validate``: schema checks of emitted objects and, with ``render``, policy on rendered ones.

Emitted YAML documents are checked against the strict schemas fleetgen ships (newest and oldest
supported release of each controller), which the given CRDs and any CRD files found in the repo
(the directory of fleet.py, without the output dir, ``.git`` and ``.venv``) override kind by kind;
a kind without a schema is counted as not checked. With ``render`` every distinct overlay is
kustomize-built once, in a temporary copy (nothing is written to the repo), and per cluster:
no two apps may render the same object, no app may ship a Namespace (fleetgen creates them), and
namespaced objects must stay in their app's namespace.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fleetgen import api
from fleetgen.fields import release
from fleetgen.k8s import Key, identity
from fleetgen.kustomize import KustomizeBuildError, build_many
from fleetgen.plan import Placement
from fleetgen.validate import schemas
from fleetgen.workspace import base_deps, filesystem_reader

_NOT_SEARCHED = (".git", ".venv")


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: ``where`` is a repo-relative file or ``cluster/app``."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Validation:
    """What ``validate`` found and how much it looked at."""

    compiled: api.Compiled
    findings: list[Finding]
    checked: int  # emitted objects checked against a schema
    unchecked: Counter[str] = field(default_factory=Counter)  # "apiVersion kind" -> count
    crd_files: tuple[Path, ...] = ()
    rendered: int = 0  # rendered objects examined (0 without ``render``)


def validate(spec: Path, *, crds: Sequence[Path] = (), render: bool = False) -> Validation:
    """Compile ``spec`` (SpecError when it cannot be) and check what it emits and renders."""
    compiled = api.compile_spec(spec)
    root = spec.resolve().parent
    files = tuple(schemas.crd_files(
        [root, *crds], exclude=[compiled.out_dir, *(root / name for name in _NOT_SEARCHED)]))
    fleet = compiled.plan.fleet
    minimums = {"argocd": release(fleet.argocd.min_version),
                "flux": release(fleet.flux.min_version)}
    checker = schemas.Checker(schemas.shipped(minimums), overrides=schemas.load(files))
    findings, checked, unchecked = _check_emitted(compiled, root, checker)
    rendered = 0
    if render:
        render_findings, rendered = _check_rendered(compiled, root)
        findings.extend(render_findings)
    return Validation(compiled, findings, checked, unchecked, files, rendered)


def _check_emitted(compiled: api.Compiled, root: Path,
                   checker: schemas.Checker) -> tuple[list[Finding], int, Counter[str]]:
    findings: list[Finding] = []
    checked, unchecked = 0, Counter[str]()
    prefix = compiled.out_dir.resolve().relative_to(root).as_posix()
    for path, data in sorted(compiled.rendered.items()):
        if not path.endswith(schemas.YAML_SUFFIXES):
            continue
        for doc in yaml.load_all(data, Loader=yaml.CSafeLoader):
            if not isinstance(doc, dict):
                continue
            errors = checker.errors(doc)
            if errors is None:
                unchecked[f"{doc.get('apiVersion')} {doc.get('kind')}"] += 1
                continue
            checked += 1
            name = f"{doc.get('kind')} {(doc.get('metadata') or {}).get('name')}"
            findings.extend(Finding(f"{prefix}/{path}", f"{name}: {e}") for e in errors)
    return findings, checked, unchecked


def _check_rendered(compiled: api.Compiled, root: Path) -> tuple[list[Finding], int]:
    """Build every distinct overlay once, then apply the per-cluster policy."""
    # Chart apps have no overlay; rendering them here (fleetgen.helm) is not wired in yet.
    placements = [p for p in compiled.plan.placements if p.chart is None]
    findings, built = _build(compiled, root, sorted({p.overlay for p in placements}))
    namespaces = {overlay.app: overlay.namespace for overlay in compiled.plan.env_overlays}
    by_cluster: dict[str, list[Placement]] = {}
    for placement in placements:
        by_cluster.setdefault(placement.cluster, []).append(placement)
    count = 0
    for cluster, members in sorted(by_cluster.items()):
        owners: dict[Key, str] = {}
        for placement in sorted(members, key=lambda p: p.app):
            docs = built.get(placement.overlay, [])
            count += len(docs)
            findings.extend(_policy(cluster, placement.app, namespaces[placement.app], docs,
                                    owners))
    return findings, count


def _policy(cluster: str, app: str, namespace: str, docs: Iterable[Any],
            owners: dict[Key, str]) -> list[Finding]:
    """Findings of one app's rendered objects on ``cluster``; records them in ``owners``."""
    where, findings = f"{cluster}/{app}", []
    for doc in docs:
        key = identity(cluster, doc)
        shown = f"{key.kind} {key.namespace + '/' if key.namespace else ''}{key.name}"
        if key.group == "" and key.kind == "Namespace":
            findings.append(Finding(where, f"ships {shown}: fleetgen creates namespaces, remove "
                                           "it from the base"))
        if key.namespace and key.namespace != namespace:
            findings.append(Finding(where, f"{shown} is outside the app's namespace {namespace}"))
        other = owners.setdefault(key, app)
        if other != app:
            findings.append(Finding(where, f"{shown} is rendered by both {other} and {app} on "
                                           f"{cluster}"))
    return findings


def _build(compiled: api.Compiled, root: Path,
           overlays: Sequence[str]) -> tuple[list[Finding], dict[str, list[Any]]]:
    """Rendered documents per overlay; a failed build is a finding, the rest still build."""
    with tempfile.TemporaryDirectory(prefix="fleetgen-validate-") as tmp:
        out = Path(tmp) / compiled.out_dir.resolve().relative_to(root)
        _materialize(compiled, root, Path(tmp), out)
        targets = {out / overlay: overlay for overlay in overlays}
        try:
            outputs = build_many(sorted(targets))
            findings = []
        except KustomizeBuildError as error:
            findings = [Finding(targets[path], f"kustomize build failed: {stderr.strip()}")
                        for path, stderr in sorted(error.failures.items())]
            outputs = build_many(sorted(set(targets) - error.failures.keys()))
    return findings, {targets[path]: [doc for doc in yaml.load_all(text, Loader=yaml.CSafeLoader)
                                      if isinstance(doc, dict)]
                      for path, text in outputs.items()}


def _materialize(compiled: api.Compiled, root: Path, tmp: Path, out: Path) -> None:
    """Copy the generated overlays and the inputs of every app base under ``tmp``."""
    _write_all(out, {path: data for path, data in compiled.rendered.items()
                     if path.startswith("overlays/")})
    read = filesystem_reader(root)
    for base in sorted({overlay.base for overlay in compiled.plan.env_overlays}):
        deps = base_deps(read, base)
        for directory in sorted(deps.dirs):
            shutil.copytree(root / directory, tmp / directory, dirs_exist_ok=True)
        for path in sorted(deps.files):
            if (root / path).is_file():
                (tmp / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / path, tmp / path)


def _write_all(directory: Path, files: Mapping[str, bytes]) -> None:
    for path, data in files.items():
        (directory / path).parent.mkdir(parents=True, exist_ok=True)
        (directory / path).write_bytes(data)
