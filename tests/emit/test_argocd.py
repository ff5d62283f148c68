"""The Argo CD emitter: registrations, AppProjects, bootstrap, spec checks and warnings.

Every emitted object is validated strictly against the upstream CRDs (tests/crd_schemas.py).
How ApplicationSets generate Applications is tested in test_argocd_appsets.py.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen import (
    App,
    AwsAuth,
    Cluster,
    Destination,
    Environment,
    ExecAuth,
    ExternalSecretRef,
    Fleet,
    IgnoreDifference,
    NamespaceMeta,
    Overrides,
    Project,
    Role,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
    SyncWindow,
)
from fleetgen.emit import argocd
from fleetgen.errors import Problem, SpecError
from fleetgen.inputs.bases import Base
from fleetgen.inputs.workspace import Workspace
from fleetgen.pipeline import api
from fleetgen.resolver import resolve
from fleetgen.resolver.plan import Plan
from fleetgen.write import writer
from tests.crd_schemas import errors
from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parents[2]
REPO = "https://git.example.com/fleet.git"
BASES = ("apps/web/base", "apps/api/base")
WORKSPACE = Workspace(
    {
        path: Base(
            path=path,
            kustomization="kustomization.yaml",
            resources=frozenset({("Deployment", "web")}),
        )
        for path in BASES
    }
)
ROLE_ARN = "arn:aws:iam::111122223333:role/argocd"
CA_DATA = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
).decode()


def cluster(name: str, env: str, **fields: Any) -> Cluster:
    return Cluster(
        **({"name": name, "env": env, "server": f"https://{name}.example.com:6443"} | fields)
    )


def web(**fields: Any) -> App:
    return App(
        **({"name": "web", "project": "web", "namespace": "web", "path": "apps/web/base"} | fields)
    )


def make_fleet(**overrides: Any) -> Fleet:
    """dev and prod (rolling out in three waves), every credential kind, two apps."""
    spec: dict[str, Any] = {
        "name": "test",
        "repo": REPO,
        "default_credentials": ExternalSecretRef(store="vault", key="clusters/{env}/{cluster}"),
        "environments": [
            Environment(name="dev", sync=SyncPolicy(automated=True, prune=True)),
            Environment(
                name="prod",
                sync=SyncPolicy(automated=True),
                rollout=Rollout(
                    steps=[
                        Step(match_labels={"ring": "canary"}, max_update=1),
                        Step(match_labels={"region": "eu"}),
                        Step(max_update="50%"),
                    ]
                ),
            ),
        ],
        "clusters": [
            cluster("dev-1", "dev", labels={"region": "eu"}),
            cluster(
                "prod-a",
                "prod",
                labels={"ring": "canary", "region": "us"},
                ca_data=CA_DATA,
                credentials=AwsAuth(cluster_name="prod-a", role_arn=ROLE_ARN),
            ),
            cluster(
                "prod-b",
                "prod",
                labels={"region": "eu"},
                ca_data=CA_DATA,
                credentials=ExecAuth(args=["gcp"], env={"CLOUDSDK_CORE_PROJECT": "acme"}),
            ),
            cluster(
                "prod-c",
                "prod",
                labels={"region": "us"},
                annotations={"acme.io/runbook": "https://wiki.example.com/{{ runbook }}"},
                credentials=ExternalSecretRef(
                    store="aws", key="k8s/prod-c", store_kind="SecretStore", property="config"
                ),
            ),
        ],
        "projects": [Project(name="web", description="Web", namespaces=["web", "web-*"])],
        "apps": [
            web(
                ignore_differences=[
                    IgnoreDifference(
                        group="apps", kind="Deployment", json_pointers=["/spec/replicas"]
                    )
                ],
                per_cluster={"prod-b": Overrides(replicas={"web": 1})},
            ),
            web(
                name="api",
                namespace="web-api",
                path="apps/api/base",
                targets=Selector(envs=["prod"], exclude=["prod-c"]),
            ),
        ],
    }
    return Fleet(**(spec | overrides))


def compile_fleet(fleet: Fleet) -> tuple[Plan, dict[str, list[Any]]]:
    """The Plan and the argocd/ documents as written to disk (rendered YAML read back)."""
    plan = resolve(fleet, WORKSPACE)
    assert argocd.check(plan) == []
    rendered = writer.render(argocd.emit(plan))
    return plan, {
        path: [d for d in yaml.safe_load_all(data) if d]
        for path, data in rendered.items()
        if path.endswith(".yaml")  # argocd/README.md: what argocd-notifications-cm must hold
    }


def example() -> dict[str, list[Any]]:
    compiled = api.compile_spec(ROOT / "fleet.py")
    return {
        path: list(yaml.safe_load_all(data))
        for path, data in compiled.rendered.items()
        if path.startswith("argocd/") and path.endswith(".yaml")
    }


def messages(problems: list[Problem]) -> list[str]:
    return [problem.message for problem in problems]


@pytest.mark.parametrize("source", ["example", "test fleet", "cascade_delete"])
def test_every_emitted_object_validates_strictly_against_its_crd(source: str) -> None:
    if source == "example":
        docs = example()
    else:
        docs = compile_fleet(make_fleet(cascade_delete=source == "cascade_delete"))[1]
    kinds = set()
    for path, objects in docs.items():
        for obj in objects:
            assert errors(obj) == [], (path, obj["kind"])
            kinds.add(obj["kind"])
    assert kinds == {"Secret", "ExternalSecret", "AppProject", "ApplicationSet", "Application"}


def test_registrations_carry_labels_and_only_references() -> None:
    _, docs = compile_fleet(make_fleet())
    (aws,) = docs["argocd/clusters/prod-a.yaml"]
    assert aws["metadata"]["labels"] == {
        "argocd.argoproj.io/secret-type": "cluster",
        "fleetgen.io/cluster": "prod-a",
        "fleetgen.io/env": "prod",
        "fleetgen.io/wave": "1",
        "region": "us",
        "ring": "canary",
    }
    assert aws["stringData"]["server"] == "https://prod-a.example.com:6443"
    assert json.loads(aws["stringData"]["config"]) == {
        "awsAuthConfig": {"clusterName": "prod-a", "roleARN": ROLE_ARN},
        "tlsClientConfig": {"caData": CA_DATA},
    }
    (exec_secret,) = docs["argocd/clusters/prod-b.yaml"]
    assert json.loads(exec_secret["stringData"]["config"]) == {
        "execProviderConfig": {
            "command": "argocd-k8s-auth",
            "args": ["gcp"],
            "env": {"CLOUDSDK_CORE_PROJECT": "acme"},
            "apiVersion": "client.authentication.k8s.io/v1beta1",
        },
        "tlsClientConfig": {"caData": CA_DATA},
    }
    (dev,) = docs["argocd/clusters/dev-1.yaml"]
    assert dev["kind"] == "ExternalSecret"
    assert dev["spec"]["data"] == [
        {"secretKey": "config", "remoteRef": {"key": "clusters/dev/dev-1"}}
    ]
    assert "fleetgen.io/wave" not in dev["spec"]["target"]["template"]["metadata"]["labels"]
    (prod_c,) = docs["argocd/clusters/prod-c.yaml"]
    assert prod_c["spec"]["secretStoreRef"] == {"name": "aws", "kind": "SecretStore"}
    assert prod_c["spec"]["data"][0]["remoteRef"] == {"key": "k8s/prod-c", "property": "config"}
    assert set(prod_c["spec"]["target"]["template"]["metadata"]) == {"labels", "annotations"}


def test_projects_allow_exactly_where_apps_are_placed() -> None:
    _, docs = compile_fleet(make_fleet())
    (project,) = docs["argocd/projects/web.yaml"]
    spec = project["spec"]
    assert spec["sourceRepos"] == [REPO]
    assert [(d["name"], d["namespace"]) for d in spec["destinations"]] == [
        ("dev-1", "web"),
        ("prod-a", "web"),
        ("prod-a", "web-api"),
        ("prod-b", "web"),
        ("prod-b", "web-api"),
        ("prod-c", "web"),
    ]
    assert spec["clusterResourceWhitelist"] == [
        {"group": "", "kind": "Namespace", "name": "web"},
        {"group": "", "kind": "Namespace", "name": "web-api"},
    ]
    assert project["metadata"]["finalizers"] == ["resources-finalizer.argocd.argoproj.io"]
    assert "destinationServiceAccounts" not in spec


def test_a_project_service_account_is_impersonated_on_every_destination() -> None:
    projects = [Project(name="web", namespaces=["web", "web-*"], service_account="tenant")]
    _, docs = compile_fleet(make_fleet(projects=projects))
    (project,) = docs["argocd/projects/web.yaml"]
    assert errors(project) == []
    assert project["spec"]["destinationServiceAccounts"] == [
        {"server": d["server"], "namespace": d["namespace"], "defaultServiceAccount": "tenant"}
        for d in project["spec"]["destinations"]
    ]


def test_a_tenants_namespace_metadata_goes_on_the_namespace_fleetgen_writes() -> None:
    """``managedNamespaceMetadata`` makes Argo CD apply the Namespace on every sync
    (controller/sync_namespace.go ``syncNamespace``: a managed namespace is synced even when it
    exists), with the sync's impersonated rest config (controller/sync.go), and the tenant's
    ServiceAccount, admin in its namespaces only, may not patch a Namespace: every sync failed.
    The labels and annotations go on the Namespace the tenants' Application applies with Argo
    CD's own credentials instead."""
    meta = NamespaceMeta(
        labels={"pod-security.kubernetes.io/enforce": "restricted"},
        annotations={"example.com/owner": "web"},
    )
    tenant = Project(
        name="web",
        namespaces=["web", "web-api"],
        service_account="tenant",
        namespace_metadata={"web": meta},
    )
    _, docs = compile_fleet(make_fleet(projects=[tenant]))
    for appset in docs["argocd/applicationsets/web.yaml"]:
        text = json.dumps(appset)
        assert "managedNamespaceMetadata" not in text and "CreateNamespace=true" in text
    namespaces = {
        d["metadata"]["name"]: d["metadata"]
        for path, objects in docs.items()
        if path.startswith("tenants/")
        for d in objects
        if d["kind"] == "Namespace"
    }
    assert namespaces["web"]["labels"] == meta.labels
    assert namespaces["web"]["annotations"] == {
        "argocd.argoproj.io/sync-options": "Prune=false",
        "example.com/owner": "web",
    }
    assert "labels" not in namespaces["web-api"]
    _, plain = compile_fleet(
        make_fleet(projects=[tenant.model_copy(update={"service_account": None})])
    )
    assert "managedNamespaceMetadata" in json.dumps(plain["argocd/applicationsets/web.yaml"])


