"""Apps that are not one namespace (``App(namespace=None)``) and namespace metadata (issue #15
items 1 and 2), on the golden case ``tests/cases/namespaces``. Each test names the upstream
function whose behaviour it relies on (argoproj/argo-cd, gitops-engine vendored there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from fleetgen import Project
from fleetgen.errors import SpecError
from fleetgen.pipeline import api
from fleetgen.resolver import namespacing
from fleetgen.tools.kustomize import Kustomize, build as kustomize_build
from tests.helpers import case_copy, run_fleetgen

CASE = Path(__file__).parent / "cases" / "namespaces"
CERT_MANAGER = 'App(name="cert-manager"'


def case_repo(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """A copy of the case, its fleet.py edited by (old, new) replacements."""
    return case_copy(CASE, tmp_path / "repo", *edits)


def docs(repo: Path, path: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((repo / "output" / path).read_text()) if d]


def problems(repo: Path) -> list[str]:
    with pytest.raises(SpecError) as raised:
        api.build(repo / "fleet.py")
    assert not (repo / "output").exists()
    return [f"{p.line}: {p.message}" for p in raised.value.problems]


def line_of(repo: Path, text: str) -> int:
    lines = (repo / "fleet.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


# --- 1. App(namespace=None) ---------------------------------------------------------------


def test_no_namespace_means_no_rewrite_and_no_argo_destination_namespace(tmp_path: Path) -> None:
    """Argo CD puts a namespaced object without metadata.namespace into the Application's
    destination namespace only when that is set, and strips a namespace from cluster-scoped
    objects (controller/state.go ``NormalizeTargetObjects``); with no destination namespace it
    creates none (gitops-engine ``syncContext``: the namespace modifier runs only for a non-empty
    namespace), so the Application carries neither a namespace nor CreateNamespace."""
    repo = case_repo(tmp_path)
    api.build(repo / "fleet.py")
    for env in ("dev", "prod"):
        overlay = docs(repo, f"overlays/cert-manager/{env}/kustomization.yaml")[0]
        assert "namespace" not in overlay
    [appset] = docs(repo, "argocd/applicationsets/cert-manager.yaml")
    spec = appset["spec"]["template"]["spec"]
    assert spec["destination"] == {"server": "{{ .server }}"}
    assert "syncOptions" not in spec["syncPolicy"]
    kustomizations = docs(repo, "flux/clusters/dev-1/kustomizations.yaml")
    cert_manager = next(k for k in kustomizations if k["metadata"]["name"] == "cert-manager")
    assert "targetNamespace" not in cert_manager["spec"]
    namespaces = {d["metadata"]["name"] for d in docs(repo, "flux/clusters/dev-1/namespaces.yaml")}
    assert namespaces == {"shop"}  # the base ships cert-manager's own


def test_project_destinations_cover_the_empty_namespace_and_the_base_namespaces(
    tmp_path: Path,
) -> None:
    """Argo CD checks the Application's own destination, namespace "" here, against the project
    (util/argo ``ValidatePermissions`` -> ``AppProject.IsDestinationPermitted``, where a glob
    matches "" only as "" or "*"), then every namespaced object's namespace at sync
    (controller/sync.go ``validateSyncPermissions``), and cluster-scoped kinds against the
    whitelist (``IsGroupKindNamePermitted``): Namespace by name, for those the base ships."""
    repo = case_repo(tmp_path)
    api.build(repo / "fleet.py")
    [project] = docs(repo, "argocd/projects/platform.yaml")
    assert [d["namespace"] for d in project["spec"]["destinations"]] == [
        "",
        "cert-manager",
        "cert-manager-webhook",
    ]
    named = [(w["kind"], w.get("name")) for w in project["spec"]["clusterResourceWhitelist"]]
    assert ("Namespace", "cert-manager") in named
    assert ("Namespace", "cert-manager-webhook") in named


def test_a_single_namespace_object_under_a_rewrite_is_refused(tmp_path: Path) -> None:
    """kustomize's namespace transformer renames a Namespace object to the overlay's namespace
    (checked here with real kustomize), so it would be the app's own, which fleetgen creates."""
    repo = case_repo(tmp_path, ("namespace=None,\n", 'namespace="cert-manager",\n'))
    (repo / "apps/cert-manager/kustomization.yaml").write_text(
        "resources:\n  - one-namespace.yaml\n  - controller.yaml\n"
    )
    (repo / "apps/cert-manager/one-namespace.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n"
    )
    assert problems(repo) == [
        f"{line_of(repo, CERT_MANAGER)}: app 'cert-manager': its base ships "
        "Namespace 'other', which the overlay's namespace rewrite turns into the app's own "
        "namespace 'cert-manager', which fleetgen already creates; remove it from the base, or "
        "set App(namespace=None) to keep the base's namespaces"
    ]


