"""An Argo CD floor below 3.3.7, whose RollingSync never re-gates a values-only change."""

from fleetgen import App, ArgoOptions, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    argocd=ArgoOptions(min_version="3.3.6"),  # <- here
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
