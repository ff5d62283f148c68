"""The loopback fleet of the Flux walkthroughs (tests/e2e/test_flux_transitions.py): a chart app
kept in this repository and two Kustomize apps, one deleting its workloads when removed
(cascade_delete=True) and one orphaning them; cluster alpha, and beta to be removed.
tests/e2e/test_flux_tenant.py adds the tenant project team and its app shop.

Every address is on loopback: the harness replaces GIT_URL with its Git server's URL.
"""

from fleetgen import App, Cluster, Environment, Fleet, HelmChart, Project, SyncPolicy

echo = App(
    name="echo", project="apps", namespace="echo", cascade_delete=True,
    chart=HelmChart(path="charts/echo"), values={"replicas": 1},
)
web = App(name="web", project="apps", namespace="web", path="apps/web", cascade_delete=True)
api = App(name="api", project="apps", namespace="api", path="apps/api", cascade_delete=False)

fleet = Fleet(
    name="e2e-walk",
    repo="GIT_URL",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True, interval="1m"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443")],
    projects=[Project(name="apps", namespaces=["echo", "web", "api"])],
    apps=[echo, web, api],
)
