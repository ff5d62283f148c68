"""Secrets in exec-plugin credentials: an AWS secret key in env, tokens in args (both forms)."""

from fleetgen import App, Cluster, Environment, ExecAuth, ExternalSecretRef, Fleet, Project

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                credentials=ExecAuth(command="aws",  # <- env
                                     env={"AWS_SECRET_ACCESS_KEY": AWS_SECRET})),
        Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443",
                credentials=ExecAuth(args=["gcp", "--token=ya29" + ".a0AfH6SMBx9kQ"])),  # <- a
        Cluster(name="dev-3", env="dev", server="https://dev-3.example:6443",
                credentials=ExecAuth(args=["login", "--password", "Pa55" + "-w0rd-9x"])),  # <- b
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base")],
)
