"""A cluster without credentials and no default_credentials."""

from fleetgen import App, AwsAuth, Cluster, Environment, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    environments=[Environment(name="dev")],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                credentials=AwsAuth(cluster_name="dev-1",
                                    role_arn="arn:aws:iam::111122223333:role/argocd")),
        Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443"),  # <- here
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
