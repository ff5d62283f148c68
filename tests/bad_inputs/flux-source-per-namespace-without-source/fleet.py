"""A source per spoke namespace with nothing to copy: bootstrap's GitRepository and its Secret
live in flux-system only."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, FluxOptions, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    flux=FluxOptions(mode="hub", hub="mgmt", source_per_namespace=True),  # <- here
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="mgmt", env="dev", server="https://mgmt.example:6443"),
              Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
