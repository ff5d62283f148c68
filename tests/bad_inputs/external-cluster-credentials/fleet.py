"""Credentials on a cluster whose Argo CD registration another tool owns."""

from fleetgen import App, AwsAuth, Cluster, Environment, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",  # <- here
                      registration="external",
                      credentials=AwsAuth(cluster_name="dev-1",
                                          role_arn="arn:aws:iam::123456789012:role/argocd"))],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
