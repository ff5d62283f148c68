"""Apps that are not one namespace (App(namespace=None)) and namespace metadata.

cert-manager's base says where its objects go: two Namespaces, a Deployment in one of them, a
ClusterRole, a CRD and a cluster-scoped custom object (ClusterIssuer). shop deploys into its
project's namespace, whose labels and annotations the project declares once.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    NamespaceMeta,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="namespaces",
    repo="https://git.example.com/namespaces.git",
    engines=["argocd", "flux"],  # dev on Flux, prod on Argo CD
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev", engine="flux"),
        Environment(name="prod", engine="argocd"),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
    ],
    projects=[
        Project(name="platform", namespaces=["cert-manager", "cert-manager-*"],
                cluster_resources=[("apiextensions.k8s.io", "CustomResourceDefinition"),
                                   ("rbac.authorization.k8s.io", "ClusterRole"),
                                   ("cert-manager.io", "ClusterIssuer")]),
        Project(name="shop", namespaces=["shop"],
                namespace_metadata={"shop": NamespaceMeta(
                    labels={"pod-security.kubernetes.io/enforce": "restricted",
                            "tenant": "shop"},
                    annotations={"example.com/owner": "team-shop"})}),
    ],
    apps=[
        App(name="cert-manager", project="platform", namespace=None,
            path="apps/cert-manager"),
        App(name="shop", project="shop", namespace="shop", path="apps/shop",
            replicas={"shop": 2}),
    ],
)
