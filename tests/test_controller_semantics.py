"""What the real controllers do with the emitted objects (issue #10; DESIGN "What the controllers
do decides"). Each test names the upstream function whose behaviour it relies on (argoproj/argo-cd,
gitops-engine now vendored there under ``gitops-engine/``; fluxcd/kustomize-controller).
"""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from fleetgen import (
    AwsAuth,
    CaFile,
    Environment,
    ExecAuth,
    Overrides,
    Rollout,
    Step,
    SyncPolicy,
    emit,
)
from fleetgen.emit import argocd, flux
from fleetgen.errors import SpecError
from fleetgen.explain.explanation import placement_view
from fleetgen.inputs import scan
from fleetgen.inputs.workspace import scan as scan_workspace
from fleetgen.manifests.yamlio import load_all
from fleetgen.pipeline import api
from fleetgen.resolver import resolve
from fleetgen.rules.argocd import SYNC_WAVE
from fleetgen.scaffold import init_files
from fleetgen.tools.kustomize import Kustomize, build as kustomize_build
from fleetgen.validate import schemas as crd
from fleetgen.write import writer
from tests.crd_schemas import errors
from tests.emit.test_argocd import (
    CA_DATA,
    ROLE_ARN,
    WORKSPACE,
    cluster,
    compile_fleet,
    make_fleet,
    messages,
    web,
)
from tests.emit.test_argocd_appsets import applications
from tests.emit.test_flux import HUB_FLEET, build

# --- 2. IAM/exec registrations carry the cluster's CA ---------------------------------------
# Argo CD builds the REST config of a cluster from its Secret (pkg/apis/application/v1alpha1/
# types.go, Cluster.RawRestConfig): TLSClientConfig{Insecure, CAData, ...} comes from the config
# JSON's tlsClientConfig alone, also for awsAuthConfig/execProviderConfig. Without caData, Go's
# TLS verifies the API server against the system roots, where an EKS/GKE/AKS cluster CA is not.
# client-go's transport (TLSConfigFor) refuses caData together with insecure.


def _iam_fleet(**fields: Any) -> Any:
    return make_fleet(
        environments=[Environment(name="dev")],
        apps=[web()],
        clusters=[
            cluster(
                "dev-1",
                "dev",
                credentials=AwsAuth(cluster_name="eks-dev-1", role_arn=ROLE_ARN),
                **fields,
            ),
            cluster("dev-2", "dev", credentials=ExecAuth(args=["gcp"]), **fields),
        ],
    )


def test_iam_and_exec_registrations_without_a_ca_are_spec_errors_naming_the_fix() -> None:
    fleet = _iam_fleet()
    found = argocd.check(resolve(fleet, WORKSPACE))
    assert [(p.file, p.line) for p in found] == [c.origin for c in fleet.clusters]
    aws, gcp = messages(found)
    assert aws.startswith("cluster 'dev-1': AwsAuth credentials need the cluster's CA")
    assert (
        "`aws eks describe-cluster --name eks-dev-1 --query cluster.certificateAuthority.data "
        "--output text`"
    ) in aws
    assert "masterAuth.clusterCaCertificate" in gcp and gcp.startswith("cluster 'dev-2': ExecAuth")
    for message in (aws, gcp):
        assert "x509" in message and "--ca-data FILE" in message and "insecure=True" in message


def test_ca_data_and_insecure_reach_tls_client_config_exactly() -> None:
    _, docs = compile_fleet(_iam_fleet(ca_data=CA_DATA))
    for name in ("dev-1", "dev-2"):
        (secret,) = docs[f"argocd/clusters/{name}.yaml"]
        assert json.loads(secret["stringData"]["config"])["tlsClientConfig"] == {"caData": CA_DATA}
    plan = resolve(_iam_fleet(insecure=True), WORKSPACE)
    assert argocd.check(plan) == []
    docs = {f.path: f.documents for f in argocd.emit(plan)}
    (secret,) = docs["argocd/clusters/dev-1.yaml"]
    assert json.loads(secret["stringData"]["config"])["tlsClientConfig"] == {"insecure": True}
    warned = [m for m in messages(argocd.warnings(plan)) if "insecure=True" in m]
    assert warned == [
        f"cluster '{name}': insecure=True: Argo CD does not verify its API "
        "server's certificate, so anyone on the network path can impersonate it; "
        "set ca_data instead"
        for name in ("dev-1", "dev-2")
    ]


