"""The loopback fleet of the Argo CD end-to-end tests. Argo CD runs on the management cluster
mgmt (environment dev), which it reaches as https://kubernetes.default.svc; two workload
clusters, alpha and beta, make environment prod, rolled out in two waves (alpha, the canary,
first). The chart app echo (in this repository) runs everywhere, with another image in prod;
the Kustomize app web runs in prod only.

Every address is on loopback: the harness replaces GIT_URL with its Git server's URL, and
SERVER_ALPHA, SERVER_BETA with the workload API servers' https://127.0.0.1:PORT. The workload
clusters' credentials are entries of the ClusterSecretStore e2e (External Secrets' fake provider).
"""

from fleetgen import (
    App,
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
    name="e2e",
    repo="GIT_URL",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="e2e", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev"),
        Environment(
            name="prod",
            rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()]),
        ),
    ],
    clusters=[
        Cluster(name="mgmt", env="dev", server="https://kubernetes.default.svc"),
        Cluster(name="alpha", env="prod", server="SERVER_ALPHA", labels={"ring": "canary"}),
        Cluster(name="beta", env="prod", server="SERVER_BETA"),
    ],
    projects=[Project(name="apps", namespaces=["echo", "web"])],
    apps=[
        App(
            name="echo", project="apps", namespace="echo",
            chart=HelmChart(path="charts/echo"), values={"replicas": 1},
            per_env={"prod": Overrides(values={"image": "registry.invalid/echo:1.1.0"})},
        ),
        App(
            name="web", project="apps", namespace="web", path="apps/web",
            targets=Selector(envs=["prod"]),
            per_env={"prod": Overrides(images=[Image(name="registry.invalid/web", tag="1.1.0")])},
        ),
    ],
)
