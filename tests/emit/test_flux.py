"""The Flux emitter on the example fleet (per cluster) and on a hub-and-spoke fleet, built in temp
repos: strict CRD validation, the object graph of each cluster directory with real kustomize, the
placements, rollout waves, and the ``flux-system/`` trees that `flux bootstrap` owns."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from fleetgen import emit as emitters
from fleetgen.emit import flux
from fleetgen.inputs.load import load
from fleetgen.manifests.yamlio import load_all
from fleetgen.pipeline import api
from fleetgen.resolver import resolve
from fleetgen.resolver.plan import Plan
from fleetgen.tools.kustomize import Kustomize, build_many
from fleetgen.validate import schemas as crd
from fleetgen.write.output import CLUSTER_LABEL, ENV_LABEL
from fleetgen.write.writer import render
from tests.crd_schemas import errors

ROOT = Path(__file__).resolve().parents[2]
FLUX_NAMESPACE = "flux-system"

HUB_FLEET = """
from fleetgen import (App, AwsAuth, Cluster, Environment, ExternalSecretRef, Fleet, FluxOptions,
                      GitSource, IgnoreDifference, Project, Rollout, Selector, Step, SyncPolicy)

fleet = Fleet(
    name="acme",
    repo="https://github.com/acme/fleet.git",
    engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    flux=FluxOptions(mode="hub", hub="mgmt",
                     source=GitSource(url="ssh://git@github.com/acme/fleet.git", branch="release",
                                      secret_ref="fleet-deploy-key")),
    environments=[
        Environment(name="mgmt", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="staging"),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}),
                                           Step(match_labels={"ring": "main"}, max_update="50%"),
                                           Step()])),
    ],
    clusters=[
        Cluster(name="mgmt", env="mgmt", server="https://mgmt.example.com"),
        Cluster(name="staging", env="staging", server="https://staging.example.com"),
        Cluster(name="prod-eu", env="prod", labels={"ring": "canary"},
                server="https://0123ABCD.gr7.eu-west-1.eks.amazonaws.com",
                credentials=AwsAuth(cluster_name="prod-eu",
                                    role_arn="arn:aws:iam::111122223333:role/flux-deployer")),
        Cluster(name="prod-us", env="prod", labels={"ring": "main"},
                server="https://prod-us.example.com"),
        Cluster(name="prod-ap", env="prod", labels={"ring": "main"},
                server="https://prod-ap.example.com"),
        Cluster(name="prod-dr", env="prod", server="https://prod-dr.example.com"),
    ],
    projects=[Project(name="platform", namespaces=["platform"]),
              Project(name="orders", namespaces=["orders"])],
    apps=[
        App(name="platform-config", project="platform", namespace="platform",
            path="apps/platform-config/base"),
        App(name="order-service", project="orders", namespace="orders",
            path="apps/order-service/base", targets=Selector(envs=["staging", "prod"]),
            depends_on=["platform-config"],
            ignore_differences=[IgnoreDifference(group="apps", kind="Deployment",
                                                 name="order-service",
                                                 json_pointers=["/spec/replicas"],
                                                 jq_path_expressions=[".spec.template"])]),
    ],
)
"""


def make_repo(root: Path, fleet_text: str) -> Path:
    """A fleet repo: ``fleet_text`` as fleet.py next to a copy of the example's app bases and
    charts."""
    repo = root / "repo"
    shutil.copytree(ROOT / "apps", repo / "apps")
    shutil.copytree(ROOT / "charts", repo / "charts")
    (repo / "fleet.py").write_text(fleet_text)
    return repo


@dataclass(frozen=True)
class Built:
    """A fleet built into its repo's output/."""

    repo: Path
    plan: Plan

    @property
    def out(self) -> Path:
        return self.repo / "output"

    def docs(self, under: str) -> Iterator[tuple[Path, dict[str, Any]]]:
        """(file, object) for every YAML document below ``output/<under>``."""
        for path in sorted((self.out / under).rglob("*.yaml")):
            for doc in load_all(path.read_text()):
                yield path, doc

    def flux_objects(self) -> Iterator[tuple[Path, dict[str, Any]]]:
        """`docs` of ``output/flux`` but kustomize's own files (``flux/spokes/<spoke>/
        kustomization.yaml``, a kustomize Kustomization, not Flux's)."""
        for path, doc in self.docs("flux"):
            if doc.get("kind") != "Kustomization" or "toolkit" in doc["apiVersion"]:
                yield path, doc