def test_tenant_projects_refuse_cluster_scoped_objects() -> None:
    """A tenant's apps are applied as its ServiceAccount, admin in their namespaces only: the API
    server refuses it any cluster-scoped object, so a project that permits some, and an app
    whose base ships some (here a ClusterRole), are located spec errors."""
    clustered = _shipping(("rbac.authorization.k8s.io", "ClusterRole"))
    tenant = Project(
        name="web",
        namespaces=["web", "web-api"],
        service_account="tenant",
        cluster_resources=[("rbac.authorization.k8s.io", "ClusterRole")],
    )
    with pytest.raises(SpecError) as raised:
        resolve(make_fleet(projects=[tenant]), clustered)
    messages = [p.message for p in raised.value.problems]
    assert any(
        m.startswith("project 'web': cluster_resources cannot be created by its apps")
        for m in messages
    )
    assert any(
        "its base ships cluster-scoped objects (rbac.authorization.k8s.io/ClusterRole)" in m
        for m in messages
    )
    permitted = tenant.model_copy(update={"service_account": None})
    resolve(make_fleet(projects=[permitted]), clustered)  # not a tenant: allowed


def _shipping(*kinds: tuple[str, str]) -> Workspace:
    """WORKSPACE with every base shipping objects of the cluster-scoped ``kinds``."""
    return Workspace(
        {
            path: dataclasses.replace(base, cluster_kinds=frozenset(kinds))
            for path, base in WORKSPACE.bases.items()
        }
    )