def _with_ca_file(content: bytes | None) -> Any:
    """The test workspace with ``content`` as the file certs/dev.pem (None: no such file), read
    as load reads it."""
    certificates = scan_workspace(
        lambda _: content, [], certificates=["certs/dev.pem"]
    ).certificates
    return dataclasses.replace(WORKSPACE, certificates=certificates)


def test_a_ca_file_reaches_tls_client_config_as_its_content() -> None:
    """CaFile("certs/dev.pem"): the file (PEM, or the base64 `aws eks` prints) is read into the
    workspace at load; the registration carries its base64, as for ca_data inlined."""
    for text in (base64.b64decode(CA_DATA), CA_DATA.encode() + b"\n"):
        plan = resolve(_iam_fleet(ca_data=CaFile("certs/dev.pem")), _with_ca_file(text))
        assert argocd.check(plan) == [] and plan.ca_data == {"dev-1": CA_DATA, "dev-2": CA_DATA}
        (secret,) = {f.path: f.documents for f in argocd.emit(plan)}["argocd/clusters/dev-1.yaml"]
        assert json.loads(secret["stringData"]["config"])["tlsClientConfig"] == {"caData": CA_DATA}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "no such file"),
        (b"\xff\xfe", "not a text file (PEM or base64)"),
        (b"hello\n", "expected the cluster's CA certificate (PEM CERTIFICATE blocks"),
        (
            b"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
            "holds a private key: give the cluster's CA certificate (public) only",
        ),
    ],
    ids=["missing", "binary", "not pem", "a key"],
)
def test_a_ca_file_that_holds_no_certificate_is_a_spec_error_at_its_call(
    content: bytes | None, problem: str
) -> None:
    ca = CaFile("certs/dev.pem")
    with pytest.raises(SpecError) as caught:
        resolve(_iam_fleet(ca_data=ca), _with_ca_file(content))
    found = [p for p in caught.value.problems if "CaFile" in p.message]
    assert [(p.file, p.line) for p in found] == [ca.origin, ca.origin]
    assert found[0].message.startswith(f"cluster 'dev-1': CaFile('certs/dev.pem'): {problem}")


def test_ca_data_with_insecure_or_insecure_with_a_store_reference_is_refused() -> None:
    both = messages(argocd.check(resolve(_iam_fleet(ca_data=CA_DATA, insecure=True), WORKSPACE)))
    assert both == [
        f"cluster '{name}': set ca_data or insecure=True, not both (client-go refuses "
        "a CA together with the insecure flag); drop insecure"
        for name in ("dev-1", "dev-2")
    ]
    stored = make_fleet(
        environments=[Environment(name="dev")],
        apps=[web()],
        clusters=[cluster("dev-1", "dev", insecure=True)],
    )
    assert messages(argocd.check(resolve(stored, WORKSPACE))) == [
        "cluster 'dev-1': insecure goes with AwsAuth or ExecAuth credentials; with an "
        "ExternalSecretRef the store's config JSON carries tlsClientConfig.insecure"
    ]


def test_a_ca_bundle_is_public_material_the_secret_scan_accepts() -> None:
    assert list(scan.problems(_iam_fleet(ca_data=CA_DATA))) == []


