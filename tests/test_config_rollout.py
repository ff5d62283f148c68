"""A config change restarts exactly the pods that read it, measured with the real kustomize.

kustomize behaviour relied on (sigs.k8s.io/kustomize/api):
- ``configMapGenerator`` with ``behavior: merge`` over a base ConfigMap that is a plain resource
  keeps its name: ``resmap.resWrangler.appendReplaceOrMerge`` calls
  ``resource.Resource.CopyMergeMetaDataFieldsFrom``, which takes the name and the build
  annotations (the hash-suffix marker among them) from the base resource, which has none; so
  without fleetgen's annotation a changed value would change no pod template;
- ``patches`` with a ``target`` apply a strategic-merge patch that sets one annotation of the
  pod template and keeps the others (``api/filters/patchstrategicmerge.Filter``); a cluster
  overlay's patch replaces the value its env overlay set.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from fleetgen.manifests.yamlio import dump_documents, load_all
from fleetgen.pipeline import api
from fleetgen.resolver.confighash import ANNOTATION
from fleetgen.tools.kustomize import Kustomize, build_many

NAMESPACE = "shop"


def _workload(kind: str, name: str, pod: dict[str, Any]) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": name}}, "spec": pod}
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": name}}, "template": template}
    if kind == "StatefulSet":
        spec["serviceName"] = name
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


def _container(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": f"{name}:1.0", **fields}


# What each workload reads: api (envFrom), agent (env valueFrom configMapKeyRef), worker
# (a projected volume), db (a ConfigMap fleetgen never sets), cache (nothing), report (a CronJob
# reading api-config: a Job template is not rolled).
BASE = [
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "api-config"},
        "data": {"LOG_LEVEL": "info", "FROM_BASE": "yes"},
    },
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "worker-config"},
        "data": {"QUEUE": "jobs"},
    },
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "db-config"},
        "data": {"POOL": "5"},
    },
    _workload(
        "Deployment",
        "api",
        {"containers": [_container("api", envFrom=[{"configMapRef": {"name": "api-config"}}])]},
    ),
    _workload(
        "DaemonSet",
        "agent",
        {
            "containers": [
                _container(
                    "agent",
                    env=[
                        {
                            "name": "LEVEL",
                            "valueFrom": {
                                "configMapKeyRef": {"name": "api-config", "key": "LOG_LEVEL"}
                            },
                        }
                    ],
                )
            ]
        },
    ),
    _workload(
        "Deployment",
        "worker",
        {
            "containers": [_container("worker", volumeMounts=[{"name": "cfg", "mountPath": "/c"}])],
            "volumes": [
                {
                    "name": "cfg",
                    "projected": {"sources": [{"configMap": {"name": "worker-config"}}]},
                }
            ],
        },
    ),
    _workload(
        "StatefulSet",
        "db",
        {"containers": [_container("db", envFrom=[{"configMapRef": {"name": "db-config"}}])]},
    ),
    _workload("Deployment", "cache", {"containers": [_container("cache")]}),
    {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "report"},
        "spec": {
            "schedule": "0 * * * *",
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                _container(
                                    "report", envFrom=[{"configMapRef": {"name": "api-config"}}]
                                )
                            ],
                        }
                    }
                }
            },
        },
    },
]

FLEET = """
from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project

