"""Overrides(name_prefix=...) on apps without an overlay: a chart app, an app from another
source and a plain directory."""

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
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="cache", project="shop", namespace="shop",
            chart=HelmChart(repo="https://charts.example.com", name="redis", version="1.2.3"),
            per_env={"dev": Overrides(name_prefix="dev-")}),  # <- chart
        App(name="tenant", project="shop", namespace=None,
            source=GitSource(url="https://github.com/acme/tenant.git", revision="main"),
            per_cluster={"dev-1": Overrides(name_prefix="one-")}),  # <- source
        App(name="raw", project="shop", namespace="shop", path="apps/raw",
            per_env={"dev": Overrides(name_prefix="dev-")}),  # <- plain directory
    ],
)
