"""``fleetgen import`` of Flux repositories beyond the golden cases: the golden repositories of
``tests/imports/`` changed one construct at a time, and Flux's post-build substitution as
kustomize-controller runs it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fleetgen.importer.flux.substitute import applied, evaluate
from tests.helpers import Ran, run_fleetgen

IMPORTS = Path(__file__).parent / "imports"


def _imported(
    tmp_path: Path,
    case: str,
    edits: dict[str, tuple[str, str]],
    files: dict[str, str] | None = None,
) -> Ran:
    """``import --dry-run`` of a copy of golden case ``case``'s repository, each file of
    ``edits`` changed by its (old, new) replacement (which must apply), ``files`` added."""
    repo = tmp_path / case
    shutil.copytree(IMPORTS / case / "repo", repo)
    for path, text in (files or {}).items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    for path, (old, new) in edits.items():
        text = (repo / path).read_text()
        assert old in text, (path, old)
        (repo / path).write_text(text.replace(old, new))
    ran = run_fleetgen(repo, "import", "--dry-run")
    assert ran.exception is None or isinstance(ran.exception, SystemExit), ran.stderr
    assert all(re.match(r"[^:]+(:\d+)?: .+ — .+", line) for line in ran.stderr.splitlines())
    return ran


@pytest.mark.parametrize(
    ("text", "values", "expected", "left"),
    [
        ("name: ${CLUSTER}", {"CLUSTER": "eu-1"}, "name: eu-1", []),
        ("host: web.${CLUSTER}.example", {"CLUSTER": "eu-1"}, "host: web.eu-1.example", []),
        ("cmd: echo $${HOME} $$PATH $HOME", {"X": "1"}, "cmd: echo ${HOME} $PATH $HOME", []),
        ("a: ${A:=x} b: ${B:-y} c: ${B-z} d: ${C=w}", {"B": ""}, "a: x b: y c:  d: w", []),
        ("tier: ${TIER}", {"X": "1"}, "tier: ${TIER}", ["${TIER}"]),
        ("n: ${#CLUSTER}", {"CLUSTER": "eu-1"}, "n: ${#CLUSTER}", ["${#CLUSTER}"]),
    ],
    ids=["whole", "inside", "escapes", "defaults", "unset", "function"],
)
def test_substitution_evaluates_as_flux_envsubst(
    text: str, values: dict[str, str], expected: str, left: list[str]
) -> None:
    """fluxcd/pkg ``envsubst.Eval`` (the scanner's ``scanEscaped``: ``$$`` is ``$``; ``$VAR``
    without braces is text) with bash's ``-``/``=`` and ``:-``/``:=`` defaults; a variable with
    no value (an error in strict mode, Flux 2.9's default, empty before) and any other
    function are left for a finding."""
    assert evaluate(text, values) == (expected, left)


def test_substitution_retypes_the_object_and_skips_disabled_ones() -> None:
    """kustomize-controller substitutes the object's YAML text and reads it back
    (``SubstituteVariables``: ``varSubstitution`` then ``YAMLToJSON``), so a number comes out a
    number; an object labelled or annotated ``kustomize.toolkit.fluxcd.io/substitute:
    disabled`` is left as it is."""
    deployment = {"kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": "${N}"}}
    assert applied(deployment, {"N": "3"})[0]["spec"] == {"replicas": 3}
    off = {"annotations": {"kustomize.toolkit.fluxcd.io/substitute": "disabled"}}
    skipped = {**deployment, "metadata": {"name": "web", **off}}
    assert applied(skipped, {"N": "3"}) == (skipped, [])
    assert applied(deployment, {}) == (deployment, [])  # no values: Flux does not substitute


def test_a_tenant_account_the_repository_does_not_create_is_a_finding(tmp_path: Path) -> None:
    ran = _imported(
        tmp_path,
        "flux-tenants",
        {
            "tenants/base/dev-team/rbac.yaml": (
                "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: dev-team\n"
                "  namespace: apps\n",
                "",
            )
        },
    )
    assert (  # at the Kustomization as staging's kustomization patches it
        "tenants/staging/dev-team-patch.yaml:7: ServiceAccount 'dev-team' (namespace 'apps') "
        "that Kustomization 'dev-team' runs as is not in the repository — fleetgen creates it"
    ) in ran.stderr
    assert 'service_account="dev-team"' in ran.stdout


def test_a_spokes_kubeconfig_kept_in_the_repository_is_read_from_the_store(
    tmp_path: Path,
) -> None:
    """A kubeconfig Secret kept in Git (SOPS-encrypted) cannot be copied: the spoke reads it
    from the store of default_credentials, and the Secret is not applied as a loose object."""
    sops_secret = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: spoke-kubeconfig\n"
        "  namespace: production\ndata:\n  value: ENC[AES256_GCM,data:aGVsbG8=,type:str]\n"
        "sops:\n  version: 3.9.0\n"
    )
    external = (IMPORTS / "flux-hub-spoke/repo/hub/production.yaml").read_text()
    external = external[external.index("apiVersion: external-secrets.io/v1") :]
    ran = _imported(tmp_path, "flux-hub-spoke", {"hub/production.yaml": (external, sops_secret)})
    assert (
        "hub/production.yaml:23: spoke 'production': its kubeconfig Secret 'spoke-kubeconfig' "
        "is kept in the repository (hub/production.yaml) — put its kubeconfig in the store "
        "'cluster-secrets' under 'clusters/production'"
    ) in ran.stderr
    assert "Secret 'spoke-kubeconfig' applied from the cluster folder" not in ran.stderr
    assert 'Cluster(name="production", env="production", server="https://production.invalid")' in (
        ran.stdout
    )


def test_a_kubeconfig_in_the_flux_namespace_reaches_no_spoke(tmp_path: Path) -> None:
    """fleetgen's hub keeps a spoke's objects in a namespace named after it: a Kustomization
    of the Flux namespace reaching another cluster is a finding, not a spoke 'flux-system'."""
    ran = _imported(
        tmp_path,
        "flux-hub-spoke",
        {
            "hub/alerting.yaml": (
                "  prune: true\n",
                "  prune: true\n  kubeConfig:\n    secretRef:\n      name: edge\n",
            )
        },
    )
    assert (
        "hub/alerting.yaml:11: Kustomization 'alerting': kubeConfig not mapped (fleetgen's hub "
        "keeps each spoke's objects in a namespace of its own, not Flux's)"
    ) in ran.stderr
    assert 'App(name="alerting"' not in ran.stdout
    assert 'Cluster(name="flux-system"' not in ran.stdout


def test_a_dependency_on_some_of_an_apps_clusters_is_a_finding(tmp_path: Path) -> None:
    """With a folder per spoke, infra-configs becomes one app per spoke, and podinfo, on both,
    depends on each on one cluster only: fleetgen's depends_on holds on all of an app's
    clusters, so that order is a finding (the fleet still builds)."""
    folder = "clusters/production/infra-configs"
    ran = _imported(
        tmp_path,
        "flux-hub-spoke",
        {"hub/production.yaml": ("path: ./deploy/infra-configs", f"path: ./{folder}")},
        {
            f"{folder}/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\n"
            "kind: Kustomization\nresources:\n  - ../../../deploy/infra-configs\n"
        },
    )
    assert (
        "podinfo depends on 'infra-configs-production' on 'production', not on all its "
        "clusters — fleetgen's depends_on holds on every cluster of an app"
    ) in ran.stderr
    assert "does not build" not in ran.stderr


def test_a_bootstrap_folder_is_a_cluster_before_bootstrap_writes_its_sync(
    tmp_path: Path,
) -> None:
    """A repository committed before ``flux bootstrap`` runs holds ``hub/flux-system/`` with a
    kustomization listing ``gotk-sync.yaml`` but not the file's objects yet: ``hub`` is still
    the cluster folder (the hub), its repository URL a placeholder."""
    sync = (IMPORTS / "flux-hub-spoke/repo/hub/flux-system/gotk-sync.yaml").read_text()
    ran = _imported(
        tmp_path,
        "flux-hub-spoke",
        {"hub/flux-system/gotk-sync.yaml": (sync, "# written by flux bootstrap\n")},
    )
    assert 'flux=FluxOptions(mode="hub", hub="hub")' in ran.stdout
    assert "fleet.py: the fleet's repo is a placeholder" in ran.stderr


def test_an_account_a_release_not_mapped_runs_as_stays_a_tenants(tmp_path: Path) -> None:
    """The accounts folder of a hub is the tenant's even when the release running as its
    account cannot be mapped (a finding of its own): its objects are not findings too."""
    ran = _imported(
        tmp_path,
        "flux-hub-spoke",
        {"deploy/apps/podinfo.yaml": ("        name: podinfo\n", "        name: missing\n")},
    )
    assert "HelmRelease 'podinfo': chart not mapped" in ran.stderr
    assert "'flux-restricted'" not in ran.stderr  # created, and consumed as the tenant's
    assert 'App(name="tenants' not in ran.stdout


EDGE = """---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: edge-policies
  namespace: edge
spec:
  interval: 1h
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
  path: ./infrastructure/kyverno-policies
  prune: true
  kubeConfig:
    secretRef:
      name: edge-kubeconfig
"""


def test_one_hub_per_fleet(tmp_path: Path) -> None:
    """The first cluster folder reaching a spoke makes its cluster the hub; a second folder
    doing so is a finding (fleetgen's fleet has one hub), and a cluster with its own folder
    beside the hub is told it becomes a spoke of it."""
    ran = _imported(
        tmp_path,
        "flux-tenants",
        {
            "clusters/production/tenants.yaml": ("  timeout: 5m\n", "  timeout: 5m\n" + EDGE),
            "clusters/staging/tenants.yaml": ("  timeout: 5m\n", "  timeout: 5m\n" + EDGE),
        },
    )
    assert 'flux=FluxOptions(mode="hub", hub="production")' in ran.stdout
    assert 'Cluster(name="edge", env="edge", server="https://edge.invalid")' in ran.stdout
    assert (
        "clusters/staging/tenants.yaml:33: Kustomization 'edge-policies': kubeConfig not mapped "
        "(the hub is 'production', and fleetgen's fleet has one hub)"
    ) in ran.stderr
    assert (
        "clusters/staging/flux-system/gotk-sync.yaml:16: cluster 'staging' runs its own Flux "
        "(its folder clusters/staging) beside the hub 'production'"
    ) in ran.stderr
    assert 'Cluster(name="staging", env="staging", server="https://staging.invalid")' in (
        ran.stdout
    )
    assert "does not build" not in ran.stderr


def test_a_releases_drift_detection_is_named_with_what_fleetgen_does(tmp_path: Path) -> None:
    """fleetgen's HelmReleases set ``driftDetection.mode: enabled`` (`fleetgen.emit.flux.charts`;
    helm-controller corrects drift only then), so an original's own drift settings are a finding
    that says so, not that Flux's default (disabled) applies."""
    ran = _imported(
        tmp_path,
        "flux-chart-ranges",
        {
            "infrastructure/base/podinfo.yaml": (
                "  interval: 30m\n  chartRef:",
                "  interval: 30m\n  driftDetection:\n    mode: warn\n  chartRef:",
            )
        },
    )
    drift = [line for line in ran.stderr.splitlines() if "driftDetection" in line]
    assert len(drift) == 1, ran.stderr
    assert "infrastructure/base/podinfo.yaml:" in drift[0]
    assert "correct drift (mode: enabled)" in drift[0] and "ignore_differences" in drift[0]


def test_a_bootstrap_kustomization_that_waits_is_a_finding_of_its_own(tmp_path: Path) -> None:
    """A gate ``<chart app>.ready`` ``dependsOn`` the root (kustomize-controller
    ``checkDependencies``: Ready at its generation), and a root with ``wait`` is Ready only once
    all it applied is (``checkHealth``), the gate included, which a DependencyNotReady Ready=False
    keeps InProgress (kstatus ``checkReadyCondition``): neither is ever Ready."""
    sync = "clusters/staging/flux-system/gotk-sync.yaml"
    waits = ("  prune: true\n", "  prune: true\n  wait: true\n")
    ran = _imported(tmp_path, "flux-clusters", {sync: waits})
    (line,) = [line for line in ran.stderr.splitlines() if "(flux bootstrap's): spec.wait" in line]
    assert line.startswith(f"{sync}:25: Kustomization 'flux-system' (flux bootstrap's): spec.wait")
    assert "neither is ever Ready" in line and "drop the wait" in line
