"""An app whose source is outside its project's explicit source_repos."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, OciSource, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"],
                      source_repos=["https://github.com/acme/*"])],
    apps=[App(name="web", project="shop", namespace=None,
              source=OciSource(url="oci://ghcr.io/other/web", tag="1.0"))],  # <- here
)
