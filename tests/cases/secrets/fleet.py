"""AppSecrets: ExternalSecrets per environment, and per cluster where the key names the
cluster (a cluster overlay on top of the env overlay)."""

from fleetgen import (
                      App,
                      AppSecret,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      Project,
                      SyncPolicy,
)

fleet = Fleet(
    name="secrets",
    repo="https://git.example.com/secrets.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com"),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    projects=[Project(name="api", namespaces=["api"])],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            secrets=[AppSecret(name="api-db", store="vault",
                               data={"PASSWORD": "apps/api/{env}#db_password"}),
                     AppSecret(name="api-token", store="vault",
                               data={"TOKEN": "apps/api/{env}/{cluster}#token"})]),
    ],
)
