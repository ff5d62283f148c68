"""Overrides(namespace=...) where it cannot go: on a chart app, on an App(namespace=None), on a
tenant's app, on an app from another source, and ones its project does not allow (at the layer
that sets each)."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    GitSource,
    HelmChart,
    Overrides,
    Project,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      labels={"tier": "a"})],
    projects=[
        Project(name="shop", namespaces=["shop", "shop-dev"]),
        Project(name="team", namespaces=["team", "team-dev"], service_account="deployer"),
    ],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            per_env={"dev": Overrides(namespace="elsewhere")},  # <- not the project's
            per_label={"tier=a": Overrides(namespace="elsewhere-a")},  # <- not the project's
            per_cluster={"dev-1": Overrides(namespace="shop-dev")}),  # allowed
        App(name="cache", project="shop", namespace="shop",
            chart=HelmChart(repo="https://charts.example.com", name="redis", version="1.2.3"),
            per_env={"dev": Overrides(namespace="shop-dev")}),  # allowed: its release goes there
        App(name="mixed", project="shop", namespace=None, path="apps/worker/base",
            per_env={"dev": Overrides(namespace="shop-dev")}),  # <- App(namespace=None)
        App(name="tenant-web", project="team", namespace="team", path="apps/web/base",
            per_env={"dev": Overrides(namespace="team-dev")}),  # <- tenant
        App(name="tenant", project="shop", namespace=None,
            source=GitSource(url="https://github.com/acme/tenant.git", revision="main"),
            per_env={"dev": Overrides(namespace="shop-dev")}),  # <- source
    ],
)
