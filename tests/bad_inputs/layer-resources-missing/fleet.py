"""Overrides(resources=..., components=...) naming paths that are not there."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            per_env={"dev": Overrides(resources=["apps/web/extra"])},  # <- missing resource
            per_cluster={"dev-1": Overrides(components=["components/ha"])}),  # <- missing component
    ],
)
