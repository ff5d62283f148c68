"""A signature check on a chart from an https:// Helm repository (Flux verifies OCI charts only)."""

from fleetgen import App, ChartVerify, Cluster, Environment, ExternalSecretRef, Fleet, HelmChart, Project

FLEET = dict(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
              Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
)

fleet = Fleet(**FLEET, apps=[
    App(name="web", project="shop", namespace="shop",
        chart=HelmChart(repo="https://charts.example.com", name="web", version="1.2.3",  # <- here
                        verify=ChartVerify(secret_ref="cosign-keys"))),
])
