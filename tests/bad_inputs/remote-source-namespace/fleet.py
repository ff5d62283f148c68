"""A namespace on an app whose manifests live in another repository: no overlay can rewrite it."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, GitSource, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop",  # <- app
              source=GitSource(url="https://github.com/acme/web.git"), path="deploy")],
)
