"""A credential pasted into a cluster var: scanned like every string of the spec."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",  # <- here
                      vars={"db_password": "Tr0ub4dor-and-3-horses"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
