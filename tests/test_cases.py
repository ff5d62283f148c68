"""Golden-tree cases: ``tests/cases/<name>/`` holds a fleet.py, its app bases, ``expected/`` (the
whole generated tree, compared byte for byte) and ``expect.yaml`` (what kustomize must render for
each placement). Adding a case is adding a folder. ``FLEETGEN_UPDATE_GOLDEN=1`` rewrites expected/.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen.pipeline import api
from fleetgen.resolver.confighash import ANNOTATION as CONFIG_HASH
from fleetgen.tools.kustomize import Kustomize, build_many
from tests.crd_schemas import emitted_documents, strict_errors
from tests.helpers import tree

CASES = sorted(p for p in (Path(__file__).parent / "cases").iterdir() if p.is_dir())
# An expect.yaml entry for a placement whose base lists a remote base, which kustomize would
# fetch over the network (tests/test_remote_bases.py renders those against a local repository).
REMOTE = "remote base"
_HASH_SUFFIX = re.compile(r"-[a-z0-9]{10}$")


def build_case(case: Path, tmp_path: Path) -> tuple[Path, api.BuildResult]:
    """The case copied to a temp repo (without its expectations) and built there."""
    repo = tmp_path / case.name
    shutil.copytree(case, repo, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    return repo, api.build(repo / "fleet.py")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_generated_tree_matches_expected(case: Path, tmp_path: Path) -> None:
    repo, _ = build_case(case, tmp_path)
    actual = tree(repo / "output")
    if os.environ.get("FLEETGEN_UPDATE_GOLDEN"):
        shutil.rmtree(case / "expected", ignore_errors=True)
        shutil.copytree(repo / "output", case / "expected")
    assert actual == tree(case / "expected")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_rendered_placements_carry_their_layers(
    case: Path, tmp_path: Path, kustomize: Kustomize
) -> None:
    expected = yaml.safe_load((case / "expect.yaml").read_text())
    repo, result = build_case(case, tmp_path)
    out = result.out_dir
    placements = {
        f"{p.app}/{p.cluster}": out / p.overlay
        for p in api.compile_spec(repo / "fleet.py").plan.placements
        if p.overlay
    }  # an app from another source has no overlay
    assert set(placements) == set(expected)
    offline = {key: overlay for key, overlay in placements.items() if expected[key] != REMOTE}
    rendered = build_many(list(offline.values()))
    for key, overlay in offline.items():
        assert summarize(rendered[overlay], expected[key]) == expected[key], key


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_emitted_objects_are_valid_on_every_supported_release(case: Path, tmp_path: Path) -> None:
    """Every Argo CD, Flux and External Secrets object of the case passes the strict schemas of
    the newest and the oldest supported controller releases."""
    repo, _ = build_case(case, tmp_path)
    found = emitted_documents(repo / "output")
    assert found
    for relative, doc in found:
        assert strict_errors(doc) == [], f"{relative}: {doc['kind']} {doc['metadata']['name']}"


def summarize(rendered: str, like: dict[str, Any]) -> dict[str, Any]:
    """The parts of a rendered placement that ``like`` (an expect.yaml entry) talks about."""
    docs = [d for d in yaml.safe_load_all(rendered) if d]
    deployment = next((d for d in docs if d["kind"] == "Deployment"), None)
    if deployment is None:  # configuration only (e.g. a ClusterIssuer): what it renders
        return {"objects": sorted(f"{d['kind']}/{d['metadata']['name']}" for d in docs)}
    containers = deployment["spec"]["template"]["spec"]["containers"]
    summary: dict[str, Any] = {
        "images": {c["name"]: c["image"] for c in containers},
        "replicas": {
            d["metadata"]["name"]: d["spec"].get("replicas")
            for d in docs
            if d["kind"] == "Deployment"
        },
        "config": {
            _HASH_SUFFIX.sub("", d["metadata"]["name"]): d.get("data", {})
            for d in docs
            if d["kind"] == "ConfigMap"
        },
        "labels": deployment["metadata"].get("labels", {}),
    }
    if "annotations" in like:
        summary["annotations"] = deployment["metadata"].get("annotations", {})
    if "minReadySeconds" in like:
        summary["minReadySeconds"] = deployment["spec"].get("minReadySeconds")
    if "namespaces" in like:  # where each rendered object goes: Kind/name -> namespace
        summary["namespaces"] = {
            f"{d['kind']}/{d['metadata']['name']}": d["metadata"].get("namespace") for d in docs
        }
    if "objects" in like:  # what the overlay holds: the base's and what layers add
        summary["objects"] = sorted(f"{d['kind']}/{d['metadata']['name']}" for d in docs)
    if "configRefs" in like:  # the ConfigMaps its containers read: renamed with them (namePrefix)
        summary["configRefs"] = sorted(
            ref["configMapRef"]["name"]
            for container in containers
            for ref in container.get("envFrom", [])
            if "configMapRef" in ref
        )
    if "configHash" in like:
        template = deployment["spec"]["template"]["metadata"]
        summary["configHash"] = (template.get("annotations") or {}).get(CONFIG_HASH)
    return summary
