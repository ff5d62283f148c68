"""A runtime selector reading a label no cluster declares, on a fleet without external clusters."""

from fleetgen import App, Cluster, Destination, Environment, ExternalSecretRef, Expr, Fleet, Project, Selector

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"],
                      destinations=[Destination(server="*", namespace="shop")])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(match_expressions=[Expr(key="zone", operator="DoesNotExist")],  # <- here
                               runtime=True))],
)
