"""One Argo CD instance per environment: prod's own Argo CD (namespace gitops, on prod's
management cluster) reads output/argocd-prod/; the fleet's instance keeps dev and staging."""

from fleetgen import (
                      App,
                      ArgoOptions,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      HelmChart,
                      Image,
                      Overrides,
                      Project,
                      Rollout,
                      Selector,
                      Step,
                      SyncPolicy,
)

fleet = Fleet(
    name="instances",
    repo="https://git.example.com/instances.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", sync=SyncPolicy(automated=True)),
        Environment(name="staging", sync=SyncPolicy(automated=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),
                    argocd=ArgoOptions(namespace="gitops"),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}),
                                           Step(max_update="50%")])),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="staging-1", env="staging", server="https://staging-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"ring": "canary"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    projects=[
        Project(name="api", namespaces=["api"]),
        Project(name="platform", namespaces=["cert-manager"],
                cluster_resources=[("apiextensions.k8s.io", "CustomResourceDefinition")]),
    ],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            images=[Image(name="api", new_name="registry.example.com/api", tag="2.0.0")],
            per_env={"prod": Overrides(replicas={"api": 3})}),
        App(name="cert-manager", project="platform", namespace="cert-manager",
            chart=HelmChart(repo="https://charts.jetstack.io", name="cert-manager",
                            version="1.16.2"),
            values={"crds": {"enabled": True}},
            targets=Selector(envs=["staging", "prod"])),
    ],
)
