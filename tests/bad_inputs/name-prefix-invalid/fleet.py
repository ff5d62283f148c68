"""Overrides(name_prefix=...) that no object name may start with."""

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
            per_env={"dev": Overrides(name_prefix="Dev_")}),  # <- not a name's start
    ],
)
