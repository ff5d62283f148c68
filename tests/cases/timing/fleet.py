"""Flux timing layered like the rest: interval, timeout, retry_interval and wait per layer.

dev reconciles every minute, prod every 30 minutes with a 5 minute timeout; the app retries a
failed prod reconciliation after 2 minutes, and prod-b (Argo CD) gets nothing of it: its layer
sets a timeout explicitly, which is one warning at build time.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
    Retry,
    SyncPolicy,
)

fleet = Fleet(
    name="timing",
    repo="https://git.example.com/timing.git",
    engines=["argocd", "flux"],  # dev and prod-a on Flux, prod-b on Argo CD
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True, retry=Retry(limit=3)),
    environments=[
        Environment(name="dev", engine="flux", sync=SyncPolicy(interval="1m")),
        Environment(name="prod", engine="argocd",
                    sync=SyncPolicy(interval="30m", timeout="5m")),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com", engine="flux"),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[
        App(
            name="web", project="web", namespace="web", path="apps/web/base",
            per_env={"prod": Overrides(sync=SyncPolicy(retry_interval="2m", wait=False))},
            per_cluster={"prod-b": Overrides(sync=SyncPolicy(timeout="10m"))},
        ),
    ],
)
