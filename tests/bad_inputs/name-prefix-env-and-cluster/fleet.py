"""Overrides(name_prefix=...) in a cluster overlay that differs from its env overlay's (kustomize
would put it in front of that one)."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod")],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443", labels={"tier": "a"}),
        Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example:6443",
                labels={"tier": "a"}),
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            per_env={"dev": Overrides(name_prefix="dev-")},
            per_label={"tier=a": Overrides(name_prefix="a-")},  # <- dev-1 (prod-1 is fine)
            per_cluster={"dev-2": Overrides(name_prefix="dev-")}),  # the same: fine
    ],
)
