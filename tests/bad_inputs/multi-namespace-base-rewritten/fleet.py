"""A base with two Namespace objects under a namespace rewrite (kustomize: ID conflict)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="infra", namespaces=["infra", "monitoring", "logging"])],
    apps=[App(name="infra", project="infra", namespace="infra",  # <- here
              path="apps/infra/base")],
)
