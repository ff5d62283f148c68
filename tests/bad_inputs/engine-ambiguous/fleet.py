"""Two engines and no engine rule for some placements: one problem per cluster, at the Cluster
line, naming at most five apps."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project, Selector

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev"), Environment(name="prod", engine="argocd")],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443"),  # <- here
        Cluster(name="dev-2", env="dev", server="https://dev-2.example:6443", engine="flux"),
        Cluster(name="dev-3", env="dev", server="https://dev-3.example:6443"),  # <- here
        Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443"),
    ],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        *(App(name=f"web-{n}", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(clusters=["dev-1", "dev-2"])) for n in range(7)),
        App(name="worker", project="shop", namespace="shop", path="apps/worker/base",
            targets=Selector(clusters=["dev-2", "dev-3", "prod-east"])),
    ],
)