def build(factory: pytest.TempPathFactory, name: str, fleet_text: str) -> Built:
    repo = make_repo(factory.mktemp(name), fleet_text)
    api.build(repo / "fleet.py")
    return Built(repo, api.compile_spec(repo / "fleet.py").plan)


@pytest.fixture(scope="module", params=["example", "hub"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    text = (ROOT / "fleet.py").read_text() if request.param == "example" else HUB_FLEET
    return build(tmp_path_factory, request.param, text)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory, "hub", HUB_FLEET)


def cel_errors(obj: dict[str, Any]) -> list[str]:
    """The CEL rules of the Flux CRDs that JSON Schema cannot express."""
    spec = obj.get("spec", {})
    if obj["kind"] == "Kustomization" and "kubeConfig" in spec:
        refs = {"secretRef", "configMapRef"} & set(spec["kubeConfig"])
        if len(refs) != 1:
            return ["exactly one of spec.kubeConfig.configMapRef or secretRef must be set"]
    if (
        obj["kind"] == "GitRepository"
        and "serviceAccountName" in spec
        and spec.get("provider") not in ("aws", "azure")
    ):
        return ["serviceAccountName can only be set when provider is 'azure' or 'aws'"]
    return []


def test_every_flux_object_validates_strictly(built: Built) -> None:
    """On every shipped release the fleet's floor (FluxOptions.min_version) admits: the example
    needs Flux 2.9, the hub fleet runs on the 2.7 floor."""
    floor = tuple(int(part) for part in built.plan.fleet.flux.min_version.split(".")[:2])
    checker = crd.Checker(crd.shipped({"flux": (floor[0], floor[1])}))
    found = 0
    for path, doc in built.flux_objects():
        assert checker.errors(doc) == [], (path, doc["metadata"])
        assert cel_errors(doc) == [], (path, doc["metadata"])
        found += 1
    assert found


def test_no_engine_side_transformation_of_workloads(built: Built) -> None:
    """No postBuild (a `${...}` in a user value reaches the cluster unchanged) nor any other
    Flux-only rewrite of what the overlay renders."""
    for _, doc in built.docs("flux/clusters"):
        if doc["kind"] == "Kustomization":
            forbidden = {
                "postBuild",
                "patches",
                "images",
                "targetNamespace",
                "namePrefix",
                "nameSuffix",
                "commonMetadata",
                "components",
            }
            assert not forbidden & set(doc["spec"]), doc["metadata"]


BOOTSTRAP_ROOT = (FLUX_NAMESPACE, FLUX_NAMESPACE)  # the Kustomization applying the directory


def test_graph_of_each_cluster_directory(built: Built, kustomize: Kustomize) -> None:
    """Every sourceRef, dependsOn and kubeConfig target exists in the directory (bootstrap's
    GitRepository and root Kustomization count), there is no cycle, every namespace exists,
    and every path builds."""
    paths: set[Path] = set()
    for cluster_dir in sorted((built.out / "flux/clusters").iterdir()):
        objects = [doc for _, doc in built.docs(f"flux/clusters/{cluster_dir.name}")]
        ids = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]) for d in objects}
        assert len(ids) == len(objects), f"{cluster_dir.name}: an object is emitted twice"
        assert ("GitRepository", FLUX_NAMESPACE, FLUX_NAMESPACE) not in ids  # bootstrap's
        assert ("Kustomization", FLUX_NAMESPACE, FLUX_NAMESPACE) not in ids
        sources = {(ns, name) for kind, ns, name in ids if kind == "GitRepository"}
        sources.add((FLUX_NAMESPACE, FLUX_NAMESPACE))
        namespaces = {name for kind, _, name in ids if kind == "Namespace"} | {FLUX_NAMESPACE}
        kustomizations = {
            (d["metadata"]["namespace"], d["metadata"]["name"]): d
            for d in objects
            if d["kind"] == "Kustomization"
        }
        graph: dict[tuple[str, str], set[tuple[str, str]]] = {BOOTSTRAP_ROOT: set()}
        for (namespace, name), ks in kustomizations.items():
            spec = ks["spec"]
            assert namespace in namespaces, (cluster_dir.name, name)
            source = spec["sourceRef"]
            assert source["kind"] == "GitRepository"
            assert (source.get("namespace", namespace), source["name"]) in sources
            deps = {(d.get("namespace", namespace), d["name"]) for d in spec.get("dependsOn", [])}
            assert deps <= {*kustomizations, BOOTSTRAP_ROOT}, (cluster_dir.name, name, deps)
            graph[(namespace, name)] = deps
            assert_reachable(spec.get("kubeConfig", {}), namespace, objects)
            assert spec["path"].startswith("./")
            paths.add(built.repo / spec["path"])
        assert_acyclic(graph)
    assert all(path.is_dir() for path in paths)
    rendered = build_many(sorted(paths), kustomize=kustomize)
    gate = built.out / "flux/gate"  # what hub rollout gates apply: nothing
    assert all(output or path == gate for path, output in rendered.items())


