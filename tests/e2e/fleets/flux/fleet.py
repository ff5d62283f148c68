"""The loopback fleet of the Flux end-to-end tests: one cluster, a Kustomize app and a chart app
in this repository, the Kustomize app depending on the chart app (through its gate).

Every address is on loopback: the harness replaces GIT_URL with its Git server's URL.
"""

from fleetgen import App, Cluster, Environment, Fleet, HelmChart, Project, SyncPolicy

fleet = Fleet(
    name="e2e",
    repo="GIT_URL",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True, interval="1m"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443")],
    projects=[Project(name="apps", namespaces=["echo", "web"])],
    apps=[
        App(
            name="echo", project="apps", namespace="echo",
            chart=HelmChart(path="charts/echo"), values={"replicas": 1},
        ),
        App(
            name="web", project="apps", namespace="web", path="apps/web",
            depends_on=["echo"],
        ),
    ],
)
