"""Notify in Flux hub mode: the Providers, their ExternalSecrets and the Alerts of a spoke's apps
live on the hub in the spoke's namespace, beside the spoke's Kustomizations (the hub's
kustomize-controller emits their events there)."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      FluxOptions,
                      Notify,
                      Project,
                      Slack,
                      SyncPolicy,
)

ALERTS = Slack(channel="alerts", secret=ExternalSecretRef(store="vault", key="notify/slack"))

fleet = Fleet(
    name="hub",
    repo="https://git.example.com/hub.git",
    engines=["flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    flux=FluxOptions(mode="hub", hub="mgmt"),
    environments=[
        Environment(name="mgmt", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),
                    notify=[Notify(on=["sync_failed", "health_degraded", "deployed"],
                                   to=[ALERTS])]),
    ],
    clusters=[
        Cluster(name="mgmt", env="mgmt", server="https://mgmt.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com"),
    ],
    projects=[Project(name="api", namespaces=["api"])],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            notify=[Notify(on=["sync_failed"], to=[ALERTS])]),
    ],
)
