"""resolve: placement, layering, rollout waves and cross-reference checks, on in-memory specs."""

from __future__ import annotations

from typing import Any

import pytest

from fleetgen import (
    App,
    AppSecret,
    Cluster,
    Environment,
    Expr,
    ExternalSecretRef,
    Fleet,
    Image,
    Overrides,
    Project,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
)
from fleetgen.errors import SpecError
from fleetgen.inputs.bases import Base
from fleetgen.inputs.workspace import Workspace
from fleetgen.resolver import resolve
from fleetgen.resolver.plan import Plan

BASE = Base(
    path="apps/web/base",
    kustomization="kustomization.yaml",
    configmaps=frozenset({"web-config"}),
    resources=frozenset({("Deployment", "web"), ("ConfigMap", "web-config")}),
)
WORKSPACE = Workspace({BASE.path: BASE})


def cluster(name: str, env: str, **labels: str) -> Cluster:
    return Cluster(name=name, env=env, server=f"https://{name}.example.com", labels=labels)


def make_fleet(apps: list[App] | None = None, **overrides: Any) -> Fleet:
    spec: dict[str, Any] = {
        "name": "test",
        "repo": "https://git.example.com/fleet.git",
        "default_credentials": ExternalSecretRef(store="vault", key="clusters/{cluster}"),
        "environments": [
            Environment(name="dev", sync=SyncPolicy(automated=True)),
            Environment(name="prod", sync=SyncPolicy(automated=True)),
        ],
        "clusters": [
            cluster("dev-1", "dev", region="eu"),
            cluster("prod-a", "prod", region="eu", ring="canary"),
            cluster("prod-b", "prod", region="us"),
            cluster("prod-c", "prod", region="us", tier="gold"),
        ],
        "projects": [Project(name="web", namespaces=["web", "web-*"])],
        "apps": apps if apps is not None else [web()],
    }
    spec.update(overrides)
    return Fleet(**spec)


def web(**fields: Any) -> App:
    return App(
        **({"name": "web", "project": "web", "namespace": "web", "path": "apps/web/base"} | fields)
    )


def placed(plan: Plan, app: str = "web") -> list[str]:
    return [p.cluster for p in plan.placements if p.app == app]


def problems(fleet: Fleet) -> list[str]:
    with pytest.raises(SpecError) as error:
        resolve(fleet, WORKSPACE)
    return [p.message for p in error.value.problems]


@pytest.mark.parametrize(
    ("selector", "clusters"),
    [
        (Selector(), ["dev-1", "prod-a", "prod-b", "prod-c"]),
        (Selector(envs=["prod"]), ["prod-a", "prod-b", "prod-c"]),
        (Selector(match_labels={"region": "us"}), ["prod-b", "prod-c"]),
        (Selector(envs=["prod"], exclude=["prod-b"]), ["prod-a", "prod-c"]),
        (Selector(clusters=["dev-1", "prod-c"]), ["dev-1", "prod-c"]),
        (
            Selector(match_expressions=[Expr(key="region", operator="NotIn", values=["eu"])]),
            ["prod-b", "prod-c"],
        ),
        (Selector(match_expressions=[Expr(key="tier", operator="Exists")]), ["prod-c"]),
        (
            Selector(
                match_expressions=[
                    Expr(key="tier", operator="DoesNotExist"),
                    Expr(key="region", operator="In", values=["us", "eu"]),
                ]
            ),
            ["dev-1", "prod-a", "prod-b"],
        ),
    ],
)
def test_selector_places_exactly_the_matching_clusters(
    selector: Selector, clusters: list[str]
) -> None:
    assert placed(resolve(make_fleet([web(targets=selector)]), WORKSPACE)) == clusters


