"""What the Flux emitter refuses (spec errors at the user's line), what it warns about, and the
sync and deletion settings it translates."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from fleetgen.emit import flux
from fleetgen.errors import SpecError
from fleetgen.manifests.yamlio import load_all
from fleetgen.pipeline import api
from tests.crd_schemas import errors

ROOT = Path(__file__).resolve().parents[2]

FLEET = """
from fleetgen import (App, AwsAuth, Cluster, Environment, ExecAuth, ExternalSecretRef, Fleet,
                      FluxOptions, GitSource, IgnoreDifference, Project, Rollout, Selector, Step,
                      SyncPolicy)

fleet = Fleet(
    name="small", repo="https://git.example.com/small.git", engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev", sync=SyncPolicy(automated=True, prune=True)),
                  Environment(name="qa", sync=SyncPolicy(automated=False)),
                  Environment(name="prod", sync=SyncPolicy(automated=True),
                              rollout=Rollout(steps=[Step(match_labels={{"ring": "0"}}), Step()]))],
    clusters=[
        Cluster(name="a", env="dev", server="https://a.example.com"),
        Cluster(name="b", env="dev", server="https://b.example.com"),
        Cluster(name="q", env="qa", server="https://q.example.com"),
        Cluster(name="p1", env="prod", server="https://p1.example.com", labels={{"ring": "0"}}),
        Cluster(name="p2", env="prod", server="https://p2.example.com"),
        {cluster}
    ],
    projects=[Project(name="p", namespaces=["platform", "orders"]{project_fields})],
    apps=[
        App(name="platform-config", project="p", namespace="platform",
            path="apps/platform-config/base", targets=Selector(clusters={platform_on!r}),
            ignore_differences=[IgnoreDifference(kind="ConfigMap", jq_path_expressions=[".data"])]),
        App(name="{orders}", project="p", namespace="orders",
            path="apps/order-service/base", depends_on=["platform-config"]),
    ],
    {fleet_fields}
)
"""


def compile_fleet(
    tmp_path: Path,
    *,
    cluster: str = "",
    platform_on: list[str] | None = None,
    orders: str = "order-service",
    fleet_fields: str = "",
    project_fields: str = "",
) -> api.Compiled:
    for app in ("platform-config", "order-service"):
        shutil.copytree(ROOT / "apps" / app, tmp_path / "apps" / app, dirs_exist_ok=True)
    (tmp_path / "fleet.py").write_text(
        FLEET.format(
            cluster=cluster,
            platform_on=platform_on,
            orders=orders,
            fleet_fields=fleet_fields,
            project_fields=project_fields,
        )
    )
    return api.compile_spec(tmp_path / "fleet.py")


def problems(tmp_path: Path, **spec: Any) -> list[tuple[int, str]]:
    """(line, message) of each spec error, the line of the fleet.py call it is about."""
    with pytest.raises(SpecError) as raised:
        compile_fleet(tmp_path, **spec)
    return [(p.line, p.message) for p in raised.value.problems]


def line_of(tmp_path: Path, text: str) -> int:
    lines = (tmp_path / "fleet.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_depends_on_an_app_missing_from_the_cluster_is_an_error_at_the_app(tmp_path: Path) -> None:
    found = problems(tmp_path, platform_on=["a", "q", "p1"])
    assert found == [
        (
            line_of(tmp_path, 'App(name="order-service"'),
            "app 'order-service' depends_on 'platform-config', which is not placed on "
            "cluster(s) b, p2: Flux dependsOn only reaches Kustomizations of the same "
            "cluster; place it there too or drop the dependency",
        )
    ]


@pytest.mark.parametrize(
    ("spec", "at", "says"),
    [
        ({"orders": "flux-system"}, 'App(name="flux-system"', "rename the app"),
        (
            {"cluster": 'Cluster(name="flux-system", env="dev", server="https://f.example.com"),'},
            'Cluster(name="flux-system"',
            "rename the cluster",
        ),
        (
            {
                "fleet_fields": 'flux=FluxOptions(mode="hub", hub="a"),',
                "cluster": 'Cluster(name="x", env="dev", server="https://x.example.com", '
                'credentials=ExecAuth(args=["gcp"])),',
            },
            'Cluster(name="x"',
            "ExecAuth credentials cannot reach it from a Flux hub",
        ),
        (
            {
                "fleet_fields": 'flux=FluxOptions(mode="hub", hub="a"),',
                "cluster": 'Cluster(name="x", env="dev", server="https://x.example.com", '
                'credentials=AwsAuth(cluster_name="x", '
                'role_arn="arn:aws:iam::111122223333:role/r")),',
            },
            'Cluster(name="x"',
            "set server to the EKS endpoint",
        ),
        (
            {"fleet_fields": 'flux=FluxOptions(mode="per-cluster", source_per_namespace=True),'},
            "flux=FluxOptions(",
            "is for hub mode",
        ),
    ],
)
def test_what_flux_cannot_express_is_an_error_at_its_line(
    tmp_path: Path, spec: dict[str, str], at: str, says: str
) -> None:
    found = problems(tmp_path, **spec)
    assert len(found) == 1 and says in found[0][1], found
    assert found[0][0] == line_of(tmp_path, at)


def test_warnings_name_what_flux_does_not_honour(tmp_path: Path) -> None:
    per_cluster = [w.message for w in flux.warnings(compile_fleet(tmp_path).plan)]
    assert [w.split(":")[0] for w in per_cluster] == [
        "environment 'prod'",
        "app 'platform-config'",
        "environment 'qa'",
    ]
    assert "cannot order clusters" in per_cluster[0]
    assert "jq_path_expressions cannot be mirrored" in per_cluster[1]
    assert "its Flux placements are suspended: nothing deploys until" in per_cluster[2]
    hub = flux.warnings(
        compile_fleet(tmp_path, fleet_fields='flux=FluxOptions(mode="hub", hub="a"),').plan
    )
    assert not any("cannot order clusters" in w.message for w in hub)


def kustomizations(compiled: api.Compiled) -> dict[str, dict[str, Any]]:
    """cluster/app -> Kustomization, per-cluster layout."""
    found = {}
    for path, data in compiled.rendered.items():
        if path.endswith("/kustomizations.yaml"):
            for doc in load_all(data.decode()):
                found[f"{path.split('/')[2]}/{doc['metadata']['name']}"] = doc
    return found


def test_manual_environments_are_suspended_and_nothing_cascades_by_default(tmp_path: Path) -> None:
    found = kustomizations(compile_fleet(tmp_path))
    assert {key for key, ks in found.items() if ks["spec"].get("suspend")} == {
        "q/platform-config",
        "q/order-service",
    }
    assert {ks["spec"]["deletionPolicy"] for ks in found.values()} == {"Orphan"}
    assert found["a/order-service"]["spec"]["prune"] is True
    assert found["p1/order-service"]["spec"]["prune"] is False


def test_cascade_delete_deletes_and_prunes_namespaces(tmp_path: Path) -> None:
    compiled = compile_fleet(tmp_path, fleet_fields="cascade_delete=True,")
    assert {ks["spec"]["deletionPolicy"] for ks in kustomizations(compiled).values()} == {"Delete"}
    namespaces = load_all(compiled.rendered["flux/clusters/a/namespaces.yaml"].decode())
    assert [ns["metadata"] for ns in namespaces] == [{"name": "orders"}, {"name": "platform"}]


def test_another_source_repository_gets_its_own_git_repository_per_cluster(tmp_path: Path) -> None:
    compiled = compile_fleet(
        tmp_path,
        fleet_fields="flux=FluxOptions(source=GitSource(url="
        '"https://git.example.com/deploy.git")),',
    )
    for cluster in ("a", "b", "q", "p1", "p2"):
        [source] = load_all(compiled.rendered[f"flux/clusters/{cluster}/source.yaml"].decode())
        assert errors(source) == []
        assert source["metadata"] == {"name": "small", "namespace": "flux-system"}
        assert source["spec"]["url"] == "https://git.example.com/deploy.git"
        assert source["spec"]["ref"] == {"branch": "main"}
    refs = {str(ks["spec"]["sourceRef"]) for ks in kustomizations(compiled).values()}
    assert refs == {str({"kind": "GitRepository", "name": "small", "namespace": "flux-system"})}


def test_a_project_service_account_is_impersonated_by_its_kustomizations(tmp_path: Path) -> None:
    plain = kustomizations(compile_fleet(tmp_path))
    assert all("serviceAccountName" not in k["spec"] for k in plain.values())
    tenant = kustomizations(compile_fleet(tmp_path, project_fields=', service_account="tenant"'))
    assert tenant and {k["spec"]["serviceAccountName"] for k in tenant.values()} == {"tenant"}
    assert all(errors(k) == [] for k in tenant.values())
