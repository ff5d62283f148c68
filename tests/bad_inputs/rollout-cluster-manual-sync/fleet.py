"""automated=False in a per_cluster layer of a cluster in a rollout environment."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
    Rollout,
    Step,
    SyncPolicy,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="prod", sync=SyncPolicy(automated=True),
                              rollout=Rollout(steps=[Step()]))],
    clusters=[Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              per_cluster={"prod-east": Overrides(sync=SyncPolicy(automated=False))})],  # <- here
)