def test_a_projects_cluster_kinds_are_derived_from_its_bases_unless_written() -> None:
    """Argo CD syncs a cluster-scoped object only if its project's clusterResourceWhitelist lists
    the kind (controller/sync.go ``validateSyncPermissions``, ``IsGroupKindNamePermitted``); a
    ClusterRole in a base used to be refused at sync, silently at build. Without
    Project(cluster_resources) the list is what the project's bases ship; written, it is emitted
    as written and is a boundary the bases are held to."""
    role = ("rbac.authorization.k8s.io", "ClusterRole")
    plan = resolve(make_fleet(), _shipping(role, ("", "Namespace")))
    rendered = writer.render(argocd.emit(plan))
    (project,) = yaml.safe_load_all(rendered["argocd/projects/web.yaml"])
    listed = project["spec"]["clusterResourceWhitelist"]
    assert {"group": "rbac.authorization.k8s.io", "kind": "ClusterRole"} in listed
    assert {"group": "", "kind": "Namespace"} not in listed  # Namespaces only by name
    written = Project(name="web", namespaces=["web", "web-*"], cluster_resources=[])
    with pytest.raises(SpecError) as raised:
        resolve(make_fleet(projects=[written]), _shipping(role))
    assert any(
        "its base ships cluster-scoped ('rbac.authorization.k8s.io', 'ClusterRole'), which "
        "project 'web' does not permit" in p.message
        for p in raised.value.problems
    )
    allowed = written.model_copy(update={"cluster_resources": [role]})
    resolve(make_fleet(projects=[allowed]), _shipping(role))


