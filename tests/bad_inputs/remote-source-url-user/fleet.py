"""A user name in the URL of an app's Git source, which no secret rule matches: the source check
refuses it (a token is reported once, by the secret scan: remote-source-url-credentials)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, GitSource, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace=None,
              source=GitSource(url="https://deploy-bot@github.com/acme/web.git"))],  # <- user
)
