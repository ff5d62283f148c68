"""``fleetgen import`` of an Argo CD Application's destination namespace, which Argo CD puts only on
the namespaced objects that name none (argo-cd controller/state.go ``NormalizeTargetObjects``),
where fleetgen's ``App(namespace=...)`` puts every object in it: a folder whose objects all name
their namespaces imports as ``namespace=None``; one whose objects name none keeps the
destination's. Each repository is written for the test; the imported fleet must build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fleetgen
from fleetgen.importer import ImportRequest, import_repo
from fleetgen.manifests.yamlio import dump
from tests.helpers import run_fleetgen

APPLICATION: dict[str, Any] = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "Application",
    "metadata": {"name": "media", "namespace": "argocd"},
    "spec": {
        "project": "default",
        "source": {
            "repoURL": "https://github.com/acme/homelab.git",
            "targetRevision": "HEAD",
            "path": "apps/media",
        },
    },
}
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: media}\n"


def _config(namespace: str | None) -> str:
    meta = f"{{name: media, namespace: {namespace}}}" if namespace else "{name: media}"
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {meta}\ndata: {{tz: Europe/Oslo}}\n"


@pytest.mark.parametrize(
    ("files", "destination", "namespace"),
    [
        # every object names its namespace, and the folder ships it: the manifests say
        ({"ns.yaml": NAMESPACE, "config.yaml": _config("media")}, "argocd", None),
        # no object names one: the destination's fills them all in, as namespace= does
        ({"config.yaml": _config(None)}, "argocd", "argocd"),
        # all in the destination's namespace: the same either way, kept
        ({"config.yaml": _config("argocd")}, "argocd", "argocd"),
        # … and the folder ships that Namespace, which fleetgen creates for an app's namespace=
        ({"ns.yaml": NAMESPACE, "config.yaml": _config("media")}, "media", None),
    ],
    ids=["named-elsewhere", "unnamed", "named-destination", "ships-the-destination"],
)
def test_the_destination_namespace_is_the_apps_only_where_argo_cd_puts_objects_there(
    tmp_path: Path, files: dict[str, str], destination: str, namespace: str | None
) -> None:
    media = tmp_path / "apps" / "media"
    media.mkdir(parents=True)
    (media / "kustomization.yaml").write_text(dump({"resources": sorted(files)}))
    for name, text in files.items():
        (media / name).write_text(text)
    (tmp_path / "argocd").mkdir()
    spec = {**APPLICATION["spec"], "destination": {"name": "in-cluster", "namespace": destination}}
    (tmp_path / "argocd" / "media.yaml").write_text(dump({**APPLICATION, "spec": spec}))
    done = import_repo(ImportRequest(tmp_path))
    assert not [f.render() for f in done.findings if "media on" in f.what]  # faithful
    (app,) = fleetgen.load(done.spec).fleet.apps
    assert app.namespace == namespace
    built = run_fleetgen(tmp_path, "build")
    assert built.returncode == 0, built.stderr


def test_a_chart_without_a_destination_namespace_is_helms_default(tmp_path: Path) -> None:
    """argo-cd util/helm ``Cmd.template`` passes ``--namespace`` only when the destination has
    one: without it the release renders in Helm's ``default``."""
    source = {
        "repoURL": "https://charts.example.com",
        "chart": "storage-classes",
        "targetRevision": "1.2.0",
    }
    spec = {
        "project": "default",
        "source": source,
        "destination": {"name": "in-cluster"},
    }
    (tmp_path / "argocd").mkdir()
    (tmp_path / "argocd" / "classes.yaml").write_text(
        dump({**APPLICATION, "metadata": {"name": "classes", "namespace": "argocd"}, "spec": spec})
    )
    done = import_repo(ImportRequest(tmp_path))
    (app,) = fleetgen.load(done.spec).fleet.apps
    assert app.namespace == "default"
    assert any("which Helm renders in 'default'" in f.what for f in done.findings)
    built = run_fleetgen(tmp_path, "build")
    assert built.returncode == 0, built.stderr


def test_a_folder_kustomize_cannot_build_here_is_judged_by_its_kustomizations_namespace(
    tmp_path: Path,
) -> None:
    """A folder that inflates a chart (kustomize's ``helmCharts``, which needs
    ``--enable-helm``) cannot be built here; its kustomization's ``namespace`` places every
    namespaced object, so the destination's fills in none."""
    media = tmp_path / "apps" / "media"
    media.mkdir(parents=True)
    kustomization = {
        "namespace": "media",
        "resources": ["ns.yaml"],
        "helmCharts": [{"name": "plex", "repo": "https://charts.example.com", "version": "1.0.0"}],
    }
    (media / "kustomization.yaml").write_text(dump(kustomization))
    (media / "ns.yaml").write_text(NAMESPACE)
    (tmp_path / "argocd").mkdir()
    spec = {**APPLICATION["spec"], "destination": {"name": "in-cluster", "namespace": "argocd"}}
    (tmp_path / "argocd" / "media.yaml").write_text(dump({**APPLICATION, "spec": spec}))
    done = import_repo(ImportRequest(tmp_path, dry_run=True))
    assert 'App(name="media", project="apps", namespace=None' in done.text
