"""A runtime selector whose project derives its destinations from the clusters fleet.py knows."""

from fleetgen import App, Cluster, Environment, Fleet, Project, Selector

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      registration="external", labels={"tier": "edge"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(match_labels={"tier": "edge"}, runtime=True))],  # <- here
)
