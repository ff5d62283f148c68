"""Flux hub mode: one hub applies every spoke's Kustomizations; prod rolls out canary first."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      FluxOptions,
                      Image,
                      Project,
                      Rollout,
                      Step,
                      SyncPolicy,
)

fleet = Fleet(
    name="hub",
    repo="https://git.example.com/hub.git",
    engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    flux=FluxOptions(mode="hub", hub="mgmt"),
    environments=[
        Environment(name="mgmt", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()])),
    ],
    clusters=[
        Cluster(name="mgmt", env="mgmt", server="https://mgmt.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"ring": "canary"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    projects=[Project(name="api", namespaces=["api"])],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            targets={"envs": ["prod"]},
            images=[Image(name="api", new_name="registry.example.com/api", tag="2.0.0")],
            replicas={"api": 3}, config={"api-config": {"MODE": "hub"}}),
    ],
)
