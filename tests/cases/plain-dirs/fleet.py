"""Apps whose path is a plain directory of manifests (no kustomization.yaml), on both engines:
one in a namespace of its own (Argo CD's destination namespace, Flux's targetNamespace), one
whose manifests say where each object goes (namespace=None)."""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="plain",
    repo="https://git.example.com/fleet.git",
    engines=["argocd", "flux"],
    common_labels={"team": "platform"},  # reaches no plain directory (the fleet map says so)
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
    ],
    projects=[Project(name="platform", namespaces=["hello", "monitoring"])],
    apps=[
        App(name="hello", project="platform", namespace="hello", path="apps/hello",
            per_env={"prod": Overrides(sync=SyncPolicy(prune=True))}),
        App(name="monitoring", project="platform", namespace=None, path="apps/monitoring"),
    ],
)
