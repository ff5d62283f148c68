"""Tenant onboarding: a project's apps are applied as its ServiceAccount, which may act only in
the project's namespaces (ClusterRole admin bound there), on both engines."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      GitSource,
                      Project,
                      SyncPolicy,
)

fleet = Fleet(
    name="tenants",
    repo="https://git.example.com/fleet.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
    ],
    projects=[
        Project(name="platform", namespaces=["api"]),
        Project(name="team-a", namespaces=["team-a", "team-a-jobs"], service_account="deployer"),
    ],
    apps=[
        App(name="api", project="platform", namespace="api", path="apps/api/base"),
        App(name="shop", project="team-a", namespace="team-a", path="apps/api/base"),
        App(name="shop-jobs", project="team-a", namespace=None,
            source=GitSource(url="https://git.example.com/team-a/jobs.git"), path="deploy"),
    ],
)