def test_project_fields_from_the_spec_and_names_mapped_to_what_argo_cd_matches() -> None:
    project = Project(
        name="web",
        namespaces=["web", "web-*"],
        source_repos=[REPO, "https://git.example.com/*"],
        destinations=[Destination(server="https://*.example.com:6443", namespace="web*")],
        cluster_resources=[("rbac.authorization.k8s.io", "ClusterRole")],
        namespace_resources_deny=[("", "ResourceQuota")],
        roles=[
            Role(
                name="deployer",
                policies=["p, proj:web:deployer, applications, sync, web/*, allow"],
                groups=["web-team"],
            )
        ],
        sync_windows=[
            SyncWindow(
                kind="deny", schedule="0 22 * * *", applications=["api"], clusters=["prod-a"]
            )
        ],
    )
    _, docs = compile_fleet(make_fleet(projects=[project], create_namespaces=False))
    spec = docs["argocd/projects/web.yaml"][0]["spec"]
    assert spec["sourceRepos"] == project.source_repos
    assert spec["destinations"] == [{"server": "https://*.example.com:6443", "namespace": "web*"}]
    assert spec["clusterResourceWhitelist"] == [
        {"group": "rbac.authorization.k8s.io", "kind": "ClusterRole"}
    ]
    assert spec["namespaceResourceBlacklist"] == [{"group": "", "kind": "ResourceQuota"}]
    assert spec["roles"] == [
        {"name": "deployer", "policies": project.roles[0].policies, "groups": ["web-team"]}
    ]
    assert spec["syncWindows"] == [
        {
            "kind": "deny",
            "schedule": "0 22 * * *",
            "duration": "1h",
            "applications": ["api", "api-prod-a", "api-prod-b"],
            "clusters": ["prod-a", "https://prod-a.example.com:6443"],
            "manualSync": False,
            "timeZone": "UTC",
        }
    ]


def test_bootstrap_root_app_syncs_the_argocd_directory_in_a_project_of_its_kinds() -> None:
    _, docs = compile_fleet(make_fleet(output_dir="deploy/out"))
    project, root = docs["argocd/bootstrap.yaml"]
    assert root["spec"]["source"] == {
        "repoURL": REPO,
        "targetRevision": "main",
        "path": "deploy/out/argocd",
        "directory": {"recurse": True},
    }
    assert root["spec"]["project"] == project["metadata"]["name"] == "fleetgen"
    generated = {
        (d["apiVersion"].rpartition("/")[0], d["kind"])
        for path, objects in docs.items()
        if path.startswith("argocd/")
        for d in objects
    }
    allowed = {(k["group"], k["kind"]) for k in project["spec"]["namespaceResourceWhitelist"]}
    assert generated <= allowed
    assert project["spec"]["clusterResourceWhitelist"] == []
    assert project["spec"]["destinations"] == [
        {"server": "https://kubernetes.default.svc", "namespace": "argocd"}
    ]


