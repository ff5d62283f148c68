"""``config=`` for a ConfigMap no pod of the app reads (issue #39, point 4): kustomize's
configMapGenerator creates it in the overlay and nothing uses it, so ``build`` warns at the
``config=`` line and ``validate`` reports it (``spec-warning``), one per ConfigMap and layer.

What reads a ConfigMap, as the kubelet resolves a pod's references (kubernetes
``pkg/kubelet/kubelet_pods.go`` ``makeEnvironmentVariables``: ``envFrom[].configMapRef`` and
``env[].valueFrom.configMapKeyRef``; ``pkg/volume/configmap`` and ``pkg/volume/projected``:
``volumes[].configMap`` and ``volumes[].projected.sources[].configMap``), in the pod spec of a
Pod, of a workload's ``spec.template`` or of a CronJob's ``spec.jobTemplate``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fleetgen.manifests.yamlio import dump_documents
from tests.helpers import run_fleetgen

FLEET = """\
from fleetgen import App, Cluster, Environment, Fleet, Overrides, Project, SyncPolicy

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop.git",
    engines=["flux"],
    environments=[Environment(name="dev", sync=SyncPolicy(automated=True, prune=True))],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com")],
    projects=[Project(name="apps", namespaces=["shop"], source_repos=["*"])],
    apps=[
        App(
            name="shop",
            project="apps",
            namespace="shop",
            path="base",
            config={"shop-config": {"MODE": "live"}},
            per_env={
                "dev": Overrides(
                    common_labels={"tier": "web"},
                    config={"shop-config": {"DEBUG": "1"}, "extra": {"A": "b"}},
                ),
            },
        ),
    ],
)
"""
CONFIG_LINE = 16  # App(config=...)
PER_ENV_CONFIG_LINE = 20  # Overrides(config=...)


def _pod(**container: Any) -> dict[str, Any]:
    return {"containers": [{"name": "shop", "image": "shop:1.0", **container}]}


def _deployment(pod: dict[str, Any], kind: str = "Deployment") -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": "shop"}}, "spec": pod}
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "shop"}}, "template": template}
    if kind == "CronJob":
        spec = {"schedule": "@daily", "jobTemplate": {"spec": {"template": template}}}
    if kind == "Pod":
        spec = pod
    api = {"Deployment": "apps/v1", "CronJob": "batch/v1", "Pod": "v1"}[kind]
    return {"apiVersion": api, "kind": kind, "metadata": {"name": "shop"}, "spec": spec}


READS = {
    "envFrom": _deployment(_pod(envFrom=[{"configMapRef": {"name": "shop-config"}}])),
    "env valueFrom": _deployment(
        _pod(
            env=[
                {
                    "name": "MODE",
                    "valueFrom": {"configMapKeyRef": {"name": "shop-config", "key": "MODE"}},
                }
            ]
        )
    ),
    "volume": _deployment(
        {**_pod(), "volumes": [{"name": "c", "configMap": {"name": "shop-config"}}]}
    ),
    "projected volume": _deployment(
        {
            **_pod(),
            "volumes": [
                {
                    "name": "c",
                    "projected": {"sources": [{"configMap": {"name": "shop-config"}}]},
                }
            ],
        }
    ),
    "a CronJob's job template": _deployment(
        _pod(envFrom=[{"configMapRef": {"name": "shop-config"}}]), "CronJob"
    ),
    "a Pod": _deployment(_pod(envFrom=[{"configMapRef": {"name": "shop-config"}}]), "Pod"),
}


def _repo(tmp_path: Path, workload: dict[str, Any]) -> Path:
    (tmp_path / "fleet.py").write_text(FLEET)
    (tmp_path / "base").mkdir()
    (tmp_path / "base/workload.yaml").write_text(dump_documents([workload]))
    (tmp_path / "base/kustomization.yaml").write_text(
        "resources: [workload.yaml]\nconfigMapGenerator:\n"
        "  - name: shop-config\n    literals: [MODE=test]\n"
        "  - name: extra\n    literals: [A=a]\n"
    )
    return tmp_path


def _unread(name: str, line: int) -> tuple[str, str]:
    return (
        f"fleet.py:{line}",
        f"app 'shop': config for ConfigMap {name!r}, which no pod of the app reads (no envFrom, "
        "env valueFrom configMapKeyRef, volume or projected volume names it), so kustomize "
        "creates it and nothing uses it: reference it in a pod template of the base, or remove "
        "it from config=",
    )


def _warnings(repo: Path) -> set[tuple[str, str]]:
    """What build warns of, which validate reports as spec-warning findings, the same."""
    built = run_fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    warned = {tuple(line.split(": warning: ")) for line in built.stderr.splitlines()}
    validated = run_fleetgen(repo, "validate", "--format", "json")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    reported = {
        (f"{f['location']['path']}:{f['location']['line']}", f["message"])
        for f in json.loads(validated.stdout)["findings"]
        if f["rule"] == "spec-warning"
    }
    assert reported == warned
    return warned


@pytest.mark.parametrize("workload", READS.values(), ids=READS.keys())
def test_a_configmap_a_pod_reads_is_no_warning(tmp_path: Path, workload: dict[str, Any]) -> None:
    """shop-config is read by each kind of reference; extra by none: one warning, at the
    per_env layer's config= line, the only layer that sets it."""
    assert _warnings(_repo(tmp_path, workload)) == {_unread("extra", PER_ENV_CONFIG_LINE)}


def test_a_configmap_no_pod_reads_is_warned_at_each_config_line(tmp_path: Path) -> None:
    repo = _repo(tmp_path, _deployment(_pod(envFrom=[{"configMapRef": {"name": "other"}}])))
    assert _warnings(repo) == {
        _unread("shop-config", CONFIG_LINE),
        _unread("shop-config", PER_ENV_CONFIG_LINE),
        _unread("extra", PER_ENV_CONFIG_LINE),
    }


def test_a_patch_naming_the_configmap_may_read_it(tmp_path: Path) -> None:
    """A layer's patch that names the ConfigMap (here: adds the envFrom) silences the warning."""
    repo = _repo(tmp_path, _deployment(_pod()))
    spec = repo / "fleet.py"
    spec.write_text(
        spec.read_text()
        .replace(
            'common_labels={"tier": "web"},',
            'patches=[Patch(target={"kind": "Deployment"}, patch={"spec": {"template": {"spec": '
            '{"containers": [{"name": "shop", "envFrom": [{"configMapRef": {"name": '
            '"shop-config"}}, {"configMapRef": {"name": "extra"}}]}]}}}})],',
        )
        .replace("Overrides, Project", "Overrides, Patch, Project")
    )
    assert _warnings(repo) == set()


def test_an_app_running_no_pod_has_its_configmaps_read_by_others(tmp_path: Path) -> None:
    """A base of ConfigMaps only (the example's platform-config): they are there for other apps
    or controllers, so nothing is said."""
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}}
    assert _warnings(_repo(tmp_path, configmap)) == set()
