"""Flux hub mode under the multi-tenancy lockdown (--no-cross-namespace-refs): each spoke
namespace has its own GitRepository."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      FluxOptions,
                      GitSource,
                      Image,
                      Project,
                      Rollout,
                      Step,
                      SyncPolicy,
)

fleet = Fleet(
    name="fleet",
    repo="https://git.example.com/hub.git",
    engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    flux=FluxOptions(mode="hub", hub="mgmt", source_per_namespace=True,
                     source=GitSource(url="https://git.example.com/hub.git",
                                      secret_ref="fleet-git")),
    environments=[
        Environment(name="mgmt", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()])),
    ],
    clusters=[
        Cluster(name="mgmt", env="mgmt", server="https://mgmt.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"ring": "canary"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    # A tenant: the hub applies its apps on each spoke as ServiceAccount deployer of the spoke's
    # namespace on the hub.
    projects=[Project(name="api", namespaces=["api"], service_account="deployer")],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            targets={"envs": ["prod"]},
            images=[Image(name="api", new_name="registry.example.com/api", tag="2.0.0")],
            replicas={"api": 3}, config={"api-config": {"MODE": "hub"}}),
        # From a tenant's repository: its own GitRepository in each spoke namespace.
        App(name="tenant", project="api", namespace=None, targets={"envs": ["prod"]},
            source=GitSource(url="https://git.example.com/tenant.git", revision="v2.1.0"),
            path="deploy"),
    ],
)
