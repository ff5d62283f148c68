"""A rollout in an environment whose sync is manual."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project, Rollout, Step

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[
        Environment(name="prod", rollout=Rollout(steps=[Step()])),  # <- here
    ],
    clusters=[Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