def assert_reachable(
    kube_config: dict[str, Any], namespace: str, objects: list[dict[str, Any]]
) -> None:
    """The kubeconfig Secret (made by an ExternalSecret) or workload-identity ConfigMap, and the
    ServiceAccount that ConfigMap names, exist in ``namespace``."""
    here = {
        (d["kind"], d["metadata"]["name"]): d
        for d in objects
        if d["metadata"].get("namespace") == namespace
    }
    if "secretRef" in kube_config:
        secrets = {
            d["spec"]["target"]["name"] for (kind, _), d in here.items() if kind == "ExternalSecret"
        }
        assert kube_config["secretRef"]["name"] in secrets
    if "configMapRef" in kube_config:
        config = here[("ConfigMap", kube_config["configMapRef"]["name"])]["data"]
        assert ("ServiceAccount", config["serviceAccountName"]) in here


def assert_acyclic(graph: dict[tuple[str, str], set[tuple[str, str]]]) -> None:
    done: set[tuple[str, str]] = set()

    def visit(node: tuple[str, str], trail: tuple[tuple[str, str], ...]) -> None:
        assert node not in trail, f"dependsOn cycle: {[*trail, node]}"
        if node not in done:
            for dep in graph[node]:
                visit(dep, (*trail, node))
            done.add(node)

    for node in graph:
        visit(node, ())


def placed_kustomizations(built: Built) -> dict[tuple[str, str], dict[str, Any]]:
    """(app, cluster) -> its Kustomization, the cluster told by where the object lives: its
    cluster directory, or in hub mode its namespace (a spoke's name) on the hub."""
    found = {}
    for path, doc in built.docs("flux/clusters"):
        metadata = doc["metadata"]
        if doc["kind"] != "Kustomization" or "." in metadata["name"]:
            continue  # namespaces.fleetgen.io creates namespaces, it places no app
        cluster = path.relative_to(built.out / "flux/clusters").parts[0]
        if metadata["namespace"] != FLUX_NAMESPACE:
            cluster = metadata["namespace"]
        assert (metadata["name"], cluster) not in found
        found[(metadata["name"], cluster)] = doc
    return found


def test_kustomizations_are_the_placements_of_the_plan(built: Built) -> None:
    found = placed_kustomizations(built)
    expected = {(p.app, p.cluster): p for p in built.plan.on("flux").placements if p.chart is None}
    assert set(found) == set(expected)  # chart apps: tests/test_charts_engines.py
    for key, ks in found.items():
        placement = expected[key]
        # the overlay the Argo CD Application of this placement points at
        assert ks["spec"]["path"] == f"./output/{placement.overlay}"
        labels = ks["metadata"]["labels"]
        assert (labels[CLUSTER_LABEL], labels[ENV_LABEL]) == (placement.cluster, placement.env)
        sync = placement.settings.sync
        assert ks["spec"]["prune"] is sync.prune
        assert ks["spec"].get("suspend", False) is not sync.automated
        assert ks["spec"]["deletionPolicy"] == "Orphan"


