"""A namespace from a ClusterVar (Overrides(namespace=ClusterVar(...))) is checked per cluster
once filled in: a value the app's project does not allow, and one that is no namespace name."""

from fleetgen import App, Cluster, ClusterVar, Environment, ExternalSecretRef, Fleet, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      vars={"ns": "shop-east", "team": "Shop_1"}),
              Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443",
                      vars={"ns": "shop", "team": "shop"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              per_env={"dev": Overrides(namespace=ClusterVar("ns"))}),  # <- here: dev-1's
          App(name="api", project="shop", namespace="shop", path="apps/web/base",
              per_cluster={"dev-1": Overrides(namespace=ClusterVar("team"))})],  # <- here
)
