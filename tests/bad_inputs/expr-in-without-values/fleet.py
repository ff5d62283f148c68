"""operator In without values (Kubernetes requires at least one)."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    Expr,
    ExternalSecretRef,
    Fleet,
    Project,
    Selector,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      labels={"region": "eu-west"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(match_expressions=[
                  Expr(key="region", operator="In"),  # <- here
              ]))],
)
