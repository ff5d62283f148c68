"""A Policy naming a rule validate does not have (a typo of 'probes')."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Policy, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev", policy=Policy(rules={"probe": "off"}))],  # <- here
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