def test_only_clusters_argo_cd_deploys_to_need_a_ca_and_only_its_placements_are_warned() -> None:
    """Engine-aware (DESIGN "One engine per placement"): the CA goes into the Argo CD
    registration only, and RollingSync only rolls out Argo CD placements; IAM credentials without
    a CA on a Flux cluster, and self_heal on a rolling environment's Flux placements, are fine
    (kustomize-controller corrects drift every interval, rollout or not)."""

    def iam(name: str, env: str, engine: str) -> Any:
        return cluster(
            name,
            env,
            engine=engine,
            labels={"ring": "canary", "region": "eu"},
            credentials=AwsAuth(cluster_name=name, role_arn=ROLE_ARN),
        )

    rolling = Environment(
        name="prod",
        rollout=Rollout(steps=[Step()]),
        sync=SyncPolicy(automated=True, self_heal=True),
    )
    fleet = make_fleet(
        engines=["argocd", "flux"],
        environments=[Environment(name="dev"), rolling],
        apps=[web()],
        clusters=[iam("dev-1", "dev", "flux"), iam("prod-a", "prod", "flux")],
    )
    plan = resolve(fleet, WORKSPACE)
    assert emit.check(plan) == []
    assert not [w for w in emit.warnings(plan) if "RollingSync" in w.message]
    assert not [
        f for f in emit.emit(plan) if f.path.startswith("argocd/") and "clusters/" in f.path
    ]
    fleet = make_fleet(
        engines=["argocd", "flux"],
        environments=[Environment(name="dev"), rolling],
        apps=[web()],
        clusters=[iam("dev-1", "dev", "flux"), iam("prod-a", "prod", "argocd")],
    )
    plan = resolve(fleet, WORKSPACE)
    assert [m.split(":")[0] for m in messages(emit.check(plan))] == ["cluster 'prod-a'"]
    assert [w.message for w in emit.warnings(plan) if "RollingSync" in w.message] == [
        "environment 'prod' rolls out with RollingSync, which turns automated sync off on its "
        "Applications and syncs them itself when a change arrives: self_heal=True has no effect "
        "on the Argo CD placements of app(s) web; drift stays until the next change"
    ]


# --- 3. A missing store entry does not freeze the fleet --------------------------------------
# gitops-engine pkg/sync/sync_context.go: syncContext.getSyncTasks orders tasks by sync wave
# (prune waves mirrored; with PruneLast every prune goes to a wave after the last one);
# syncContext.Sync applies one wave at a time and, before the next, waits for the objects of the
# wave to be healthy: a Degraded one ("one or more synchronization tasks completed
# unsuccessfully") fails the whole sync. After the last wave it reports success "EVEN if those
# objects subsequently degrade". Argo CD's ExternalSecret health check
# (resource_customizations/external-secrets.io/ExternalSecret/health.lua) is Degraded while
# Ready=False, i.e. while its store entry is missing.


def _wave(obj: Mapping[str, Any]) -> int:
    return int(obj["metadata"].get("annotations", {}).get(SYNC_WAVE, "0"))


def _sync(
    desired: Iterable[Mapping[str, Any]],
    pruned: Iterable[Mapping[str, Any]],
    degraded: set[str],
    prune_last: bool,
) -> tuple[bool, set[str]]:
    """(succeeded, names of what was applied or pruned) of one sync, as syncContext runs it."""
    tasks = [(_wave(o), o["metadata"]["name"], False) for o in desired]
    prunes = [(_wave(o), o["metadata"]["name"], True) for o in pruned]
    waves = sorted({wave for wave, _, _ in prunes})
    mirrored = dict(zip(waves, reversed(waves), strict=True))
    prunes = [(mirrored[wave], name, True) for wave, name, _ in prunes]
    if prune_last:
        last = max(wave for wave, _, _ in tasks + prunes) + 1
        prunes = [(last, name, True) for _, name, _ in prunes]
    tasks += prunes
    done: set[str] = set()
    order = sorted({wave for wave, _, _ in tasks})
    for wave in order:
        names = {name for w, name, prune in tasks if w == wave}
        done |= names
        if wave != order[-1] and names & degraded:
            return False, done
    return True, done


