"""An access key id pasted as the role ARN: the validation error masks it (validators quote)."""

from fleetgen import App, AwsAuth, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      credentials=AwsAuth(cluster_name="dev-1",  # <- here
                                          role_arn="AKIA" + "Z7Q4EXAMPLEK3Y9W"))],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
