"""The loopback fleet of the Flux notification tests: one cluster, a chart app and two Kustomize
apps in this repository, and two webhook channels whose addresses (the test's receiver on
loopback) External Secrets takes from the store ``notify``.

``hook`` hears every app's failures and deploys in dev but quiet's (silenced at the app);
``failures`` hears every app's failures only.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Notify,
    Project,
    SyncPolicy,
    Webhook,
)

HOOK = Webhook(
    name="hook", secret=ExternalSecretRef(store="notify", key="hook", property="address")
)
FAILURES = Webhook(
    name="failures", secret=ExternalSecretRef(store="notify", key="failures", property="address")
)

fleet = Fleet(
    name="e2e",
    repo="GIT_URL",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True, interval="1m"),
    environments=[
        Environment(
            name="dev",
            notify=[
                Notify(on=["sync_failed", "deployed"], to=[HOOK]),
                Notify(on=["sync_failed"], to=[FAILURES]),
            ],
        )
    ],
    clusters=[Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443")],
    projects=[Project(name="apps", namespaces=["echo", "web", "quiet"])],
    apps=[
        App(
            name="echo", project="apps", namespace="echo", cascade_delete=False,
            chart=HelmChart(path="charts/echo"), values={"replicas": 1},
        ),
        App(name="web", project="apps", namespace="web", path="apps/web"),
        App(
            name="quiet", project="apps", namespace="quiet", path="apps/quiet",
            notify=[Notify(on=[], to=[HOOK])],
        ),
    ],
)
