"""App(namespace=ClusterVar(...)): the app's one namespace cannot be a var (a layer's can)."""

from fleetgen import App, Cluster, ClusterVar, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      vars={"ns": "shop"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace=ClusterVar("ns"),  # <- here
              path="apps/web/base")],
)
