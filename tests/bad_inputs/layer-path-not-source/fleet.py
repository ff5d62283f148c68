"""Overrides(path=...) on a kustomize app and on a chart app: only an app from another source
reads a directory per layer."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, HelmChart, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            per_env={"dev": Overrides(path="apps/web/dev")}),  # <- kustomize
        App(name="cache", project="shop", namespace="shop",
            chart=HelmChart(repo="https://charts.example.com", name="redis", version="1.2.3"),
            per_cluster={"dev-1": Overrides(path="charts/redis")}),  # <- chart
    ],
)
