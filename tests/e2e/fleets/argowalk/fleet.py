"""The loopback fleet of the Argo CD walkthroughs (tests/e2e/test_argocd_transitions.py): Argo CD
runs on a management cluster and places everything on the workload cluster alpha (environment
prod). A chart app kept in this repository; Kustomize apps web (cascade_delete=True) and api
(orphan) to be removed; jobs (cascade) to be removed with its namespace from project apps; and
the tenant project team (its apps applied as its ServiceAccount deployer), whose app shop leaves
the cluster.

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
api = App(name="api", project="apps", namespace="api", path="apps/api", cascade_delete=False)
jobs = App(name="jobs", project="apps", namespace="jobs", path="apps/api", cascade_delete=True)
shop = App(name="shop", project="team", namespace="team", path="apps/web", cascade_delete=True)

fleet = Fleet(
    name="e2e-walk",
    repo="GIT_URL",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="e2e", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True),
    environments=[Environment(name="prod")],
    clusters=[Cluster(name="alpha", env="prod", server="SERVER_ALPHA")],
    projects=[
        Project(name="apps", namespaces=["echo", "web", "api", "jobs"]),
        Project(name="team", namespaces=["team"], service_account="deployer"),
    ],
    apps=[echo, web, api, jobs, shop],
)
