"""A cluster in an environment that is not defined."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
        Cluster(name="prod-east", env="production", server="https://10.0.1.100:6443"),  # <- here
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
