"""The kustomize wrapper, against the real kustomize found on this machine."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from fleetgen.manifests.yamlio import dump, dump_documents, load_all
from fleetgen.tools.kustomize import (
    Kustomize,
    KustomizeBuildError,
    KustomizeNotFound,
    build,
    build_many,
    find_kustomize,
)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.0"}]},
        },
    },
}


def _write(directory: Path, files: dict[str, object]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, doc in files.items():
        (directory / name).write_text(dump(doc), encoding="utf-8")
    return directory


def _overlay(root: Path, env: str, replicas: int) -> Path:
    """A base Deployment and an overlay that sets namespace, image tag, replicas and config."""
    _write(
        root / "base",
        {"deployment.yaml": DEPLOYMENT, "kustomization.yaml": {"resources": ["deployment.yaml"]}},
    )
    return _write(
        root / env,
        {
            "kustomization.yaml": {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "namespace": env,
                "resources": ["../base"],
                "images": [{"name": "nginx", "newTag": "1.25"}],
                "replicas": [{"name": "web", "count": replicas}],
                "configMapGenerator": [{"name": "web-config", "literals": [f"ENV={env}"]}],
            }
        },
    )


def _by_kind(text: str) -> dict[str, Any]:
    return {doc["kind"]: doc for doc in load_all(text)}


def test_find_kustomize_reports_v5(kustomize: Kustomize) -> None:
    assert int(kustomize.version.lstrip("v").split(".")[0]) >= 5
    assert Path(kustomize.command[0]).is_file()


def test_build_renders_an_overlay(kustomize: Kustomize, tmp_path: Path) -> None:
    rendered = _by_kind(build(_overlay(tmp_path, "prod", 3), kustomize))
    deployment, config = rendered["Deployment"], rendered["ConfigMap"]
    assert deployment["metadata"] == {"name": "web", "namespace": "prod"}
    assert deployment["spec"]["replicas"] == 3
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert containers[0]["image"] == "nginx:1.25"
    assert config["data"] == {"ENV": "prod"}
    assert config["metadata"]["name"].startswith("web-config-")


def test_build_failure_names_path_and_stderr(kustomize: Kustomize, tmp_path: Path) -> None:
    broken = _write(tmp_path / "broken", {"kustomization.yaml": {"resources": ["missing.yaml"]}})
    with pytest.raises(KustomizeBuildError) as caught:
        build(broken, kustomize)
    assert list(caught.value.failures) == [broken]
    assert str(broken) in str(caught.value)
    assert "missing.yaml" in caught.value.failures[broken]


def test_build_uses_the_root_only_load_restrictor(kustomize: Kustomize, tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(dump(DEPLOYMENT), encoding="utf-8")
    overlay = _write(tmp_path / "o", {"kustomization.yaml": {"resources": ["../outside.yaml"]}})
    with pytest.raises(KustomizeBuildError, match="not in or below"):
        build(overlay, kustomize)


def test_build_many_builds_in_parallel(kustomize: Kustomize, tmp_path: Path) -> None:
    paths = [_overlay(tmp_path, env, n) for n, env in enumerate(["dev", "stage", "prod"], 1)]
    rendered = build_many(paths, workers=2, kustomize=kustomize)
    assert list(rendered) == paths
    assert [_by_kind(rendered[p])["Deployment"]["spec"]["replicas"] for p in paths] == [1, 2, 3]


def test_build_many_lists_every_failure(kustomize: Kustomize, tmp_path: Path) -> None:
    good = _overlay(tmp_path, "dev", 1)
    bad = [
        _write(tmp_path / name, {"kustomization.yaml": {"resources": [f"{name}.yaml"]}})
        for name in ("bad1", "bad2")
    ]
    with pytest.raises(KustomizeBuildError) as caught:
        build_many([bad[0], good, bad[1]], kustomize=kustomize)
    assert sorted(caught.value.failures) == sorted(bad)
    assert "2 path(s)" in str(caught.value)


def _fake(bin_dir: Path, name: str, output: str) -> None:
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\necho '{output}'\n", encoding="utf-8")
    script.chmod(0o755)


def test_not_found_explains_what_and_how(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KustomizeNotFound) as caught:
        find_kustomize()
    message = str(caught.value)
    assert "`kustomize`" in message and "`kubectl kustomize`" in message
    assert "neither is on PATH" in message and "kubectl >= 1.27" in message


def test_too_old_versions_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(tmp_path, "kustomize", "{Version:kustomize/v4.5.7 GitCommit:56d82a8}")
    _fake(tmp_path, "kubectl", "Client Version: v1.20.2\nKustomize Version: v2.0.3")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KustomizeNotFound) as caught:
        find_kustomize()
    assert "kustomize v4.5.7, too old" in str(caught.value)
    assert "embeds kustomize v2.0.3, too old" in str(caught.value)


def test_standalone_kustomize_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(tmp_path, "kustomize", "v5.6.0")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    found = find_kustomize()
    assert found == Kustomize(command=(str(tmp_path / "kustomize"), "build"), version="v5.6.0")


def test_dump_documents_output_is_a_valid_kustomize_input(
    kustomize: Kustomize, tmp_path: Path
) -> None:
    overlay = _write(tmp_path / "multi", {"kustomization.yaml": {"resources": ["all.yaml"]}})
    second = {**DEPLOYMENT, "metadata": {"name": "api"}}
    (overlay / "all.yaml").write_text(dump_documents([DEPLOYMENT, second]), encoding="utf-8")
    names = [doc["metadata"]["name"] for doc in load_all(build(overlay, kustomize))]
    assert sorted(names) == ["api", "web"]
