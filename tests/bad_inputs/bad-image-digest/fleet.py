"""A truncated image digest."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              images=[Image(name="web", digest="sha256:4f53cda18c2b")])],  # <- here
)
