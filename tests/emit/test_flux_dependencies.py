"""Dependencies across kinds on Flux (`fleetgen.emit.flux.dependencies`).

What the controllers do, as read in their source:

- kustomize-controller ``checkDependencies`` gets each ``dependsOn`` entry as a Kustomization and
  helm-controller's as a HelmRelease: neither can wait for the other kind directly.
- kustomize-controller ``checkHealth``: with ``wait`` only the applied objects are checked (a gate
  applies none, so it would be Ready at once); without it, the ``healthChecks`` are, polled with
  kstatus until Current (a HelmRelease is Current when Ready at its generation).
- kustomize-controller ``deleteObjects`` (prune and finalize): only live objects labelled as the
  pruning Kustomization's (``Inclusions``) and not annotated ``prune: disabled``
  (``Exclusions``) are deleted: `fleetgen.moves`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from fleetgen.emit import flux
from fleetgen.helm import render_chart
from fleetgen.kustomize import Kustomize, build
from fleetgen.resolve import resolve
from fleetgen.yamlio import dump_documents, load_all
from tests.crd_schemas import errors
from tests.emit.test_argocd import make_fleet, web
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
