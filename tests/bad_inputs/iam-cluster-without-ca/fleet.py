"""IAM and exec-plugin registrations without the cluster's CA: Argo CD would verify the API
servers against the system trust store and fail every sync with x509."""

from fleetgen import App, AwsAuth, Cluster, Environment, ExecAuth, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    environments=[Environment(name="prod")],
    clusters=[
        Cluster(name="prod-eks", env="prod",  # <- here
                server="https://0123ABCD.gr7.eu-west-1.eks.amazonaws.com",
                credentials=AwsAuth(cluster_name="prod-eks",
                                    role_arn="arn:aws:iam::111122223333:role/argocd")),
        Cluster(name="prod-gke", env="prod", server="https://34.1.2.3",  # <- here
                credentials=ExecAuth(args=["gcp"])),
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