def test_layers_apply_in_order_and_record_where_each_value_came_from() -> None:
    app = web(
        images=[Image(name="web", new_name="registry.example.com/web", tag="1")],
        replicas={"web": 2},
        config={"web-config": {"A": "app", "B": "app"}},
        per_env={
            "prod": Overrides(
                images=[Image(name="web", tag="2")],
                replicas={"web": 3},
                config={"web-config": {"B": "prod"}},
                sync=SyncPolicy(prune=True),
            )
        },
        per_cluster={
            "prod-b": Overrides(
                images=[Image(name="web", digest="sha256:" + "0" * 64)],
                config={"web-config": {"A": "prod-b"}},
            )
        },
    )
    plan = resolve(make_fleet([app], common_labels={"team": "web"}), WORKSPACE)
    by_cluster = {p.cluster: p for p in plan.placements}
    dev, prod_a, prod_b = by_cluster["dev-1"], by_cluster["prod-a"], by_cluster["prod-b"]
    assert dev.settings.images["web"].tag == "1" and dev.settings.replicas == {"web": 2}
    assert prod_a.settings.images["web"].new_name == "registry.example.com/web"
    assert prod_a.settings.images["web"].tag == "2" and prod_a.settings.replicas == {"web": 3}
    assert prod_a.settings.config == {"web-config": {"A": "app", "B": "prod"}}
    assert prod_b.settings.config == {"web-config": {"A": "prod-b", "B": "prod"}}
    image_b = prod_b.settings.images["web"]
    assert (image_b.new_name, image_b.tag, image_b.digest) == (
        "registry.example.com/web",
        None,
        "sha256:" + "0" * 64,
    )
    assert prod_a.settings.sync.automated and prod_a.settings.sync.prune
    assert not dev.settings.sync.prune
    assert prod_b.settings.provenance == {
        "label/team": "fleet",
        "sync/automated": "env",
        "image/web/name": "app",
        "image/web/version": "per_cluster",
        "replicas/web": "per_env",
        "config/web-config/A": "per_cluster",
        "config/web-config/B": "per_env",
        "sync/prune": "per_env",
    }
    assert prod_a.overlay == "overlays/web/prod"
    assert prod_b.overlay == "overlays/web/clusters/prod-b"
    assert [o.path for o in plan.cluster_overlays] == ["overlays/web/clusters/prod-b"]


def test_a_cluster_overlay_only_where_a_layer_or_secret_of_the_cluster_reaches() -> None:
    """Apps without per_label, per_cluster or {cluster} secrets take their env overlays on every
    cluster, next to apps with them (resolve skips the cluster layers of the former)."""
    secret = AppSecret(name="db", store="vault", data={"PASSWORD": "db/{cluster}#pw"})
    apps = [
        web(name="api"),
        web(per_label={"region=us": Overrides(replicas={"web": 4})}),
        web(name="worker", secrets=[secret]),
    ]
    plan = resolve(make_fleet(apps), WORKSPACE)
    overlays = {(p.app, p.cluster): p.overlay for p in plan.placements}
    for cluster in ("dev-1", "prod-a", "prod-b", "prod-c"):
        env = cluster.split("-")[0]
        assert overlays["api", cluster] == f"overlays/api/{env}"
        assert overlays["worker", cluster] == f"overlays/worker/clusters/{cluster}"
    assert [overlays["web", c] for c in ("dev-1", "prod-a", "prod-b", "prod-c")] == [
        "overlays/web/dev",
        "overlays/web/prod",
        "overlays/web/clusters/prod-b",
        "overlays/web/clusters/prod-c",
    ]
    assert [(o.app, o.cluster) for o in plan.cluster_overlays] == [
        ("web", "prod-b"),
        ("web", "prod-c"),
        ("worker", "dev-1"),
        ("worker", "prod-a"),
        ("worker", "prod-b"),
        ("worker", "prod-c"),
    ]
    by_overlay = {p.overlay: p.settings for p in plan.placements if p.app == "web"}
    assert by_overlay["overlays/web/clusters/prod-b"].provenance["replicas/web"] == (
        "per_label[region=us]"
    )
    assert by_overlay["overlays/web/prod"].replicas == {}


def test_rollout_waves_assign_each_cluster_to_its_first_matching_step() -> None:
    prod = Environment(
        name="prod",
        sync=SyncPolicy(automated=True),
        rollout=Rollout(
            steps=[
                Step(match_labels={"ring": "canary"}),
                Step(match_labels={"region": "us"}),
                Step(),
            ]
        ),
    )
    fleet = make_fleet(
        environments=[Environment(name="dev"), prod],
        clusters=[*make_fleet().clusters, cluster("prod-d", "prod", region="ap")],
    )
    plan = resolve(fleet, WORKSPACE)
    assert plan.waves == {"prod": (("prod-a",), ("prod-b", "prod-c"), ("prod-d",))}
    assert {p.cluster: p.wave for p in plan.placements} == {
        "dev-1": None,
        "prod-a": 1,
        "prod-b": 2,
        "prod-c": 2,
        "prod-d": 3,
    }


def test_an_empty_catch_all_step_is_fine() -> None:
    """The first prod cluster, a canary, joins an environment whose rollout ends in Step()."""
    prod = Environment(
        name="prod",
        sync=SyncPolicy(automated=True),
        rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()]),
    )
    fleet = make_fleet(
        environments=[Environment(name="dev"), prod],
        clusters=[cluster("dev-1", "dev"), cluster("prod-a", "prod", ring="canary")],
    )
    plan = resolve(fleet, WORKSPACE)
    assert plan.waves == {"prod": (("prod-a",), ())}
    assert {p.cluster: p.wave for p in plan.placements} == {"dev-1": None, "prod-a": 1}


