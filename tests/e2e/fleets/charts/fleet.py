"""The loopback fleet of the chart-repository end-to-end tests: one chart, published by the
harness (tests/e2e/fleets/charts/published/greet, `helm package`d) to a Helm repository over
HTTPS and to an OCI registry, deployed twice, from each: hello from the Helm repository, ohai
from the registry. Flux places them on alpha, Argo CD on mgmt, the cluster it runs on.

Every address is on loopback: the harness replaces GIT_URL with its Git server's URL, HELM_REPO
with its Helm repository's https://127.0.0.1:PORT and OCI_REPO with its registry's
oci://127.0.0.1:PORT/charts.
"""

from fleetgen import App, Cluster, Environment, Fleet, HelmChart, Project, SyncPolicy

fleet = Fleet(
    name="e2e",
    repo="GIT_URL",
    engines=["argocd", "flux"],
    sync=SyncPolicy(automated=True, prune=True),
    cascade_delete=True,
    environments=[Environment(name="dev")],
    clusters=[
        Cluster(name="mgmt", env="dev", server="https://kubernetes.default.svc", engine="argocd"),
        Cluster(name="alpha", env="dev", server="https://127.0.0.1:6443", engine="flux"),
    ],
    projects=[
        Project(
            name="apps", namespaces=["hello", "ohai"], source_repos=["HELM_REPO", "OCI_REPO"]
        ),
    ],
    apps=[
        App(
            name="hello", project="apps", namespace="hello",
            chart=HelmChart(repo="HELM_REPO", name="greet", version="0.1.0"),
            values={"image": "registry.invalid/hello:1.0.0"},
        ),
        App(
            name="ohai", project="apps", namespace="ohai",
            chart=HelmChart(repo="OCI_REPO", name="greet", version="0.1.0"),
            values={"image": "registry.invalid/ohai:1.0.0"},
        ),
    ],
)
