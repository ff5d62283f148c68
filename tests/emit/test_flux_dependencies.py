"""Dependencies across kinds on Flux (`fleetgen.emit.flux.dependencies`).

What the controllers do, as read in their source:

- kustomize-controller ``checkDependencies`` gets each ``dependsOn`` entry as a Kustomization and
  helm-controller's as a HelmRelease: neither can wait for the other kind directly.
- kustomize-controller ``checkHealth``: with ``wait`` only the applied objects are checked (a gate
  applies none, so it would be Ready at once); without it, the ``healthChecks`` are, polled with
  kstatus until Current (a HelmRelease is Current when Ready at its generation).
- kustomize-controller ``deleteObjects`` (prune and finalize): only live objects labelled as the
  pruning Kustomization's (``Inclusions``) and not annotated ``prune: disabled``
  (``Exclusions``) are deleted: `fleetgen.settle.moves`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen.emit import flux
from fleetgen.manifests.yamlio import dump_documents, load_all
from fleetgen.resolver import resolve
from fleetgen.tools.helm import render_chart
from fleetgen.tools.kustomize import Kustomize, build
from tests.crd_schemas import errors, strict_errors
from tests.emit.test_argocd import make_fleet, web
from tests.emit.test_flux import build as build_fleet, cel_errors
from tests.emit.test_flux_hub_tenant_charts import TENANT_FLEET
from tests.test_charts_engines import WORKSPACE, compile_apps, echo, flux_releases


def _kustomizations(docs: dict[str, list[Any]], cluster: str = "dev-1") -> dict[str, Any]:
    return {
        doc["metadata"]["name"]: doc
        for doc in docs[f"flux/clusters/{cluster}/kustomizations.yaml"]
        if doc["kind"] == "Kustomization"
    }


def test_a_kustomize_app_waits_for_a_chart_app_through_a_gate(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    _, docs = compile_apps(echo(), web(depends_on=["echo"]))
    found = _kustomizations(docs)
    assert found["web"]["spec"]["dependsOn"] == [{"name": "echo.ready"}]
    gate = found["echo.ready"]
    assert gate["spec"]["healthChecks"] == [
        {
            "apiVersion": "helm.toolkit.fluxcd.io/v2",
            "kind": "HelmRelease",
            "name": "echo",
            "namespace": "flux-system",
        }
    ]
    assert "wait" not in gate["spec"] and gate["spec"]["path"] == "./output/flux/gate"
    assert gate["spec"]["timeout"] == "5m"  # the release's own (helm-controller's default)
    assert errors(gate) == []  # Flux 2.7 and the newest
    # No HelmRelease moves: it stays where bootstrap's Kustomization applies it.
    (release, _) = flux_releases(docs)["dev-1"]
    assert release in docs["flux/clusters/dev-1/kustomizations.yaml"]
    # The gate's path builds to nothing.
    (gate_dir := tmp_path / "gate").mkdir()
    (gate_dir / "kustomization.yaml").write_text(
        dump_documents(docs["flux/gate/kustomization.yaml"])
    )
    assert [d for d in yaml.safe_load_all(build(gate_dir, kustomize)) if d] == []


def test_a_chart_app_that_waits_for_a_kustomize_app_has_a_kustomization_of_its_own(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    _, docs = compile_apps(echo(depends_on=["web"]), web())
    home = docs["flux/clusters/dev-1/kustomizations.yaml"]
    assert not any(doc["kind"] == "HelmRelease" for doc in home)
    wrapper = _kustomizations(docs)["echo.release"]
    assert wrapper["spec"]["path"] == "./output/flux/releases/dev-1/echo"
    assert wrapper["spec"]["dependsOn"] == [{"name": "web"}]
    assert wrapper["spec"]["wait"] is True  # Ready when the HelmRelease is
    assert wrapper["spec"]["deletionPolicy"] == "Delete"  # as the root's prune of a HelmRelease
    assert "kubeConfig" not in wrapper["spec"] and "serviceAccountName" not in wrapper["spec"]
    assert errors(wrapper) == []
    release, _ = flux_releases(docs)["dev-1"]
    assert "dependsOn" not in release["spec"]
    # The wrapper's directory builds, with real kustomize, to exactly the release's objects.
    where = tmp_path / "echo"
    where.mkdir()
    for name in ("kustomization.yaml", "release.yaml"):
        (where / name).write_text(dump_documents(docs[f"flux/releases/dev-1/echo/{name}"]))
    built = [d for d in yaml.safe_load_all(build(where, kustomize)) if d]
    expected = docs["flux/releases/dev-1/echo/release.yaml"]
    assert sorted(built, key=str) == sorted(expected, key=str)


def test_a_wrapped_chart_app_keeps_waiting_for_chart_apps_as_a_helmrelease() -> None:
    from tests.test_charts_engines import remote

    _, docs = compile_apps(
        echo(depends_on=["web", "certs"]),
        web(),
        remote("https://charts.jetstack.io"),
    )
    release, _ = flux_releases(docs)["dev-1"]
    assert release["spec"]["dependsOn"] == [{"name": "certs"}]
    assert _kustomizations(docs)["echo.release"]["spec"]["dependsOn"] == [{"name": "web"}]


def test_dependencies_across_kinds_pass_flux_checks() -> None:
    plan = resolve(make_fleet(apps=[web(), echo(depends_on=["web"])]), WORKSPACE)
    assert flux.check(plan) == []


def test_the_canonical_layout_case_renders_its_wrapped_chart_through_helm() -> None:
    """tests/cases/flux-layers: the HelmRelease its wrapper applies renders (Helm's SDK) what
    the spec says per environment."""
    case = Path(__file__).resolve().parent.parent / "cases" / "flux-layers"
    expected = case / "expected" / "flux" / "releases"
    for cluster, replicas in (("staging-1", 1), ("production-1", 2)):
        (release,) = load_all((expected / cluster / "podinfo" / "release.yaml").read_text())
        spec = release["spec"]
        objects = render_chart(
            case / "charts" / "podinfo",
            spec["values"],
            spec["releaseName"],
            spec["targetNamespace"],
        )
        (deployment,) = objects
        assert deployment["spec"]["replicas"] == replicas


def test_on_a_hub_gates_and_wrappers_act_on_the_hub(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A spoke's HelmRelease is an object of the hub (its own ``kubeConfig`` reaches the spoke):
    its gate and wrapper live on the hub too, without the spoke's kubeConfig, in the spoke's
    namespace; the wrapper's directory is keyed by the hub, then the spoke."""
    text = TENANT_FLEET.replace(
        'chart=HelmChart(path="charts/status-page"),\n',
        'chart=HelmChart(path="charts/status-page"), depends_on=["platform-config"],\n',
    ).replace(
        'depends_on=["platform-config"],\n            ignore_differences',
        'depends_on=["platform-config", "status-page"],\n            ignore_differences',
    )
    assert text.count("status-page") == TENANT_FLEET.count("status-page") + 1
    built = build_fleet(tmp_path_factory, "hub-dependencies", text)
    spoke = {
        (doc["kind"], doc["metadata"]["name"]): doc
        for doc in load_all((built.out / "flux/clusters/mgmt/spokes/staging.yaml").read_text())
    }
    gate, wrapper = (
        spoke[("Kustomization", "status-page.ready")],
        spoke[("Kustomization", "status-page.release")],
    )
    for found in (gate, wrapper):
        assert found["metadata"]["namespace"] == "staging"
        assert "kubeConfig" not in found["spec"] and "serviceAccountName" not in found["spec"]
        assert strict_errors(found) == [] and cel_errors(found) == []
    assert gate["spec"]["healthChecks"][0]["namespace"] == "staging"
    assert wrapper["spec"]["path"] == "./output/flux/releases/mgmt/staging/status-page"
    assert {"name": "platform-config"} in wrapper["spec"]["dependsOn"]
    assert {"name": "status-page.ready"} in spoke[("Kustomization", "order-service")]["spec"][
        "dependsOn"
    ]
    (release,) = [
        d
        for d in load_all(
            (built.out / "flux/releases/mgmt/staging/status-page/release.yaml").read_text()
        )
        if d["kind"] == "HelmRelease"
    ]
    assert (
        release["spec"]["kubeConfig"]
        == spoke[("Kustomization", "order-service")]["spec"]["kubeConfig"]
    )
    assert release["spec"]["serviceAccountName"] == "shop-deployer"
    assert strict_errors(release) == [] and cel_errors(release) == []
