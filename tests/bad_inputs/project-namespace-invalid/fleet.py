"""Project namespaces that are neither namespace names nor globs over namespace characters."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop", "Shop_2", "team_*"])],  # <- here
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
