"""A ClusterVar that clusters where the app runs do not declare (one message naming both), and
a var whose value on a cluster leaves the app's source as its path."""

from fleetgen import App, Cluster, ClusterVar, Environment, ExternalSecretRef, Fleet, GitSource, HelmChart, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      vars={"host": "dev-1.example.com", "dir": "../elsewhere"}),
              Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443",
                      vars={"dir": "deploy/dev-2"}),
              Cluster(name="dev-3", env="dev", server="https://dev-3.example:6443",
                      vars={"dir": "deploy/dev-3"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop",
              chart=HelmChart(repo="https://charts.example.com", name="web", version="1.0.0"),
              values={"ingress": {"hosts": [ClusterVar("host")]}}),  # <- here
          App(name="tenant", project="shop", namespace=None,
              source=GitSource(url="https://github.com/acme/tenant.git"),
              path=ClusterVar("dir"))],  # <- here
)
