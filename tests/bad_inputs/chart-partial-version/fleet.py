"""A partial chart version: Argo CD would ask for the tag "1.2", Flux would follow 1.2.x."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, HelmChart, Overrides, Project

FLEET = dict(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
              Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
)
CHART = dict(repo="https://charts.example.com", name="web")

fleet = Fleet(**FLEET, apps=[
    App(name="web", project="shop", namespace="shop",
        chart=HelmChart(**CHART, version="1.2")),  # <- here
])
