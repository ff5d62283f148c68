"""A chart app's images and patches placed on Argo CD, which cannot post-render a chart."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, HelmChart, Image, Overrides, Patch, Project

FLEET = dict(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
              Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
)
CHART = dict(repo="https://charts.example.com", name="web", version="1.2.3")
PATCH = Patch(target={"kind": "Deployment"}, patch={"spec": {"revisionHistoryLimit": 3}})

fleet = Fleet(**FLEET, apps=[
    App(name="web", project="shop", namespace="shop",  # <- here
        chart=HelmChart(**CHART), images=[Image(name="web", tag="2.0")],
        per_env={"prod": Overrides(patches=[PATCH])}),  # <- here
])