def test_depends_on_becomes_depends_on_in_the_same_namespace(built: Built) -> None:
    """A dependency on a chart app is on its gate (`fleetgen.emit.flux.dependencies`)."""
    apps = {app.name: app for app in built.plan.fleet.apps}
    for (app, _), ks in placed_kustomizations(built).items():
        deps = ks["spec"].get("dependsOn", [])
        same_namespace = {d["name"] for d in deps if "namespace" not in d}
        expected = {
            f"{name}.ready" if apps[name].chart is not None else name
            for name in apps[app].depends_on
        }
        assert expected <= same_namespace


EXAMPLE_ON_2_7 = (
    (ROOT / "fleet.py")
    .read_text()
    .replace('flux=FluxOptions(min_version="2.9")', 'flux=FluxOptions(min_version="2.7")')
)


def test_ignore_differences_need_flux_2_9(tmp_path_factory: pytest.TempPathFactory) -> None:
    """kustomize-controller has ``KustomizationSpec.Ignore`` from v1.9 (Flux 2.9) on; Flux 2.7's
    CRD lacks it, so the API server would prune it: at the default floor no rule, a warning."""
    assert 'FluxOptions(min_version="2.7")' in EXAMPLE_ON_2_7
    built = build(tmp_path_factory, "flux27", EXAMPLE_ON_2_7)
    for _, ks in placed_kustomizations(built).items():
        assert "ignore" not in ks["spec"]
    warned = [w.message for w in emitters.warnings(built.plan) if "spec.ignore needs" in w.message]
    assert warned == [
        "app 'order-service': ignore_differences cannot be honoured by Flux 2.7 "
        "(Kustomization spec.ignore needs Flux >= 2.9; set "
        "FluxOptions(min_version='2.9') once every cluster runs it), so Flux "
        "reverts those fields every interval"
    ]