def _root_sync(docs: Mapping[str, list[Any]], removed: str) -> tuple[bool, set[str], set[str]]:
    root = docs["argocd/bootstrap.yaml"][1]
    prune_last = "PruneLast=true" in root["spec"]["syncPolicy"].get("syncOptions", [])
    desired = [d for path, objs in docs.items() for d in objs if path != removed]
    registrations = {
        d["metadata"]["name"]
        for path, objs in docs.items()
        for d in objs
        if path.startswith("argocd/clusters/")
    }
    succeeded, done = _sync(desired, docs[removed], registrations, prune_last)
    appsets = {d["metadata"]["name"] for d in desired if d["kind"] == "ApplicationSet"}
    return succeeded, done, appsets


def test_a_degraded_registration_holds_back_no_applicationset_and_no_prune() -> None:
    _, docs = compile_fleet(make_fleet())
    assert not any(
        _wave(d) for path, objs in docs.items() if path.startswith("argocd/clusters/") for d in objs
    )
    removed = "argocd/applicationsets/api.yaml"  # an app leaves the spec: its sets are pruned
    succeeded, done, appsets = _root_sync(docs, removed)
    assert succeeded and appsets <= done and {"api-prod"} <= done
    # The same sync with registrations in wave -1, or with PruneLast, fails before the prune:
    # the check above can fail.
    early = {
        path: [
            {**d, "metadata": {**d["metadata"], "annotations": {SYNC_WAVE: "-1"}}}
            if path.startswith("argocd/clusters/")
            else d
            for d in objs
        ]
        for path, objs in docs.items()
    }
    assert not _root_sync(early, removed)[0]
    root = docs["argocd/bootstrap.yaml"][1]
    pruning_last = {
        **docs,
        "argocd/bootstrap.yaml": [
            docs["argocd/bootstrap.yaml"][0],
            {**root, "spec": {**root["spec"], "syncPolicy": {"syncOptions": ["PruneLast=true"]}}},
        ],
    }
    succeeded, done, _ = _root_sync(pruning_last, removed)
    assert not succeeded and "api-prod" not in done


def test_the_bootstrap_comment_explains_the_waves() -> None:
    rendered = writer.render(argocd.emit(resolve(make_fleet(), WORKSPACE)))
    text = rendered["argocd/bootstrap.yaml"].decode()
    assert "# Sync waves: AppProjects first (-1), everything else in the last wave (0)" in text
    assert "never holds back the ApplicationSets" in text


# --- 4. RollingSync turns self-heal off --------------------------------------------------------
# applicationset/progressivesync/progressive_sync.go, Manager.SyncDesiredApplications calls
# disableAutomatedSync (Argo CD 3.3: ApplicationSetReconciler.syncDesiredApplications sets
# Automated.Enabled=false) on every Application a RollingSync ApplicationSet generates and then
# syncs them itself; controller/appcontroller.go autoSync returns early without automated sync,
# so selfHeal never runs.


def test_self_heal_under_a_rollout_is_a_warning_at_the_layer_that_set_it() -> None:
    prod = Environment(
        name="prod",
        sync=SyncPolicy(automated=True, self_heal=True),
        rollout=Rollout(steps=[Step()]),
    )
    plan = resolve(
        make_fleet(
            environments=[
                Environment(name="dev", sync=SyncPolicy(automated=True, self_heal=True)),
                prod,
            ]
        ),
        WORKSPACE,
    )
    (warning,) = [w for w in argocd.warnings(plan) if "RollingSync" in w.message]
    assert warning.line == prod.sync.origin[1]
    assert warning.message == (
        "environment 'prod' rolls out with RollingSync, which turns automated sync off on its "
        "Applications and syncs them itself when a change arrives: self_heal=True has no effect "
        "on the Argo CD placements of app(s) api, web; drift stays until the next change"
    )
    per_env = Overrides(sync=SyncPolicy(self_heal=True))
    plan = resolve(make_fleet(apps=[web(per_env={"prod": per_env})]), WORKSPACE)
    (warning,) = [w for w in argocd.warnings(plan) if "RollingSync" in w.message]
    assert per_env.sync is not None and warning.line == per_env.sync.origin[1]
    text = writer.render(argocd.emit(plan))["argocd/applicationsets/web.yaml"].decode()
    assert "# RollingSync turns automated sync off on the generated Applications" in text


