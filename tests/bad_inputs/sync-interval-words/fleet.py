"""A Flux interval in words, and one in a unit Flux does not take."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project, SyncPolicy

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev",
                              sync=SyncPolicy(interval="5 minutes", timeout="500us"))],  # <- here
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