fleet = Fleet(
    name="shop", repo="https://git.example.com/shop.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
              Cluster(name="prod-a", env="prod", server="https://prod-a.example.com"),
              Cluster(name="prod-b", env="prod", server="https://prod-b.example.com")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="shop", project="shop", namespace="shop", path="apps/shop/base",
              config={{"api-config": {{"LOG_LEVEL": "warn"}}, "worker-config": {{"QUEUE": "q"}}}},
              per_env={{"prod": Overrides(
                  config={{"api-config": {{"LOG_LEVEL": {prod_level!r}}}}})}},
              per_cluster={{"prod-b": Overrides(
                  config={{"api-config": {{"REGION": {prod_b_region!r}}}}})}})],
)
"""


def _build(repo: Path, **values: str) -> dict[str, str]:
    """fleet.py with ``values`` built into ``repo``; every placement rendered: cluster -> YAML."""
    (repo / "fleet.py").write_text(
        FLEET.format(**({"prod_level": "error", "prod_b_region": "east"} | values))
    )
    api.build(repo / "fleet.py")
    compiled = api.compile_spec(repo / "fleet.py")
    overlays = {p.cluster: compiled.out_dir / p.overlay for p in compiled.plan.placements}
    rendered = build_many(list(overlays.values()))
    return {cluster: rendered[path] for cluster, path in overlays.items()}


def _objects(rendered: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in load_all(rendered)}


def _pod_annotations(doc: dict[str, Any]) -> dict[str, str]:
    template = doc["spec"].get("template") or doc["spec"]["jobTemplate"]["spec"]["template"]
    return dict((template.get("metadata") or {}).get("annotations") or {})


def _changed(before: dict[str, str], after: dict[str, str]) -> dict[str, set[tuple[str, str]]]:
    """Per cluster, the objects whose rendered form differs."""
    changed = {}
    for cluster in before:
        old, new = _objects(before[cluster]), _objects(after[cluster])
        assert old.keys() == new.keys(), cluster
        changed[cluster] = {key for key in old if old[key] != new[key]}
    return changed


@pytest.fixture
def repo(tmp_path: Path, kustomize: Kustomize) -> Path:
    base = tmp_path / "repo" / "apps" / "shop" / "base"
    base.mkdir(parents=True)
    (base / "objects.yaml").write_text(dump_documents(BASE))
    (base / "kustomization.yaml").write_text("resources:\n  - objects.yaml\n")
    return tmp_path / "repo"


def test_a_changed_value_rolls_exactly_the_workloads_reading_it(repo: Path) -> None:
    before = _build(repo)
    after = _build(repo, prod_level="debug")
    readers = {("ConfigMap", "api-config"), ("Deployment", "api"), ("DaemonSet", "agent")}
    assert _changed(before, after) == {"dev-1": set(), "prod-a": readers, "prod-b": readers}
    for cluster in ("prod-a", "prod-b"):
        old, new = _objects(before[cluster]), _objects(after[cluster])
        for key in readers - {("ConfigMap", "api-config")}:
            assert _pod_annotations(old[key])[ANNOTATION] != _pod_annotations(new[key])[ANNOTATION]
        assert new["ConfigMap", "api-config"]["data"]["LOG_LEVEL"] == "debug"


def test_an_unchanged_spec_renders_byte_identical(repo: Path) -> None:
    first = _build(repo)
    overlays = {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted((repo / "output" / "overlays").rglob("*"))
        if p.is_file()
    }
    shutil.rmtree(repo / "output")
    assert _build(repo) == first
    assert {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted((repo / "output" / "overlays").rglob("*"))
        if p.is_file()
    } == overlays


def test_only_workloads_reading_fleetgen_config_carry_the_hash(repo: Path) -> None:
    rendered = _build(repo)
    for cluster, text in rendered.items():
        objects = _objects(text)
        annotated = {
            key
            for key, doc in objects.items()
            if key[0] != "ConfigMap" and ANNOTATION in _pod_annotations(doc)
        }
        assert annotated == {
            ("Deployment", "api"),
            ("DaemonSet", "agent"),
            ("Deployment", "worker"),
        }, cluster
        # the plain base ConfigMaps keep their names: merge does not add a hash suffix
        assert {name for kind, name in objects if kind == "ConfigMap"} == {
            "api-config",
            "worker-config",
            "db-config",
        }, cluster


def test_a_cluster_layer_hashes_its_own_effective_data(repo: Path) -> None:
    """prod-b builds on the prod overlay and adds a key to api-config: its hash is its own, and
    changing that key rolls the readers on prod-b only."""
    before = _build(repo)
    api_hash = {
        cluster: _pod_annotations(_objects(text)["Deployment", "api"])[ANNOTATION]
        for cluster, text in before.items()
    }
    assert len(set(api_hash.values())) == 3
    worker = {
        _pod_annotations(_objects(text)["Deployment", "worker"])[ANNOTATION]
        for text in before.values()
    }
    assert len(worker) == 1  # worker-config is the same everywhere
    after = _build(repo, prod_b_region="west")
    readers = {("ConfigMap", "api-config"), ("Deployment", "api"), ("DaemonSet", "agent")}
    assert _changed(before, after) == {"dev-1": set(), "prod-a": set(), "prod-b": readers}


def test_base_data_is_part_of_the_effective_data(repo: Path) -> None:
    """Editing a base ConfigMap that fleetgen merges into rolls its readers too."""
    before = _build(repo)
    edited = [dict(doc) for doc in BASE]
    edited[0] = {**BASE[0], "data": {"LOG_LEVEL": "info", "FROM_BASE": "changed"}}
    (repo / "apps" / "shop" / "base" / "objects.yaml").write_text(dump_documents(edited))
    readers = {("ConfigMap", "api-config"), ("Deployment", "api"), ("DaemonSet", "agent")}
    assert _changed(before, _build(repo)) == dict.fromkeys(before, readers)
