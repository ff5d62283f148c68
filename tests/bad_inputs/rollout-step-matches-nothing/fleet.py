"""A rollout step whose labels no cluster of the environment has (typo in the value)."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Project,
    Rollout,
    Step,
    SyncPolicy,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[
        Environment(name="prod", sync=SyncPolicy(automated=True), rollout=Rollout(steps=[
            Step(match_labels={"ring": "canary"}),  # <- here
            Step(),
        ])),
    ],
    clusters=[Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443",
                      labels={"ring": "canery"}),
              Cluster(name="prod-west", env="prod", server="https://10.0.2.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
