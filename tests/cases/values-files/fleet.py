"""HelmChart(values_files=...) and Overrides(values_files=...): Helm values files kept in the
repository, merged like chained `helm -f` files and passed inline on both engines.

A placement of echo reads, in this order: the chart's values.yaml, values/common.yaml (the
HelmChart's), values/prod.yaml (prod's per_env layer), values/east.yaml (region=east's
per_label layer), then every values= on top: the app's pullPolicy, prod's null (which deletes
the chart's memory limit) and prod-b's replicaCount. prod-a is on Flux, prod-b and staging-1
on Argo CD.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="values",
    repo="https://git.example.com/values.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging", engine="argocd", sync=SyncPolicy(automated=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="staging-1", env="staging", server="https://staging-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"region": "east"}, engine="flux"),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com",
                labels={"region": "west"}),
    ],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[
        App(
            name="echo", project="web", namespace="web",
            chart=HelmChart(path="charts/echo", values_files=["values/common.yaml"]),
            values={"image": {"pullPolicy": "Always"}},
            per_env={"prod": Overrides(values_files=["values/prod.yaml"],
                                       values={"resources": {"limits": {"memory": None}}})},
            per_label={"region=east": Overrides(values_files=["values/east.yaml"])},
            per_cluster={"prod-b": Overrides(values={"replicaCount": 5})},
        ),
        App(name="web", project="web", namespace="web", path="apps/web/base"),
    ],
)
