"""Five cross-reference problems at five lines, all reported in one run, in line order."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", sync=SyncPolicy(automated=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True), rollout=Rollout(steps=[
            Step(match_labels={"ring": "canary"}),  # <- step
            Step(),
        ])),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),
        Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443"),
        Cluster(name="stage-1", env="staging", server="https://stage-1.example:6443"),  # <- env
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="web", project="shopping", namespace="shop", path="apps/web/base",  # <- project
            per_cluster={"prod-west": Overrides(replicas={"web": 2})}),  # <- cluster
        App(name="worker", project="shop", namespace="shop", path="apps/worker/base",
            targets=Selector(envs=["prod"], exclude=["prod-east"])),  # <- targets
    ],
)
