"""An AppSecret remote key with a placeholder that does not exist."""

from fleetgen import App, AppSecret, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              secrets=[AppSecret(name="web-db", store="vault-backend",  # <- here
                                 data={"DB_PASSWORD": "shop/{environment}/web#db_password"})])],
)
