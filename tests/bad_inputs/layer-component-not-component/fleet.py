"""What a layer adds must be of the right kind, inside the repository: a Kustomization is no
Component, a single file is no resource kustomize loads from outside the overlay's folder."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      labels={"region": "east"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            per_env={"dev": Overrides(components=["apps/worker/base"])},  # <- a Kustomization
            per_label={"region=east": Overrides(resources=["apps/raw/deployment.yaml"])},  # <- file
            per_cluster={"dev-1": Overrides(resources=["../policies"])}),  # <- outside
    ],
)
