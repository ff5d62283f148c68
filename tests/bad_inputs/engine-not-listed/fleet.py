"""Engines the fleet does not list (Fleet.engines defaults to ["argocd"])."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev", engine="flux")],  # <- here
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",  # <- here
                engine="flux"),
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",  # <- here
              engine="flux")],
)
