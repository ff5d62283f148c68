"""The spec calls sys.exit(): still a spec error with exit code 2 and the user's line."""

import sys

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

if sys.version_info < (3, 99):
    sys.exit("this fleet needs Python 3.99")  # <- here

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
