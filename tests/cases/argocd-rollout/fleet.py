"""Argo CD progressive sync: prod's ApplicationSet rolls out wave by wave (RollingSync)."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      Image,
                      Overrides,
                      Project,
                      Rollout,
                      Step,
                      SyncPolicy,
)

fleet = Fleet(
    name="waves",
    repo="https://git.example.com/waves.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging", sync=SyncPolicy(automated=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}),
                                           Step(max_update="50%")])),
    ],
    clusters=[
        Cluster(name="staging-1", env="staging", server="https://staging-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"ring": "canary"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
        Cluster(name="prod-c", env="prod", server="https://prod-c.example.com"),
    ],
    projects=[Project(name="api", namespaces=["api"])],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            images=[Image(name="api", new_name="registry.example.com/api", tag="2.0.0")],
            per_env={"prod": Overrides(replicas={"api": 3})}),
    ],
)