# --- 5. Namespaces exist on both engines -------------------------------------------------------
# controller/sync.go, appStateManager.SyncAppState: Argo CD creates the destination namespace
# only when the sync options hold "CreateNamespace=true" (gitops-engine autoCreateNamespace);
# Flux creates none, so fleetgen emits Namespace objects for it.


def _sync_options(docs: Mapping[str, list[Any]]) -> list[list[str]]:
    return [
        app["spec"].get("syncPolicy", {}).get("syncOptions", [])
        for generated in applications(docs).values()
        for app in generated
    ]


def test_every_generated_application_creates_its_namespace_whatever_the_sync_options() -> None:
    fleet = make_fleet(
        environments=[
            Environment(name="dev", sync=SyncPolicy(sync_options=["ServerSideApply=true"])),
            make_fleet().environments[1],
        ]
    )
    options = _sync_options(compile_fleet(fleet)[1])
    assert options and all(found[0] == "CreateNamespace=true" for found in options)
    assert ["CreateNamespace=true", "ServerSideApply=true", "RespectIgnoreDifferences=true"] in (
        options
    )


def test_sync_options_add_up_across_layers_and_a_deeper_value_replaces_one() -> None:
    """Argo CD reads each option by name and value (gitops-engine ``SyncOptions.HasOption``
    matches ``Name=value`` exactly): a deeper layer's options join the ones above it, and the
    same name with another value replaces it rather than standing beside it."""
    fleet = make_fleet(
        sync=SyncPolicy(sync_options=["ServerSideApply=true", "PruneLast=true"]),
        environments=[
            Environment(name="dev", sync=SyncPolicy(sync_options=["ApplyOutOfSyncOnly=true"])),
            make_fleet().environments[1],
        ],
        apps=[
            web(per_env={"dev": Overrides(sync=SyncPolicy(sync_options=["ServerSideApply=false"]))})
        ],
    )
    options = _sync_options(compile_fleet(fleet)[1])
    assert [
        "CreateNamespace=true",
        "ServerSideApply=false",
        "PruneLast=true",
        "ApplyOutOfSyncOnly=true",
    ] in options


def test_create_namespaces_false_creates_none_on_either_engine() -> None:
    plan, docs = compile_fleet(make_fleet(create_namespaces=False))
    assert not any("CreateNamespace=true" in found for found in _sync_options(docs))
    (project,) = docs["argocd/projects/web.yaml"]
    assert project["spec"]["clusterResourceWhitelist"] == [] and errors(project) == []
    assert not [f for f in flux.emit(plan) if any(d["kind"] == "Namespace" for d in f.documents)]
    assert [
        f.path
        for f in flux.emit(resolve(make_fleet(), WORKSPACE))
        if f.path.endswith("namespaces.yaml")
    ]  # the default creates them


@pytest.mark.parametrize(
    "option", ["CreateNamespace=true", "CreateNamespace=false", "CreateNamespace"]
)
def test_create_namespace_in_sync_options_points_at_the_fleet_switch(option: str) -> None:
    with pytest.raises(
        ValueError,
        match=r"remove it; namespace creation is one switch for both "
        r"engines, Fleet\(create_namespaces=True\)",
    ):
        SyncPolicy(sync_options=[option])


