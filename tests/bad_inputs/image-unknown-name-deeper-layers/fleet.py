"""Image names with a typo in a per_env and a per_cluster layer: each is reported at its line."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
              Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="api", project="shop", namespace="shop", path="apps/shop/base",
              images=[Image(name="registry.example.com/shop/migrate", tag="2.1")],
              per_env={"prod": Overrides(images=[
                  Image(name="registry.example.com/shop/apii", tag="1.5")])},  # <- per_env
              per_cluster={"prod-east": Overrides(images=[
                  Image(name="registry.example.com/shop/api-server", tag="1.6")])})],  # <- per_cluster
)
