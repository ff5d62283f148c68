"""ClusterVars misused, all reported at once: a var no cluster declares, a var in the config
and in the namespace of an app whose ApplicationSet selects clusters at run time, an annotation
in the var namespace fleetgen writes."""

from fleetgen import (
    App,
    Cluster,
    ClusterVar,
    Environment,
    ExternalSecretRef,
    Fleet,
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
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",  # <- here
                      annotations={"fleetgen.io/var.zone": "a"},
                      vars={"region": "us-east-1", "ns": "shop"}),
              Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443",
                      registration="external", labels={"edge": "yes"},
                      vars={"region": "us-west-2", "ns": "shop"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              config={"web-config": {"REGION": ClusterVar("regoin")}}),  # <- here
          App(name="edge", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(match_labels={"edge": "yes"}, runtime=True),
              config={"web-config": {"REGION": ClusterVar("region")}},  # <- here
              per_env={"dev": Overrides(namespace=ClusterVar("ns"))})],  # <- here
)