@pytest.mark.parametrize("engine", ["argocd", "flux"])
def test_a_new_fleet_from_init_creates_its_namespaces(tmp_path: Path, engine: str) -> None:
    for path, text in init_files("acme", "https://git.example.com/acme.git", engine).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    rendered = api.compile_spec(tmp_path / "fleet.py").rendered
    if engine == "argocd":
        docs = {
            path: list(load_all(data.decode()))
            for path, data in rendered.items()
            if path.startswith("argocd/")
        }
        options = _sync_options(docs)
        assert options and all("CreateNamespace=true" in found for found in options)
    else:
        assert [
            d["metadata"]["name"]
            for d in load_all(rendered["flux/clusters/dev-1/namespaces.yaml"].decode())
        ] == ["hello"]


# --- 10. Argo CD-only metadata stays off Flux objects ------------------------------------------


def test_argoproj_io_keys_reach_applications_but_not_flux_kustomizations() -> None:
    annotations = {
        "notifications.argoproj.io/subscribe.on-sync-failed.slack": "web",
        "argoproj.io/x": "1",
        "acme.io/team": "web",
        "notargoproj.io/y": "2",
    }
    labels = {"argocd.argoproj.io/instance-group": "web", "acme.io/tier": "front"}
    plan, docs = compile_fleet(make_fleet(apps=[web(annotations=annotations, labels=labels)]))
    for app in [a for found in applications(docs).values() for a in found]:
        assert annotations.items() <= app["metadata"]["annotations"].items()
        assert labels.items() <= app["metadata"]["labels"].items()
    kustomizations = [
        d for f in flux.emit(plan) for d in f.documents if d["kind"] == "Kustomization"
    ]
    assert kustomizations
    for k in kustomizations:
        assert k["metadata"]["annotations"] == {"acme.io/team": "web", "notargoproj.io/y": "2"}
        assert {key for key in k["metadata"]["labels"] if "argoproj" in key} == set()
        assert k["metadata"]["labels"]["acme.io/tier"] == "front"


# --- §2a. ApplicationSets apply server-side, the root Application client-side -----------------
# gitops-engine sync_context.go, syncContext.shouldUseServerSideApply: a resource annotated
# argocd.argoproj.io/sync-options: ServerSideApply=true is applied server-side, without the
# last-applied-configuration annotation that caps client-side apply at 256 KiB.


def test_applicationsets_apply_server_side_and_the_root_application_does_not() -> None:
    _, docs = compile_fleet(make_fleet())
    appsets = [d for objs in docs.values() for d in objs if d["kind"] == "ApplicationSet"]
    assert appsets
    for appset in appsets:
        assert appset["metadata"]["annotations"] == {
            "argocd.argoproj.io/sync-options": "ServerSideApply=true"
        }
        assert errors(appset) == []
    _, root = docs["argocd/bootstrap.yaml"]
    assert "annotations" not in root["metadata"]
    assert "syncOptions" not in root["spec"]["syncPolicy"]


# --- 8. Only fields the oldest supported Argo CD knows -----------------------------------------


@pytest.mark.parametrize("variant", ["default", "no namespaces", "insecure"])
def test_every_argo_cd_object_validates_on_the_floor_release_too(variant: str) -> None:
    fleet = {
        "default": make_fleet(),
        "no namespaces": make_fleet(create_namespaces=False),
        "insecure": _iam_fleet(insecure=True),
    }[variant]
    docs = {f.path: list(f.documents) for f in argocd.emit(resolve(fleet, WORKSPACE))}
    generated = [a for found in applications(docs).values() for a in found]
    assert generated
    for obj in [*(d for objs in docs.values() for d in objs), *generated]:
        assert errors(obj) == [], (variant, obj["kind"], obj["metadata"]["name"])
    assert "Argo CD 3.3" in {str(s.name) for s in crd.shipped()}  # errors() checks the floor too