def test_the_root_projects_whitelist_is_fixed_whatever_the_output_holds() -> None:
    """Argo CD leaves alone a live object whose kind its project no longer permits
    (controller/state.go ``CompareAppState`` drops it from the live state before the diff), so a
    whitelist derived from the output would stop pruning the kind that leaves it: moving the last
    ExternalSecret registration to AwsAuth kept the old ExternalSecrets overwriting the new
    Secret. The list is every kind fleetgen emits under argocd/, namespaced only (tenants'
    Namespaces, ServiceAccounts and RoleBindings live under tenants/, not argocd/)."""
    every = make_fleet()
    on_aws = [
        c.model_copy(
            update={
                "ca_data": CA_DATA,
                "credentials": AwsAuth(cluster_name=c.name, role_arn=ROLE_ARN),
            }
        )
        for c in every.clusters
    ]
    fleets = {
        "every kind": every,
        "no ExternalSecret": make_fleet(clusters=on_aws),
        "tenants": make_fleet(
            projects=[
                Project(name="web", namespaces=["web", "web-api"], service_account="deployer")
            ]
        ),
    }
    whitelists = set()
    for name, fleet in fleets.items():
        _, docs = compile_fleet(fleet)
        project, _ = docs["argocd/bootstrap.yaml"]
        kinds = tuple(
            (k["group"], k["kind"]) for k in project["spec"]["namespaceResourceWhitelist"]
        )
        whitelists.add(kinds)
        assert ("", "Namespace") not in kinds, name
        assert ("argocd/tenants.yaml" in docs) == (name == "tenants")
    assert whitelists == {
        (
            ("", "Secret"),
            ("argoproj.io", "AppProject"),
            ("argoproj.io", "Application"),
            ("argoproj.io", "ApplicationSet"),
            ("external-secrets.io", "ExternalSecret"),
        )
    }


def test_cascade_delete_switches_preservation_for_the_finalizer() -> None:
    for cascade in (False, True):
        _, docs = compile_fleet(make_fleet(cascade_delete=cascade))
        for appset in docs["argocd/applicationsets/web.yaml"]:
            assert appset["spec"]["syncPolicy"] == {"preserveResourcesOnDeletion": not cascade}
            finalizers = appset["spec"]["template"]["metadata"].get("finalizers")
            assert finalizers == (["resources-finalizer.argocd.argoproj.io"] if cascade else None)


def test_applicationset_file_header_names_the_progressive_sync_flag() -> None:
    plan = resolve(make_fleet(), WORKSPACE)
    rendered = writer.render(argocd.emit(plan))
    assert b"--enable-progressive-syncs" in rendered["argocd/applicationsets/web.yaml"]
    dev_only = make_fleet(apps=[web(targets=Selector(envs=["dev"]))])
    rendered = writer.render(argocd.emit(resolve(dev_only, WORKSPACE)))
    assert b"progressive" not in rendered["argocd/applicationsets/web.yaml"]


def test_ca_data_reaches_the_tls_config_of_material_free_registrations() -> None:
    clusters = [
        cluster(
            "dev-1",
            "dev",
            ca_data=CA_DATA,
            credentials=AwsAuth(cluster_name="dev-1", role_arn=ROLE_ARN),
        )
    ]
    _, docs = compile_fleet(
        make_fleet(clusters=clusters, environments=[Environment(name="dev")], apps=[web()])
    )
    (secret,) = docs["argocd/clusters/dev-1.yaml"]
    assert json.loads(secret["stringData"]["config"]) == {
        "awsAuthConfig": {"clusterName": "dev-1", "roleARN": ROLE_ARN},
        "tlsClientConfig": {"caData": CA_DATA},
    }


@pytest.mark.parametrize(
    "bad",
    [
        "not base64!",
        base64.b64encode(b"hello").decode(),
        base64.b64encode(
            b"-----BEGIN CERTIFICATE-----\n-----BEGIN RSA PRIVATE KEY-----\n"
        ).decode(),
    ],
)
def test_ca_data_must_be_a_base64_certificate_bundle(bad: str) -> None:
    with pytest.raises(ValueError, match="ca_data must"):
        cluster("dev-1", "dev", ca_data=bad)


def _bad(**overrides: Any) -> list[str]:
    return messages(argocd.check(resolve(make_fleet(**overrides), WORKSPACE)))