def test_ignore_differences_become_ignore_rules_from_flux_2_9(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The example fleet needs Flux 2.9 (FluxOptions(min_version="2.9"))."""
    built = build(tmp_path_factory, "flux29", (ROOT / "fleet.py").read_text())
    for (app, _), ks in placed_kustomizations(built).items():
        if app == "order-service":
            rule = ks["spec"]["ignore"][0]
            assert rule["paths"] == ["/spec/replicas"]
            assert rule["target"]["group"] == "apps" and rule["target"]["kind"] == "Deployment"
            on_2_9 = crd.Checker(crd.shipped({"flux": (2, 9)}))
            assert on_2_9.errors(ks) == []
            assert errors(ks) == [
                "spec: Additional properties are not allowed ('ignore' was "
                "unexpected) (on Flux 2.7)"
            ]
        else:
            assert "ignore" not in ks["spec"]
    assert not [w for w in emitters.warnings(built.plan) if "spec.ignore needs" in w.message]


def test_namespaces_of_the_apps_exist_where_they_are_applied(built: Built) -> None:
    """Per cluster, the cluster directory creates them; on a spoke, its namespaces directory."""
    apps = {app.name: app for app in built.plan.fleet.apps}
    hub = built.plan.fleet.flux.hub
    for placement in built.plan.on("flux").placements:
        local = hub is None or placement.cluster == hub
        where = (
            f"flux/clusters/{placement.cluster if hub is None else hub}/namespaces.yaml"
            if local
            else f"flux/spokes/{placement.cluster}/namespaces.yaml"
        )
        names = {d["metadata"]["name"] for d in load_all((built.out / where).read_text())}
        namespace = apps[placement.app].namespace
        assert namespace is None or namespace in names, (placement.app, placement.cluster)
    for _, doc in built.docs("flux"):
        if doc["kind"] == "Namespace":  # removing an app never deletes its namespace
            assert doc["metadata"]["annotations"] == {
                "kustomize.toolkit.fluxcd.io/prune": "disabled"
            }


def test_hub_waves_wait_for_the_previous_wave_of_the_same_app(hub: Built) -> None:
    """Wave n of an app waits for its gate, which waits for the app's wave n-1."""
    found = placed_kustomizations(hub)
    gates = {
        d["metadata"]["name"]: d
        for d in load_all((hub.out / "flux/clusters/mgmt/rollouts.yaml").read_text())
    }
    waves = hub.plan.waves["prod"]
    assert [set(w) for w in waves] == [{"prod-eu"}, {"prod-ap", "prod-us"}, {"prod-dr"}]
    for app in ("platform-config", "order-service"):
        for cluster in waves[0]:
            assert all("namespace" not in d for d in found[(app, cluster)]["spec"]["dependsOn"])
        for number, (previous, current) in enumerate(pairwise(waves), 2):
            gate = f"{app}.prod.wave-{number}"
            assert {(d["namespace"], d["name"]) for d in gates[gate]["spec"]["dependsOn"]} == {
                (c, app) for c in previous
            }
            for cluster in current:
                assert {"name": gate, "namespace": FLUX_NAMESPACE} in found[(app, cluster)]["spec"][
                    "dependsOn"
                ]
    assert len(gates) == 4


def test_hub_gates_skip_an_empty_catch_all_wave(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Without prod-dr the catch-all step has no cluster: no gate waits for or on wave 3."""
    text = HUB_FLEET.replace(
        'Cluster(name="prod-dr", env="prod", server="https://prod-dr.example.com"),', ""
    )
    built = build(tmp_path_factory, "hub-empty-wave", text)
    assert built.plan.waves["prod"][2] == ()
    gates = load_all((built.out / "flux/clusters/mgmt/rollouts.yaml").read_text())
    assert sorted(g["metadata"]["name"] for g in gates) == [
        "order-service.prod.wave-2",
        "platform-config.prod.wave-2",
    ]
    for gate in gates:
        assert errors(gate) == [] and cel_errors(gate) == [], gate["metadata"]["name"]


def test_hub_reaches_each_spoke_with_its_credentials(hub: Built) -> None:
    found = placed_kustomizations(hub)
    assert "kubeConfig" not in found[("platform-config", "mgmt")]["spec"]
    assert found[("platform-config", "prod-us")]["spec"]["kubeConfig"] == {
        "secretRef": {"name": "kubeconfig", "key": "value"}
    }
    assert found[("platform-config", "prod-eu")]["spec"]["kubeConfig"] == {
        "configMapRef": {"name": "kubeconfig"}
    }
    objects = {
        (d["kind"], d["metadata"]["namespace"]): d
        for _, d in hub.docs("flux/clusters/mgmt/spokes")
        if d["kind"] in ("ExternalSecret", "ConfigMap", "ServiceAccount")
    }
    remote = objects[("ExternalSecret", "prod-us")]["spec"]["data"][0]
    assert remote == {
        "secretKey": "value",
        "remoteRef": {"key": "clusters/prod-us", "property": "kubeconfig"},
    }
    assert objects[("ConfigMap", "prod-eu")]["data"] == {
        "address": "https://0123ABCD.gr7.eu-west-1.eks.amazonaws.com",
        "cluster": "arn:aws:eks:eu-west-1:111122223333:cluster/prod-eu",
        "provider": "aws",
        "serviceAccountName": "flux-identity",
    }
    role = objects[("ServiceAccount", "prod-eu")]["metadata"]["annotations"]
    assert role == {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/flux-deployer"}


SHARED_FLEET = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, FluxOptions, GitSource,
                      IgnoreDifference, Overrides, Project, SyncPolicy)

TENANT = "https://git.example.com/team-a.git"
fleet = Fleet(
    name="shared", repo="https://git.example.com/fleet.git", engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    flux=FluxOptions(min_version="2.9"),
    environments=[Environment(name="dev", sync=SyncPolicy(automated=True, prune=True)),
                  Environment(name="prod", sync=SyncPolicy(automated=False))],
    clusters=[Cluster(name=f"{env}-{i}", env=env, server=f"https://{env}-{i}.example.com")
              for env in ("dev", "prod") for i in range(3)],
    projects=[Project(name="platform", namespaces=["platform"]),
              Project(name="orders", namespaces=["orders"], service_account="orders-deployer"),
              Project(name="team-a", namespaces=["team-a"], source_repos=[TENANT])],
    apps=[
        App(name="platform-config", project="platform", namespace="platform",
            path="apps/platform-config/base", annotations={"owner": "platform"},
            labels={"tier": "base", "notifications.argoproj.io/subscribe.x": "y"}),
        App(name="order-service", project="orders", namespace="orders",
            path="apps/order-service/base", depends_on=["platform-config"],
            ignore_differences=[IgnoreDifference(group="apps", kind="Deployment",
                                                 json_pointers=["/spec/replicas"])],
            per_env={"prod": Overrides(sync=SyncPolicy(timeout="5m"))},
            per_cluster={"dev-1": Overrides(sync=SyncPolicy(prune=False, retry_interval="2m"))}),
        App(name="tenant", project="team-a", namespace=None, path="deploy",
            source=GitSource(url=TENANT, branch="main")),
    ],
)
"""


def test_each_cluster_gets_the_files_it_would_get_alone(tmp_path: Path) -> None:
    """The Kustomizations of placements sharing an app, sync policy and Home shape are copies of
    the first one built (`fleetgen.emit.flux.objects._Kustomizations`): each cluster's files are
    still byte for byte those of a Plan holding only that cluster's placements."""
    loaded = load(make_repo(tmp_path, SHARED_FLEET) / "fleet.py")
    plan = resolve(loaded.fleet, loaded.workspace).on("flux")
    whole = render(flux.emit(plan))
    clusters = sorted({p.cluster for p in plan.placements})
    assert len(clusters) == 6
    for cluster in clusters:
        alone = replace(plan, placements=tuple(p for p in plan.placements if p.cluster == cluster))
        assert render(flux.emit(alone)) == {
            path: data
            for path, data in whole.items()
            if path.startswith(f"flux/clusters/{cluster}/")
        }


UNUSED_CREDENTIALS = """
from fleetgen import (App, AwsAuth, Cluster, Environment, ExternalSecretRef, Fleet, FluxOptions,
                      Project)

fleet = Fleet(
    name="f", repo="https://git.example.com/f.git", engines=["argocd", "flux"],
    flux=FluxOptions({flux}),
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev", engine="flux"),
                  Environment(name="prod", engine="argocd")],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com",
                credentials={credentials}),
        Cluster(name="dev-2", env="dev", server="https://dev-2.example.com"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example.com",
                credentials=ExternalSecretRef(store="vault", key="prod-1")),
    ],
    projects=[Project(name="platform", namespaces=["platform"])],
    apps=[App(name="platform-config", project="platform", namespace="platform",
              path="apps/platform-config/base")],
)
"""
AWS = 'AwsAuth(cluster_name="dev-1", role_arn="arn:aws:iam::111122223333:role/x")'
ESO = 'ExternalSecretRef(store="vault", key="dev-1")'


@pytest.mark.parametrize(
    ("flux", "credentials", "unused"),
    [
        ("", AWS, True),  # per cluster: only dev-1's own Flux reconciles it
        ("", ESO, True),
        ('mode="hub", hub="dev-1"', ESO, True),  # the hub's own Flux
        ('mode="hub", hub="dev-2"', ESO, False),  # a spoke: the hub uses them
    ],
)
def test_credentials_no_engine_uses_are_a_warning(
    tmp_path: Path, flux: str, credentials: str, unused: bool
) -> None:
    """Where no engine connects from outside, a cluster's own credentials are never read; a
    fleet's default_credentials (dev-2) are a default, and Argo CD reads prod-1's."""
    repo = make_repo(tmp_path, UNUSED_CREDENTIALS.format(flux=flux, credentials=credentials))
    found = [w for w in api.compile_spec(repo / "fleet.py").warnings if "not used" in w.message]
    expected = (
        "cluster 'dev-1': its credentials are not used: only its own Flux reconciles it, "
        "pulling from Git, and no engine connects to it from outside; remove credentials="
    )
    assert [(w.message, w.line) for w in found] == ([(expected, 12)] if unused else [])  # Cluster(
