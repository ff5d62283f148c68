"""The loopback fleet of the cluster-var walkthrough (tests/e2e/test_argocd_changes.py): Argo CD
on a management cluster places the in-repo chart echo on every prod cluster it finds when its
ApplicationSet runs (``Selector(runtime=True)``), its image a ``ClusterVar`` read from each
cluster Secret's annotation ``fleetgen.io/var.image``. alpha's registration is fleetgen's (an
ExternalSecret, the annotation written); beta's is external, a Secret the harness makes by hand
as its owner would, at first without the annotation. The floor starts at Argo CD 3.4.

Every address is on loopback: the harness replaces GIT_URL with its Git server's URL and
SERVER_ALPHA, SERVER_BETA with the clusters' https://127.0.0.1:PORT.
"""

from fleetgen import (
    App,
    ArgoOptions,
    Cluster,
    ClusterVar,
    Destination,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Project,
    Selector,
    SyncPolicy,
)

IMAGE = "registry.invalid/echo:1.0.0"

echo = App(
    name="echo", project="apps", namespace="echo",
    chart=HelmChart(path="charts/echo"),
    values={"replicas": 1, "image": ClusterVar("image")},
    targets=Selector(envs=["prod"], runtime=True),
)

fleet = Fleet(
    name="e2e-vars",
    repo="GIT_URL",
    engines=["argocd"],
    argocd=ArgoOptions(min_version="3.4"),
    default_credentials=ExternalSecretRef(store="e2e", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True),
    environments=[Environment(name="prod")],
    clusters=[
        Cluster(name="alpha", env="prod", server="SERVER_ALPHA", vars={"image": IMAGE}),
        Cluster(
            name="beta", env="prod", server="SERVER_BETA", registration="external",
            vars={"image": IMAGE},
        ),
    ],
    projects=[
        # runtime selection reaches clusters fleet.py may not know: destinations by hand
        Project(
            name="apps", namespaces=["echo"],
            destinations=[Destination(server="*", namespace="echo")],
        ),
    ],
    apps=[echo],
)
