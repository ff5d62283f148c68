"""A password in an App annotation and a token in a Cluster annotation (camelCase key)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",  # <- cluster
                      annotations={"acme.io/apiToken": "q8Zr" + "T1vW0pLm3Kx"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",  # <- app
              annotations={"acme.io/db-password": "Tr0ub4" + "dor&3"})],
)
