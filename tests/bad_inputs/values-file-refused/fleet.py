"""Helm values files that cannot be read as one: missing, not a mapping, not YAML, outside the
repository, and on a kustomize app."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Overrides,
    Project,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      labels={"region": "east"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="cache", project="shop", namespace="shop",
            chart=HelmChart(values_files=["values/missing.yaml"],  # <- missing
                            repo="https://charts.example.com", name="redis", version="1.2.3"),
            per_env={"dev": Overrides(values_files=["values/list.yaml"])},  # <- not a mapping
            per_label={"region=east": Overrides(values_files=["../values.yaml"])},  # <- outside
            per_cluster={"dev-1": Overrides(values_files=["values/broken.yaml"])}),  # <- not YAML
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            per_env={"dev": Overrides(values_files=["values/list.yaml"])}),  # <- kustomize app
    ],
)