def test_a_flux_hub_without_namespace_creation_keeps_only_the_spoke_namespaces(
    tmp_path_factory: pytest.TempPathFactory, kustomize: Kustomize
) -> None:
    text = HUB_FLEET.replace('engines=["flux"],', 'engines=["flux"], create_namespaces=False,')
    built = build(tmp_path_factory, "hub-no-namespaces", text)
    namespaces = [
        doc["metadata"]["name"] for _, doc in built.docs("flux") if doc["kind"] == "Namespace"
    ]
    spokes = sorted({p.cluster for p in built.plan.placements} - {"mgmt"})
    assert sorted(namespaces) == spokes  # where the hub keeps each spoke's Kustomizations
    for spoke in spokes:
        assert kustomize_build(built.out / "flux/spokes" / spoke, kustomize).strip() == ""


# --- Deletion per app and environment (issue 25, construct 10) ------------------------------
# argo-cd: the ApplicationSet controller removes an Application's resources finalizer before
# deleting it when preserveResourcesOnDeletion is set (applicationset/controllers
# ``removeFinalizerOnInvalidDestination`` / ``deleteInCluster``); the finalizer
# (``resources-finalizer.argocd.argoproj.io``) is what makes ``finalizeApplicationDeletion``
# cascade. kustomize-controller: ``finalizerShouldDeleteResources`` reads deletionPolicy.


def test_cascade_delete_per_environment_and_app_decides_each_placements_deletion() -> None:
    fleet = make_fleet(
        engines=["argocd", "flux"],
        environments=[
            Environment(
                name="dev", engine="flux", cascade_delete=True, sync=SyncPolicy(automated=True)
            ),
            Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True)),
        ],
        apps=[web(), web(name="api", cascade_delete=False), web(name="jobs", cascade_delete=True)],
    )
    plan = resolve(fleet, WORKSPACE)
    kept = {(p.app, p.env): p.cascade_delete for p in plan.placements}
    assert kept == {
        ("web", "dev"): True,  # the environment's
        ("api", "dev"): False,  # the app's wins
        ("jobs", "dev"): True,
        ("web", "prod"): False,  # the fleet's default
        ("api", "prod"): False,
        ("jobs", "prod"): True,
    }
    appsets = {
        doc["metadata"]["name"]: doc
        for f in argocd.emit(plan.on("argocd"))
        for doc in f.documents
        if doc.get("kind") == "ApplicationSet"
    }
    for app, cascade in (("web", False), ("jobs", True)):
        spec = appsets[f"{app}-prod"]["spec"]
        assert spec["syncPolicy"]["preserveResourcesOnDeletion"] is not cascade
        finalizers = spec["template"]["metadata"].get("finalizers", [])
        assert (finalizers == ["resources-finalizer.argocd.argoproj.io"]) is cascade
    policies = {
        doc["metadata"]["name"]: doc["spec"]["deletionPolicy"]
        for f in flux.emit(plan.on("flux"))
        for doc in f.documents
        if doc.get("kind") == "Kustomization" and "deletionPolicy" in doc.get("spec", {})
    }
    assert {name: policies[name] for name in ("web", "api", "jobs")} == {
        "web": "Delete",
        "api": "Orphan",
        "jobs": "Delete",
    }
    layers = {
        (v.app, v.env): next(x.layer for x in v.values if x.key == "cascade_delete")
        for v in (placement_view(plan, p) for p in plan.placements)
    }
    assert (layers[("web", "dev")], layers[("api", "dev")], layers[("web", "prod")]) == (
        "env",
        "app",
        "default",
    )
    # A namespace may hold any app: it is pruned only when every placement cascades.
    namespaces = [
        doc
        for f in flux.emit(plan.on("flux"))
        for doc in f.documents
        if doc.get("kind") == "Namespace"
    ]
    assert namespaces and all(
        doc["metadata"]["annotations"] == {"kustomize.toolkit.fluxcd.io/prune": "disabled"}
        for doc in namespaces
    )