CHECKS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "default project": (
        {
            "projects": [Project(name="default", namespaces=["web", "web-*"])],
            "apps": [web(project="default")],
        },
        ["project name 'default' is reserved: Argo CD's built-in project, which apps never use"],
    ),
    "application name clash": (
        {
            "apps": [
                web(name="web-prod", targets=Selector(clusters=["dev-1"])),
                web(targets=Selector(clusters=["prod-dev-1"])),
            ],
            "clusters": [cluster("dev-1", "dev"), cluster("prod-dev-1", "dev")],
            "environments": [Environment(name="dev")],
        },
        [
            "Application name 'web-prod-dev-1' of app 'web' on cluster 'prod-dev-1' is also the "
            "name of app 'web-prod' on cluster 'dev-1'; rename an app, cluster or environment",
            "Application name 'web-prod-dev-1' of app 'web-prod' on cluster 'dev-1' is also the "
            "name of app 'web' on cluster 'prod-dev-1'; rename an app, cluster or environment",
        ],
    ),
    "application set name clash": (  # the Application names differ (cluster a, b)
        {
            "apps": [
                web(name="web-prod", targets=Selector(clusters=["a"])),
                web(targets=Selector(clusters=["b"])),
            ],
            "clusters": [cluster("a", "dev"), cluster("b", "prod-dev")],
            "environments": [Environment(name="dev"), Environment(name="prod-dev")],
        },
        [
            "ApplicationSet name 'web-prod-dev' of app 'web' in environment 'prod-dev' is also the "
            "name of app 'web-prod' in environment 'dev'; rename an app, cluster or environment",
            "ApplicationSet name 'web-prod-dev' of app 'web-prod' in environment 'dev' is also the "
            "name of app 'web' in environment 'prod-dev'; rename an app, cluster or environment",
        ],
    ),
    "same server twice": (
        {
            "clusters": [
                cluster("dev-1", "dev"),
                cluster("dev-2", "dev", server="https://dev-1.example.com:6443/"),
            ],
            "environments": [Environment(name="dev")],
            "apps": [web()],
        },
        [
            "cluster 'dev-2' has the server URL of cluster 'dev-1' "
            "(https://dev-1.example.com:6443); Argo CD identifies a cluster by its server, so one "
            "cluster cannot be registered twice"
        ],
    ),
    "reserved cluster label": (
        {
            "clusters": [cluster("dev-1", "dev", labels={"argocd.argoproj.io/secret-type": "x"})],
            "environments": [Environment(name="dev")],
            "apps": [web()],
        },
        [
            "label 'argocd.argoproj.io/secret-type' is set by fleetgen on the generated Argo CD "
            "object; remove it"
        ],
    ),
    "malformed sync option": (
        {"sync": SyncPolicy(sync_options=["ServerSideApply"])},
        [
            "sync option 'ServerSideApply' is not of the form Name=value (e.g. "
            "'ServerSideApply=true'); Argo CD ignores anything else"
        ],
    ),
    "destination refused": (
        {
            "projects": [
                Project(
                    name="web",
                    namespaces=["web", "web-*"],
                    destinations=[
                        Destination(server="*", namespace="web"),
                        Destination(server="!https://prod-b.example.com:6443", namespace="*"),
                    ],
                )
            ]
        },
        [
            "app 'api': project 'web' destinations do not permit namespace 'web-api' on "
            "cluster(s) prod-b",
            "app 'web': project 'web' destinations do not permit namespace 'web' on "
            "cluster(s) prod-b",
        ],
    ),
    "source repo refused": (
        {
            "projects": [
                Project(
                    name="web",
                    namespaces=["web", "web-*"],
                    source_repos=["https://git.example.com/*", "!" + REPO],
                )
            ]
        },
        [
            f"project 'web': source_repos do not permit the fleet repo {REPO}, which its apps' "
            "Applications read"
        ],
    ),
    "ca_data with a store reference": (
        {
            "clusters": [cluster("dev-1", "dev", ca_data=CA_DATA)],
            "environments": [Environment(name="dev")],
            "apps": [web()],
        },
        [
            "cluster 'dev-1': ca_data goes with AwsAuth or ExecAuth credentials; with an "
            "ExternalSecretRef the store's config JSON carries tlsClientConfig.caData"
        ],
    ),
    "separator in a path": (
        {"output_dir": "out;put"},
        [
            "output_dir 'out;put' contains ';', which separates the paths of Argo CD's "
            "argocd.argoproj.io/manifest-generate-paths annotation"
        ],
    ),
}


@pytest.mark.parametrize("case", CHECKS)
def test_check_refuses_what_argo_cd_would_reject_or_ignore(case: str) -> None:
    overrides, expected = CHECKS[case]
    assert sorted(_bad(**overrides)) == sorted(expected)


