"""An app whose clusters in an environment with a rollout are on two engines: no gate orders
clusters across engines. The app that picks one engine for all its clusters is fine."""

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
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True),
                              rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}),
                                                     Step()]))],
    clusters=[
        Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443",
                labels={"ring": "canary"}),
        Cluster(name="prod-west", env="prod", server="https://10.0.2.100:6443", engine="flux"),
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base"),  # <- here
        App(name="worker", project="shop", namespace="shop", path="apps/worker/base",
            engine="argocd"),
    ],
)
