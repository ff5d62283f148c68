"""Literal values under credential-looking keys: a config key and an exec-auth env variable."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExecAuth,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      credentials=ExecAuth(env={"VAULT_TOKEN": "s.abc123"}))],  # <- exec
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              per_env={"dev": Overrides(  # <- app
                  config={"web-config": {"DB_PASSWORD": "hunter2"}})})],
)
