"""An Overrides(path=...) that leaves the app's source."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, GitSource, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace=None,
              source=GitSource(url="https://github.com/acme/web.git"), path="deploy",
              per_env={"dev": Overrides(path="deploy/../../other")})],  # <- here
)