def test_kustomize_renames_a_namespace_object_under_a_rewrite(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    base, overlay = tmp_path / "base", tmp_path / "overlay"
    base.mkdir()
    overlay.mkdir()
    (base / "kustomization.yaml").write_text("resources: [ns.yaml]\n")
    (base / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n")
    (overlay / "kustomization.yaml").write_text("namespace: mine\nresources: [../base]\n")
    [namespace] = list(yaml.safe_load_all(kustomize_build(overlay, kustomize)))
    assert namespace["metadata"]["name"] == "mine"


def test_a_base_namespace_outside_the_project_is_refused(tmp_path: Path) -> None:
    repo = case_repo(
        tmp_path, ('namespaces=["cert-manager", "cert-manager-*"]', 'namespaces=["cert-manager"]')
    )
    assert problems(repo) == [
        f"{line_of(repo, CERT_MANAGER)}: app 'cert-manager': its base puts "
        "objects in namespace(s) cert-manager-webhook, which project 'platform' does not allow "
        "(add them to Project(namespaces=[...]))"
    ]


def _rendered_findings(repo: Path) -> set[tuple[str, str]]:
    result = run_fleetgen(repo, "validate", "--render", "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    return {
        (f["rule"], f["object"])
        for f in json.loads(result.stdout)["findings"]
        if f["rule"].endswith("namespace") or f["rule"] == "unplaced-object"
    }


def test_validate_render_flags_a_namespace_on_cluster_scoped_kinds(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """A custom cluster-scoped kind under a rewrite (its scope from the CRD the base renders)
    and a built-in one written with a namespace; nothing for namespace=None otherwise."""
    repo = case_repo(tmp_path)
    assert _rendered_findings(repo) == set()
    issuer = repo / "apps/cert-manager/issuer.yaml"
    issuer.write_text(
        issuer.read_text().replace(
            "  name: self-signed\n", "  name: self-signed\n  namespace: cert-manager\n"
        )
    )
    controller = repo / "apps/cert-manager/controller.yaml"
    controller.write_text(
        controller.read_text().replace(
            "  name: cert-manager-controller\n",
            "  name: cert-manager-controller\n  namespace: cert-manager\n",
        )
    )
    assert _rendered_findings(repo) == {
        ("cluster-scoped-namespace", "ClusterIssuer cert-manager/self-signed"),
        ("cluster-scoped-namespace", "ClusterRole cert-manager/cert-manager-controller"),
    }


def test_validate_render_flags_a_namespaced_object_without_namespace(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """With no destination namespace, Argo CD leaves a namespaced object's namespace empty
    (``NormalizeTargetObjects`` defaults only to a non-empty one) and Flux has no
    targetNamespace: where it lands is not the spec's to say."""
    repo = case_repo(tmp_path)
    controller = repo / "apps/cert-manager/controller.yaml"
    controller.write_text(controller.read_text().replace("  namespace: cert-manager-webhook\n", ""))
    assert _rendered_findings(repo) == {("unplaced-object", "ConfigMap webhook-config")}


# --- 2. Namespace metadata ----------------------------------------------------------------


def test_namespace_metadata_on_flux_namespaces_and_argo_managed_namespace_metadata(
    tmp_path: Path,
) -> None:
    """Argo CD applies managedNamespaceMetadata only through the CreateNamespace namespace
    modifier (controller/sync_namespace.go ``syncNamespace``, run by gitops-engine
    ``syncContext`` when CreateNamespace=true), and keeps it applied on an existing namespace."""
    repo = case_repo(tmp_path)
    api.build(repo / "fleet.py")
    labels = {"pod-security.kubernetes.io/enforce": "restricted", "tenant": "shop"}
    [namespace] = docs(repo, "flux/clusters/dev-1/namespaces.yaml")
    assert namespace["metadata"]["labels"] == labels
    assert namespace["metadata"]["annotations"] == {
        "example.com/owner": "team-shop",
        "kustomize.toolkit.fluxcd.io/prune": "disabled",
    }
    [appset] = docs(repo, "argocd/applicationsets/shop.yaml")
    policy = appset["spec"]["template"]["spec"]["syncPolicy"]
    assert policy["managedNamespaceMetadata"] == {
        "labels": labels,
        "annotations": {"example.com/owner": "team-shop"},
    }
    assert "CreateNamespace=true" in policy["syncOptions"]


def test_namespace_metadata_problems(tmp_path: Path) -> None:
    repo = case_repo(
        tmp_path,
        ('namespace_metadata={"shop"', 'namespace_metadata={"other"'),
        (
            "sync=SyncPolicy(automated=True, prune=True),",
            "sync=SyncPolicy(automated=True, prune=True), create_namespaces=False,",
        ),
    )
    line = line_of(repo, 'namespace_metadata={"other"')
    where = "project 'shop': namespace_metadata for 'other'"
    assert problems(repo) == [
        f"{line}: {where}, a namespace the project does not allow (add it to "
        "Project(namespaces=[...]))",
        f"{line}: {where}: Fleet(create_namespaces=False) leaves namespaces to another tool, so "
        "nothing would carry these labels and annotations; set them there",
    ]


def test_namespace_metadata_passes_the_secret_scan(tmp_path: Path) -> None:
    token = "ghp_" + "a1B2" * 9
    repo = case_repo(
        tmp_path, ('"example.com/owner": "team-shop"', f'"example.com/owner": "{token}"')
    )
    [found] = problems(repo)
    assert "looks like" in found and token not in found


def test_explicit_destinations_must_permit_every_namespace_the_base_uses(tmp_path: Path) -> None:
    """Written destinations are a boundary: Argo CD would refuse the Application ("" namespace)
    or the object in cert-manager-webhook at sync (``validateSyncPermissions``)."""
    repo = case_repo(
        tmp_path,
        (
            'Project(name="platform", ',
            'Project(name="platform", destinations=[Destination(server="*", '
            'namespace="cert-manager"), Destination(server="*", '
            'namespace="")], ',
        ),
        ("    Fleet,\n", "    Destination,\n    Fleet,\n"),
    )
    assert problems(repo) == [
        f"{line_of(repo, CERT_MANAGER)}: app 'cert-manager': project 'platform' destinations do "
        "not permit namespace 'cert-manager-webhook' on cluster(s) prod-1"
    ]


@pytest.mark.parametrize(
    "pattern, namespace",
    [
        ("shop", "shop"),
        ("team-*", "team-a"),
        ("team-?", "team-b"),
        ("team-[a-c]", "team-c"),
        ("team-[!a]", "team-b"),
        ("*", "kube-system"),
    ],
)
def test_project_namespaces_take_names_and_globs_that_allowed_matches(
    pattern: str, namespace: str
) -> None:
    project = Project(name="shop", namespaces=[pattern])
    assert namespacing.allowed(namespace, project.namespaces)


@pytest.mark.parametrize(
    "pattern", ["Shop_2", "-shop", "team_*", "team-{a,b}", "team-[a", "!dev", "a" * 64]
)
def test_project_namespaces_refuse_what_is_no_namespace_nor_glob(pattern: str) -> None:
    with pytest.raises(ValidationError, match="neither a namespace name"):
        Project(name="shop", namespaces=[pattern])


SHOP = '        App(name="shop", project="team-a", namespace="team-a", path="apps/api/base"),\n'


def test_a_tenant_whose_apps_name_no_namespace_still_gets_its_namespaces_on_flux(
    tmp_path: Path,
) -> None:
    """The tenant's RoleBindings go into its project's namespaces, and its account (admin there,
    kustomize-controller impersonating it) cannot create a Namespace: fleetgen does, with the
    project's namespace_metadata, as Argo CD's tenant Application does."""
    from fleetgen.manifests.yamlio import load_all
    from tests.helpers import case_copy, run_fleetgen

    repo = case_copy(
        Path(__file__).parent / "cases/tenants",
        tmp_path / "repo",
        (SHOP, ""),
        (
            'service_account="deployer"',
            'service_account="deployer",\n'
            '                namespace_metadata={"team-a": NamespaceMeta(labels={"team": "a"})}',
        ),
        ("    Fleet,\n", "    Fleet,\n                      NamespaceMeta,\n"),
    )
    assert run_fleetgen(repo, "build").returncode == 0
    namespaces = load_all((repo / "output/flux/clusters/dev-1/namespaces.yaml").read_text())
    labels = {n["metadata"]["name"]: n["metadata"].get("labels") for n in namespaces}
    assert labels["team-a"] == {"team": "a"} and "team-a-jobs" in labels
