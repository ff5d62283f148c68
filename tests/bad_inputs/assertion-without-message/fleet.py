"""A bare assert fails: the message must not end in a dangling ': '."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

CLUSTERS = [Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")]
assert len(CLUSTERS) == 2  # <- here

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=CLUSTERS,
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