def test_check_points_at_the_line_of_the_offending_object() -> None:
    bad = Project(name="default", namespaces=["web", "web-*"])
    line = test_check_points_at_the_line_of_the_offending_object.__code__.co_firstlineno + 1
    (problem,) = argocd.check(
        resolve(make_fleet(projects=[bad], apps=[web(project="default")]), WORKSPACE)
    )
    assert (problem.file, problem.line) == (__file__, line)


def test_repo_patterns_follow_argo_cd_normalization_and_negation() -> None:
    from fleetgen.rules.argocd import repo_permitted

    assert repo_permitted(["HTTPS://git.example.com/Fleet"], REPO)
    assert repo_permitted(["!https://other.example.com/*"], REPO)
    assert not repo_permitted(["*", "!https://git.example.com/*"], REPO)
    assert not repo_permitted([], REPO)


def test_warnings_name_wildcards_and_flags_a_manual_sync_ignores() -> None:
    project = Project(
        name="web",
        namespaces=["web", "web-*"],
        source_repos=["*"],
        destinations=[Destination(server="*", namespace="web*")],
    )
    fleet = make_fleet(
        projects=[project],
        environments=[
            Environment(name="dev", sync=SyncPolicy(prune=True)),
            Environment(name="prod", sync=SyncPolicy(automated=True)),
        ],
    )
    assert messages(argocd.warnings(resolve(fleet, WORKSPACE))) == [
        "project 'web' uses wildcards (*; * web*): its apps may deploy anything there",
        "app 'web' in environment 'dev': sync is manual, so prune=True has no effect in Argo CD",
    ]
    assert argocd.warnings(resolve(make_fleet(), WORKSPACE)) == []


def test_flux_timing_that_reaches_argo_cd_placements_is_a_warning() -> None:
    fleet = make_fleet(
        environments=[
            Environment(name="dev", sync=SyncPolicy(automated=True, interval="5m", timeout="2m")),
            Environment(name="prod", sync=SyncPolicy(automated=True)),
        ]
    )
    assert messages(argocd.warnings(resolve(fleet, WORKSPACE))) == [
        "interval, timeout: Flux settings, which the Argo CD placements of app(s) web do not "
        "have (an Application syncs when Git changes and retries by retry=Retry(...)); they "
        "apply to Flux placements only"
    ]


def test_depends_on_is_reported_as_not_expressible_in_argo_cd() -> None:
    """Where every placement is on Argo CD the build warns (the fleet map's warnings, which see
    every engine's placements); the ApplicationSet's header says it too."""
    from fleetgen.emit import fleetmap

    fleet = make_fleet(apps=[web(depends_on=["api"]), *make_fleet().apps[1:]])
    plan = resolve(fleet, WORKSPACE)
    assert messages(fleetmap.warnings(plan)) == [
        "app 'web': depends_on has no effect: every placement of it is on Argo CD, which syncs "
        "Applications independently (sync waves do not order generated apps)"
    ]
    assert messages(argocd.warnings(plan)) == []
    header = writer.render(argocd.emit(plan))["argocd/applicationsets/web.yaml"]
    assert b"# This app depends_on api, which only Flux honours:" in header


def test_build_verifies_that_templates_read_only_labels_every_registration_has() -> None:
    plan = resolve(make_fleet(), WORKSPACE)
    broken = dataclasses.replace(plan, waves={"prod": (("prod-a",), ("prod-b",), ())})
    with pytest.raises(
        RuntimeError,
        match=r"cluster 'prod-c' lacks label\(s\) "
        r"\['fleetgen.io/wave'\]",
    ):
        argocd.emit(broken)


FLEET_PY = """from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop", repo="https://git.example.com/shop.git", engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com")],
    projects=[Project(name="default", namespaces=["web"])],
    apps=[App(name="web", project="default", namespace="web", path="apps/web/base")],
)
"""


def test_the_cli_refuses_an_argo_cd_spec_error_at_its_line(tmp_path: Path) -> None:
    base = tmp_path / "apps/web/base"
    base.mkdir(parents=True)
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (base / "deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
    )
    (tmp_path / "fleet.py").write_text(FLEET_PY)
    result = run_fleetgen(tmp_path, "build")
    assert (result.returncode, result.stderr) == (
        2,
        (
            "fleet.py:8: project name 'default' is reserved: Argo CD's built-in project, which "
            "apps never use\n1 problem(s); nothing was written\n"
        ),
    )
    assert not (tmp_path / "output").exists()
