"""A tenant project (service_account) whose namespaces are patterns, with an app from another
source: its account must be bound in each namespace the manifests may use, which needs names."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, GitSource, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop-*"], service_account="deployer")],
    apps=[App(name="web", project="shop", namespace=None,  # <- app
              source=GitSource(url="https://github.com/acme/web.git"), path="deploy")],
)
