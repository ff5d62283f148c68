"""Apps from other sources, tenants, Flux hub sources, external clusters and runtime selectors
(issue #15 items 4-8): the golden cases' emitted objects are valid on every supported controller
release, and each engine gets what its controller reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

import fleetgen
from fleetgen.errors import SpecError, in_order
from fleetgen.explain.explanation import explain
from fleetgen.pipeline import api
from tests.crd_schemas import emitted_documents
from tests.diff.test_diff import commit, edit, git
from tests.helpers import case_copy, run_fleetgen
from tests.test_cases import build_case

CASES = Path(__file__).parent / "cases"
OWN_CASES = ("remote-sources", "external-clusters", "hub-locked-down", "tenants", "source-paths")


def built(name: str, tmp_path: Path) -> tuple[Path, api.BuildResult]:
    return build_case(CASES / name, tmp_path)


@pytest.mark.parametrize("name", OWN_CASES)
def test_validate_finds_nothing_in_the_cases(name: str, tmp_path: Path) -> None:
    """fleetgen validate's contracts (Argo CD project destinations and sources, Flux references)
    hold for what these cases emit: no finding but the warnings build gives too."""
    repo, done = built(name, tmp_path)
    result = run_fleetgen(repo, "validate", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["message"]) for f in findings] == [
        ("spec-warning", warning.message) for warning in in_order(done.warnings)
    ]


def _by_kind(output: Path, kind: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (doc["metadata"].get("namespace", ""), doc["metadata"]["name"]): doc
        for _, doc in emitted_documents(output)
        if doc["kind"] == kind
    }


def test_remote_sources_reach_both_engines(tmp_path: Path) -> None:
    """Argo CD tells an OCI source from Git and Helm by the ``oci://`` scheme of ``repoURL``
    (``ApplicationSource.IsOCI``, used by ``Service.runRepoOperation`` in argo-cd's
    reposerver/repository/repository.go) and resolves a tag or digest ``targetRevision``
    (``nativeOCIClient.ResolveRevision``)."""
    repo, _ = built("remote-sources", tmp_path)
    out = repo / "output"
    sets = {
        doc["metadata"]["name"]: doc["spec"]["template"]["spec"]["source"]
        for _, doc in emitted_documents(out)
        if doc["kind"] == "ApplicationSet"
    }
    assert sets["guestbook-prod"] == {
        "repoURL": "oci://ghcr.io/example/manifests/guestbook",
        "targetRevision": "sha256:" + "4f" * 32,
        "path": ".",
    }
    assert sets["tenant-prod"]["targetRevision"] == "main"
    assert sets["tenant-pinned-prod"]["targetRevision"] == "v1.4.0"
    projects = _by_kind(out, "AppProject")
    assert projects[("argocd", "platform")]["spec"]["sourceRepos"] == [
        "https://git.example.com/fleet.git",
        "oci://ghcr.io/example/manifests/guestbook",
    ]
    flux = _by_kind(out, "Kustomization")
    assert flux[("flux-system", "tenant")]["spec"]["sourceRef"] == {
        "kind": "GitRepository",
        "name": "tenant",
    }
    assert flux[("flux-system", "tenant")]["spec"]["path"] == "./deploy/overlays/prod"
    assert "targetNamespace" not in flux[("flux-system", "tenant")]["spec"]
    git = _by_kind(out, "GitRepository")[("flux-system", "tenant")]["spec"]
    assert git["ref"] == {"branch": "main"} and git["secretRef"] == {"name": "team-a-git"}
    oci = _by_kind(out, "OCIRepository")[("flux-system", "guestbook")]["spec"]
    assert oci["ref"] == {"digest": "sha256:" + "4f" * 32}
    assert not (out / "overlays" / "tenant").exists()


def test_source_paths_per_layer_reach_both_engines(tmp_path: Path) -> None:
    """``Overrides(path=...)`` (#25 item 8): each placement of an app from another source reads
    the directory its deepest layer names, on Flux (the Kustomization's ``path``) and on Argo CD
    (the Applications its ApplicationSet generates: a ``sourcePath`` value per generator where
    the clusters of one environment differ, else the one path), and explain names the layer."""
    from tests.emit.test_argocd_appsets import applications

    repo, _ = built("source-paths", tmp_path)
    out = repo / "output"
    docs = {
        path.relative_to(out).as_posix(): [d for d in yaml.safe_load_all(path.read_text()) if d]
        for path in sorted(out.rglob("*.yaml"))
    }
    generated = applications(docs)
    paths = {
        app["metadata"]["name"]: app["spec"]["source"]["path"]
        for apps in generated.values()
        for app in apps
    }
    assert paths == {
        "tenant-prod-eu": "production",  # per_env
        "tenant-prod-us": "production/us",  # per_label over per_env
        "tenant-prod-canary": "canary",  # per_cluster, normalized
        "guestbook-prod-eu": "deploy",  # App.path
        "guestbook-prod-us": "deploy",
        "guestbook-prod-canary": "deploy",
    }
    flux = _by_kind(out, "Kustomization")
    assert flux[("flux-system", "tenant")]["spec"]["path"] == "./staging"
    assert flux[("flux-system", "guestbook")]["spec"]["path"] == "./deploy-staging"
    (tenant,) = explain(repo / "fleet.py", "tenant").apps
    assert tenant.path.endswith(": canary, production, production/us, staging")
    views = {view.cluster: view for view in tenant.placements}
    layers = {
        cluster: next((v.value, v.layer) for v in view.values if v.key == "path")
        for cluster, view in views.items()
    }
    assert layers == {
        "stg-1": ("staging", "per_env"),
        "prod-eu": ("production", "per_env"),
        "prod-us": ("production/us", "per_label[region=us]"),
        "prod-canary": ("canary", "per_cluster"),
    }


def test_external_clusters_get_no_registration_and_in_cluster_one_without_material(
    tmp_path: Path,
) -> None:
    """Argo CD reads a cluster Secret without ``config`` as an empty config (argo-cd
    util/db/cluster.go ``SecretToCluster`` unmarshals ``config`` only when present) and reaches
    https://kubernetes.default.svc without username, password or token through its in-cluster
    ServiceAccount (``Cluster.RawRestConfig``): the Secret only carries the labels selectors
    match."""
    repo, _ = built("external-clusters", tmp_path)
    out = repo / "output"
    registrations = sorted(p.name for p in (out / "argocd" / "clusters").iterdir())
    assert registrations == ["core-1.yaml", "mgmt.yaml"]
    secret = _by_kind(out, "Secret")[("argocd", "cluster-mgmt")]
    assert secret["stringData"] == {"name": "mgmt", "server": "https://kubernetes.default.svc"}
    assert secret["metadata"]["labels"]["argocd.argoproj.io/secret-type"] == "cluster"
    fleet_map = (out / "README.md").read_text()
    assert (
        "| edge-1 | https://edge-1.example.com | fleetgen.io/cluster=edge-1, "
        "fleetgen.io/env=prod, region=eu, tier=edge |"
    ) in fleet_map
    assert (
        "edge-2 |"
        not in fleet_map.partition("Registrations owned elsewhere")[2].partition("## Controller")[0]
    )  # excluded: no Argo CD placement, nothing reads its labels


def test_runtime_selector_selects_by_the_apps_labels(tmp_path: Path) -> None:
    repo, _ = built("external-clusters", tmp_path)
    sets = {
        doc["metadata"]["name"]: doc
        for _, doc in emitted_documents(repo / "output")
        if doc["kind"] == "ApplicationSet"
    }
    runtime = sets["edge-api-prod"]["spec"]["generators"][0]["clusters"]["selector"]
    assert runtime == {
        "matchLabels": {"fleetgen.io/env": "prod", "tier": "edge"},
        "matchExpressions": [
            {"key": "fleetgen.io/cluster", "operator": "NotIn", "values": ["edge-2"]}
        ],
    }
    pinned = sets["api-prod"]["spec"]["generators"][0]["clusters"]["selector"]
    assert pinned["matchExpressions"] == [
        {"key": "fleetgen.io/cluster", "operator": "In", "values": ["core-1"]}
    ]


def test_diff_says_a_runtime_selection_reaches_beyond_the_known_clusters(tmp_path: Path) -> None:
    repo = tmp_path / "edge"
    shutil.copytree(
        CASES / "external-clusters", repo, ignore=shutil.ignore_patterns("expected", "expect.yaml")
    )
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "fleet")
    edit(
        repo / "fleet.py",
        'exclude=["edge-2"], runtime=True)',
        'exclude=["edge-2"], runtime=True),\n            replicas={"api": 2}',
    )
    report = fleetgen.diff(repo / "fleet.py")
    assert report.to_json()["touched"]["clusters"] == ["edge-1"]
    assert [note for note in report.notes if "run time" in note] == [
        "app edge-api selects clusters by label at run time (Selector(runtime=True)): this blast "
        "radius covers only the clusters fleet.py declares; Argo CD also applies the change to "
        "any other registered cluster carrying its labels"
    ]
    edit(repo / "fleet.py", ',\n            replicas={"api": 2}', "")
    edit(
        repo / "fleet.py",
        'name="api", project="platform", namespace="api", path=',
        'name="api", project="platform", namespace="api", replicas={"api": 3}, path=',
    )
    assert not [note for note in fleetgen.diff(repo / "fleet.py").notes if "run time" in note]


def test_locked_down_hub_reads_only_sources_of_the_own_namespace(tmp_path: Path) -> None:
    """kustomize-controller with --no-cross-namespace-refs refuses a sourceRef into another
    namespace (``KustomizationReconciler.getSource``: AccessDeniedError when the source's
    namespace is not the Kustomization's); dependsOn across namespaces stays allowed
    (``checkDependencies`` has no such check), which the rollout gates use."""
    repo, _ = built("hub-locked-down", tmp_path)
    out = repo / "output"
    sources = {key for kind in ("GitRepository", "OCIRepository") for key in _by_kind(out, kind)}
    spokes = {"prod-a", "prod-b"}
    for (namespace, name), doc in _by_kind(out, "Kustomization").items():
        ref = doc["spec"]["sourceRef"]
        source_namespace = ref.get("namespace", namespace)
        assert (source_namespace, ref["name"]) in sources | {("flux-system", "fleet")}, name
        if namespace in spokes:
            assert source_namespace == namespace, (namespace, name)
    assert {("prod-a", "fleet"), ("prod-b", "fleet"), ("prod-a", "tenant")} <= sources
    fleet_map = (out / "README.md").read_text()
    assert "--no-cross-namespace-refs" in fleet_map and "fleet-git" in fleet_map


def test_default_hub_says_it_needs_cross_namespace_refs(tmp_path: Path) -> None:
    repo, _ = built("hub-rollout", tmp_path)
    out = repo / "output"
    spoke = _by_kind(out, "Kustomization")[("prod-a", "api")]
    assert spoke["spec"]["sourceRef"] == {
        "kind": "GitRepository",
        "name": "flux-system",
        "namespace": "flux-system",
    }
    assert (
        "kustomize-controller and helm-controller must allow cross-namespace references\n"
        "(neither may run with `--no-cross-namespace-refs`)"
    ) in (out / "README.md").read_text()


def _bindings(output: Path, path: str) -> dict[str, list[dict[str, str]]]:
    """namespace -> the subjects of fleetgen's tenant RoleBinding there, in one output file."""
    docs = yaml.safe_load_all((output / path).read_text())
    return {
        doc["metadata"]["namespace"]: doc["subjects"]
        for doc in docs
        if doc and doc["kind"] == "RoleBinding"
    }


def test_tenants_are_bound_to_exactly_their_namespaces_on_both_engines(tmp_path: Path) -> None:
    """Flux impersonates ``system:serviceaccount:<Kustomization namespace>:<name>`` (fluxcd/pkg
    runtime/client ``Impersonator.setImpersonationConfig``); Argo CD one of each destination
    namespace (AppProject ``destinationServiceAccounts`` without a namespace prefix), and for
    the empty destination of an App(namespace=None) (shop-jobs, from another source) the one
    written with its namespace, argocd (util/settings ``DeriveServiceAccountToImpersonate``)."""
    repo, _ = built("tenants", tmp_path)
    out = repo / "output"
    account = {"kind": "ServiceAccount", "name": "deployer"}
    assert _bindings(out, "flux/clusters/dev-1/tenants.yaml") == {
        "team-a": [{**account, "namespace": "flux-system"}],
        "team-a-jobs": [{**account, "namespace": "flux-system"}],
    }
    assert _bindings(out, "tenants/prod-1/tenants.yaml") == {
        "team-a": [{**account, "namespace": "argocd"}, {**account, "namespace": "team-a"}],
        "team-a-jobs": [{**account, "namespace": "argocd"}],
    }
    accounts = {key for key in _by_kind(out, "ServiceAccount")}
    assert accounts == {("flux-system", "deployer"), ("team-a", "deployer")}
    roles = {
        doc["roleRef"]["name"] for _, doc in emitted_documents(out) if doc["kind"] == "RoleBinding"
    }
    assert roles == {"admin"}
    flux = _by_kind(out, "Kustomization")
    assert flux[("flux-system", "shop")]["spec"]["serviceAccountName"] == "deployer"
    assert "serviceAccountName" not in flux[("flux-system", "api")]["spec"]
    project = _by_kind(out, "AppProject")[("argocd", "team-a")]["spec"]
    assert {
        (d["namespace"], d["defaultServiceAccount"]) for d in project["destinationServiceAccounts"]
    } == {("", "argocd:deployer"), ("team-a", "deployer"), ("team-a-jobs", "deployer")}
    application = _by_kind(out, "Application")[("argocd", "prod-1.tenants")]["spec"]
    assert application["project"] == "fleetgen-tenants"
    assert application["source"]["path"] == "output/tenants/prod-1"


def test_a_flux_hub_impersonates_the_account_of_the_spokes_namespace(tmp_path: Path) -> None:
    repo, _ = built("hub-locked-down", tmp_path)
    out = repo / "output"
    assert ("prod-a", "deployer") in _by_kind(out, "ServiceAccount")
    assert _bindings(out, "flux/spokes/prod-a/tenants.yaml") == {
        "api": [{"kind": "ServiceAccount", "name": "deployer", "namespace": "prod-a"}]
    }
    spoke = yaml.safe_load((out / "flux/spokes/prod-a/kustomization.yaml").read_text())
    assert spoke["resources"] == ["namespaces.yaml", "tenants.yaml"]
    assert (
        _by_kind(out, "Kustomization")[("prod-a", "api")]["spec"]["serviceAccountName"]
        == "deployer"
    )


def test_render_skips_apps_from_other_sources(tmp_path: Path) -> None:
    """validate --render and diff --render build overlays only: an app from another source has
    none (its manifests are not in this repository)."""
    repo = tmp_path / "sources"
    shutil.copytree(
        CASES / "remote-sources", repo, ignore=shutil.ignore_patterns("expected", "expect.yaml")
    )
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "fleet")
    assert run_fleetgen(repo, "build").returncode == 0
    validated = run_fleetgen(repo, "validate", "--render")
    assert "Traceback" not in validated.stderr and validated.returncode in (0, 1)
    assert "2 overlay(s)" in validated.stdout + validated.stderr  # api's two, no remote app's
    edit(
        repo / "fleet.py",
        "    apps=[\n",
        '    apps=[\n        App(name="extra", project="team-a", namespace=None, '
        'source=GitSource(url=TENANT, revision="v9"), path="x"),\n',
    )
    report = fleetgen.diff(repo / "fleet.py", render=True)
    assert report.to_json()["touched"]["apps"] == ["extra"]


def test_a_runtime_plain_directory_app_keeps_a_layer_for_a_required_label(tmp_path: Path) -> None:
    """A plain directory app has no overlay (Argo CD reads its directory as it is, like a chart
    or another source): a per_label layer for a label its runtime selector requires is one
    generator's settings, as for a chart app; one for another label is refused for what it
    would do (every selected cluster would get it), not for an overlay the app has not."""
    repo = case_copy(
        CASES / "plain-dirs",
        tmp_path / "plain",
        (
            'Cluster(name="prod-1", env="prod", server="https://prod-1.example.com")',
            'Cluster(name="prod-1", env="prod", server="https://prod-1.example.com",'
            ' registration="external", labels={"tier": "edge", "zone": "a"})',
        ),
        (
            'path="apps/hello",',
            'path="apps/hello", targets=Selector(match_labels={"tier": "edge"}, runtime=True),'
            ' per_label={"tier=edge": Overrides(sync=SyncPolicy(self_heal=False))},',
        ),
        ("    SyncPolicy,\n", "    Selector,\n    SyncPolicy,\n    Destination,\n"),
        (
            'namespaces=["hello", "monitoring"]',
            'namespaces=["hello", "monitoring"],'
            ' destinations=[Destination(server="*", namespace="*")]',
        ),
    )
    api.build(repo / "fleet.py")
    sets = {
        doc["metadata"]["name"]: doc
        for _, doc in emitted_documents(repo / "output")
        if doc["kind"] == "ApplicationSet"
    }
    (generator,) = sets["hello-prod"]["spec"]["generators"]
    assert generator["clusters"]["selector"]["matchLabels"] == {
        "fleetgen.io/env": "prod",
        "tier": "edge",
    }
    automated = sets["hello-prod"]["spec"]["template"]["spec"]["syncPolicy"]["automated"]
    assert automated == {"prune": True, "selfHeal": False}  # per_env, then the label's layer
    edit(repo / "fleet.py", '"tier=edge": Overrides(', '"zone=a": Overrides(')
    with pytest.raises(SpecError) as refused:
        api.build(repo / "fleet.py")
    (problem,) = refused.value.problems
    assert "per_label['zone=a'] cannot reach the clusters it selects" in problem.message
    assert "every selected cluster would get it" in problem.message
