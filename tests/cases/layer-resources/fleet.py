"""Overrides(resources=..., components=...): what layers add to an app's overlays.

prod adds a NetworkPolicy and the `ha` Component (a PodDisruptionBudget, and a patch that sets
the Deployment's minReadySeconds) in its env overlay; clusters labelled region=east add a
Service, and prod-b alone the `debug` Component (an annotation). Resources are directories with
a kustomization.yaml. prod-a is on Flux, prod-b on Argo CD: both read the same overlays.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="layers",
    repo="https://git.example.com/layers.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging", engine="argocd", sync=SyncPolicy(automated=True)),
        Environment(name="prod", engine="flux", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="staging-1", env="staging", server="https://staging-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"region": "east"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com",
                labels={"region": "west"}, engine="argocd"),
    ],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[
        App(
            name="web", project="web", namespace="web", path="apps/web/base",
            per_env={
                "prod": Overrides(replicas={"web": 3}, resources=["policies/deny-ingress"],
                                  components=["components/ha"]),
            },
            per_label={"region=east": Overrides(resources=["apps/web/east"])},
            per_cluster={"prod-b": Overrides(components=["./components/debug/"])},
        ),
    ],
)
