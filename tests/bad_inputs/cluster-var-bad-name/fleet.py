"""A cluster var named with a character an annotation key cannot hold."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",  # <- here
                      vars={"ingress/host": "dev-1.example.com"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
