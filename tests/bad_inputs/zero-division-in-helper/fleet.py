"""An exception raised in a helper of the user's file: reported where it is raised."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project


def per_cluster(total: int, clusters: int) -> int:
    return total // clusters  # <- here


fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              replicas={"web": per_cluster(6, 0)})],
)
