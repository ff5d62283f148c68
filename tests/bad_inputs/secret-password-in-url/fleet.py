"""Passwords in URLs: in the repo URL and in a config value."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(  # <- fleet
    name="shop",
    repo="https://deploy:s3cr3t-pass@github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",  # <- app
              config={"web-config": {"DATABASE_URL": "postgres://shop:hunter2@db:5432/shop"}})],
)
