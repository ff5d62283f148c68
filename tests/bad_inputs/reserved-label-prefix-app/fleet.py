"""fleetgen.io/ labels on an app and in a per_env layer, which fleetgen sets itself."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",  # <- here
              labels={"fleetgen.io/wave": "1"},
              per_env={"dev": Overrides(common_labels={"fleetgen.io/app": "web"})})],  # <- here
)
