"""An app with default targets, but no cluster is in a defined environment."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="prod")],
    clusters=[
        Cluster(name="prod-east", env="production", server="https://10.0.1.100:6443"),  # <- c
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],  # <- app
)
