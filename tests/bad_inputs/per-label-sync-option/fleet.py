"""A malformed sync option in a per_label layer: Argo CD ignores an option not of the form
Name=value, so it is refused wherever it is set, per_label layers included."""

from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project,
                      SyncPolicy)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev", sync=SyncPolicy(automated=True))],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      labels={"role": "dr"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              per_label={"role=dr": Overrides(
                  sync=SyncPolicy(sync_options=["ServerSideApply"]))})],  # <- here
)
