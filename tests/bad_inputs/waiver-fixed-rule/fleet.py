"""A Waiver of a rule that is always an error (two apps rendering one object)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project, Waiver

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              waivers=[Waiver(rule="ownership", reason="shared ConfigMap")])],  # <- here
)