def test_a_labelled_step_that_matches_nothing_is_an_error() -> None:
    """A typo in a step's labels would skip the canary: still refused."""
    prod = Environment(
        name="prod",
        sync=SyncPolicy(automated=True),
        rollout=Rollout(steps=[Step(match_labels={"ring": "canery"}), Step()]),
    )
    fleet = make_fleet(
        environments=[Environment(name="dev"), prod],
        clusters=[cluster("dev-1", "dev"), cluster("prod-a", "prod", ring="canary")],
    )
    assert problems(fleet) == [
        "environment 'prod': rollout step 1 matches no cluster that an earlier step has not taken"
    ]


def test_images_must_name_an_image_of_the_base() -> None:
    base = Base(
        path=BASE.path,
        kustomization="kustomization.yaml",
        images=frozenset({"registry.example.com/web:1.0", "envoy"}),
    )
    app = web(
        images=[Image(name="registry.example.com/web", tag="2"), Image(name="web", tag="2")],
        per_cluster={"prod-b": Overrides(images=[Image(name="envoy", tag="v2")])},
    )
    with pytest.raises(SpecError) as error:
        resolve(make_fleet([app]), Workspace({base.path: base}))
    assert [p.message for p in error.value.problems] == [
        "app 'web': Image(name='web') matches no image of the base, so it would change nothing "
        "(images of the base: envoy, registry.example.com/web)"
    ]


def test_every_cross_reference_problem_is_reported_at_once() -> None:
    apps = [
        web(project="nope", per_env={"staging": Overrides(replicas={"web": 1})}),
        web(
            name="api",
            namespace="other",
            depends_on=["ghost", "api"],
            targets=Selector(envs=["qa"], exclude=["prod-z"]),
        ),
    ]
    found = problems(make_fleet(apps))
    assert sorted(found) == sorted(
        [
            "app 'web': project 'nope' is not defined (projects: web)",
            "app 'web': per_env key 'staging' is not an environment the app runs in (dev, prod)",
            "app 'api': targets.envs names unknown environment 'qa'",
            "app 'api': targets.exclude names unknown cluster 'prod-z'",
            "app 'api': its targets select no cluster",
            "app 'api': namespace 'other' is not allowed by project 'web' "
            "(add it to Project(namespaces=[...]))",
            "app 'api': depends_on names 'ghost', which is not another app of the fleet",
            "app 'api': depends_on names itself, which is not another app of the fleet",
        ]
    )


def test_dependency_cycle_is_named() -> None:
    apps = [
        web(depends_on=["api"]),
        web(name="api", depends_on=["db"]),
        web(name="db", depends_on=["web"]),
    ]
    assert problems(make_fleet(apps)) == ["depends_on cycle: api -> db -> web -> api"]


def test_replicas_must_name_a_workload_of_the_base() -> None:
    assert problems(make_fleet([web(replicas={"webb": 2})])) == [
        "app 'web': replicas for 'webb', but the base has no workload of that name (web)"
    ]


def test_problem_lines_point_at_the_constructor_call() -> None:
    app = App(name="web", project="nope", namespace="web", path="apps/web/base")
    line = test_problem_lines_point_at_the_constructor_call.__code__.co_firstlineno + 1
    with pytest.raises(SpecError) as error:
        resolve(make_fleet([app]), WORKSPACE)
    (problem,) = error.value.problems
    assert (problem.file, problem.line) == (__file__, line)


def test_argo_cd_floor_is_3_3_7_compared_to_the_patch() -> None:
    """argo-cd v3.3.7 (applicationset_controller.go ``updateApplicationSetApplicationStatus``,
    cherry-pick of #26811) is the first 3.3 whose RollingSync sets an Application back to
    Waiting when its generated spec changes; before it only a changed revision did, and
    RollingSync turns auto-sync off, so a values-only change of a Helm-repository chart never
    synced. '3.3' means 3.3.7; anything older is refused."""
    from fleetgen import ArgoOptions
    from fleetgen.model import ARGOCD_FLOOR

    assert ARGOCD_FLOOR == "3.3.7" and ArgoOptions().min_version == "3.3.7"
    assert ArgoOptions(min_version="3.3").min_version == "3.3.7"
    assert ArgoOptions(min_version="3.3.14").min_version == "3.3.14"
    assert ArgoOptions(min_version="3.4").min_version == "3.4"
    for old in ("3.3.6", "3.3.0", "3.2", "2.14.9"):
        with pytest.raises(ValueError, match=r"Argo CD .* is too old: .* needs Argo CD >= 3\.3\.7"):
            ArgoOptions(min_version=old)
