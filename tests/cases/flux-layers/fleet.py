"""Flux's canonical layout: infrastructure controllers from charts, then the configuration that
uses their custom resources, then the apps, each layer waiting for the one before.

- cert-manager (a chart) installs the controllers and CRDs;
- infra-configs (a Kustomize app: a ClusterIssuer) depends_on cert-manager: its Kustomization
  waits for the gate cert-manager.ready, Ready once the HelmRelease is;
- podinfo (a chart in this repository) depends_on infra-configs: a Kustomization of its own,
  podinfo.release, applies its HelmRelease once infra-configs is Ready;
- web (a Kustomize app) depends_on podinfo: through the gate podinfo.ready.
"""

from fleetgen import App, Cluster, Environment, Fleet, HelmChart, Overrides, Project, SyncPolicy

fleet = Fleet(
    name="layers",
    repo="https://git.example.com/layers.git",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="staging"),
        Environment(name="production", sync=SyncPolicy(interval="1h", timeout="5m")),
    ],
    clusters=[
        Cluster(name="staging-1", env="staging", server="https://staging-1.example.com"),
        Cluster(name="production-1", env="production", server="https://production-1.example.com"),
    ],
    projects=[
        Project(name="infra", namespaces=["cert-manager"]),
        Project(name="apps", namespaces=["podinfo", "web"]),
    ],
    apps=[
        App(
            name="cert-manager", project="infra", namespace="cert-manager",
            chart=HelmChart(repo="https://charts.jetstack.io", name="cert-manager",
                            version="v1.16.2"),
            values={"crds": {"enabled": True}},
        ),
        App(
            name="infra-configs", project="infra", namespace="cert-manager",
            path="infrastructure/configs", depends_on=["cert-manager"],
        ),
        App(
            name="podinfo", project="apps", namespace="podinfo",
            chart=HelmChart(path="charts/podinfo"), depends_on=["infra-configs"],
            values={"replicaCount": 1},
            per_env={"production": Overrides(values={"replicaCount": 2})},
        ),
        App(
            name="web", project="apps", namespace="web", path="apps/web/base",
            depends_on=["podinfo"],
        ),
    ],
)
