"""A per_label namespace on a kustomize app whose clusters the ApplicationSet selects at run time
(one selector per environment: no generator of its own for the label's clusters)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project, Selector

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      registration="external",
                      labels={"region": "us"})],
    projects=[Project(name="shop", namespaces=["shop", "shop-us"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(match_labels={"region": "us"}, runtime=True),
              per_label={"region=us": Overrides(namespace="shop-us")})],  # <- here
)
