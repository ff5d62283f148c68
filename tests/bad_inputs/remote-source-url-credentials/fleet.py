"""A token in the URL of an app's Git source (and an ssh:// URL the engines read differently)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, GitSource, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace=None,
              source=GitSource(url="https://bot:ghp_s3cr3tvalue0123456789@github.com/acme/web.git")),  # <- token
          App(name="api", project="shop", namespace=None,
              source=GitSource(url="ssh://git@github.com/acme/api.git"))],  # <- ssh
)
