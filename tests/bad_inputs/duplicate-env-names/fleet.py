"""The valid fleet every bad-input case starts from; built once to fill output/."""

from fleetgen import (
    App,
    AppSecret,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Overrides,
    Project,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
)

REPO = "https://github.com/acme/shop-fleet.git"

fleet = Fleet(
    name="shop",
    repo=REPO,
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", sync=SyncPolicy(automated=True, prune=True)),  # <- first
        Environment(name="dev"),  # <- second (what `add env dev` refuses up front)
        Environment(name="prod", sync=SyncPolicy(automated=True),
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()])),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.k8s.example:6443"),
        Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443",
                labels={"region": "east", "ring": "canary"}),
        Cluster(name="prod-west", env="prod", server="https://10.0.2.100:6443",
                labels={"region": "west"}),
    ],
    projects=[Project(name="shop", namespaces=["shop"], source_repos=[REPO])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            config={"web-config": {"GREETING": "hello"}},
            per_env={"prod": Overrides(replicas={"web": 3})},
            per_cluster={"prod-east": Overrides(config={"web-config": {"REGION": "east"}})},
            secrets=[AppSecret(name="web-db", store="vault-backend",
                               data={"DB_PASSWORD": "shop/{env}/web#db_password"})]),
        App(name="worker", project="shop", namespace="shop", path="apps/worker/base",
            targets=Selector(envs=["prod"]), depends_on=["web"]),
    ],
)
