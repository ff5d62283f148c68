"""A Helm release name over 53 characters: Helm refuses it, and Flux's HelmRelease CRD too."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, HelmChart, Project

FLEET = dict(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
              Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
)
LONG = "web-frontend-of-the-shop-with-a-very-long-release-name"  # 54 characters
CHART = dict(repo="https://charts.example.com", name="web", version="1.2.3")

fleet = Fleet(**FLEET, apps=[
    App(name="web", project="shop", namespace="shop",
        chart=HelmChart(**CHART, release_name=LONG)),  # <- here
])
