"""The loopback fleet of the engine moves (tests/e2e/test_engine_moves.py): Argo CD runs on a
management cluster and places the apps on the workload cluster alpha (environment prod), where
Flux is bootstrapped too (output/flux/clusters/alpha), applying what fleetgen places there with
Flux: Kustomize app web (cascade_delete=True) and the chart app echo (orphan, kept in this
repository) on Argo CD, Kustomize app api (orphan) on Flux; moved between the engines by
``App(engine=...)`` and ``Cluster(engine=...)``.

Every address is on loopback: the harness replaces GIT_URL with its Git server's URL and
SERVER_ALPHA with alpha's https://127.0.0.1:PORT; alpha's credentials are an entry of the
ClusterSecretStore e2e (External Secrets' fake provider).
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Project,
    SyncPolicy,
)

echo = App(
    name="echo", project="apps", namespace="echo",
    chart=HelmChart(path="charts/echo"), values={"replicas": 1},
)
web = App(name="web", project="apps", namespace="web", path="apps/web", cascade_delete=True)
api = App(
    name="api", project="apps", namespace="api", path="apps/api", cascade_delete=False,
    engine="flux",
)

fleet = Fleet(
    name="e2e-engines",
    repo="GIT_URL",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="e2e", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True, interval="1m"),
    environments=[Environment(name="prod", engine="argocd")],
    clusters=[Cluster(name="alpha", env="prod", server="SERVER_ALPHA")],
    projects=[Project(name="apps", namespaces=["echo", "web", "api"])],
    apps=[echo, web, api],
)
