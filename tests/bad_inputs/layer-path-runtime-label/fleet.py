"""A per_label source path on an app whose clusters the ApplicationSet selects at run time (one
selector per environment: no generator of its own for the label's clusters), for a label the
selector does not require."""

from fleetgen import (
    App,
    Cluster,
    Destination,
    Environment,
    ExternalSecretRef,
    Fleet,
    GitSource,
    Overrides,
    Project,
    Selector,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      registration="external",
                      labels={"region": "us", "tier": "web"})],
    projects=[Project(name="shop", namespaces=["shop"],
                      destinations=[Destination(server="*", namespace="shop")])],
    apps=[App(name="web", project="shop", namespace=None,
              source=GitSource(url="https://github.com/acme/web.git"), path="deploy",
              targets=Selector(match_labels={"tier": "web"}, runtime=True),
              per_label={"region=us": Overrides(path="deploy/us")})],  # <- here
)
