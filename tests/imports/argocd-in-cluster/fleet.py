"""The argocd-in-cluster fleet, imported by `fleetgen import` from the Argo CD repository it sits
in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from
are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# argocd/metrics-server.yaml:3: metrics-server: no syncOption CreateNamespace=true, which other
#     Applications here have — fleetgen creates every app's namespace
#     (Fleet(create_namespaces=True)): check that is fine for this one
# bootstrap/root.yaml:3: Application 'root' not mapped (an app of apps: the Applications it holds
#     are imported, and fleetgen writes its own root Application) — check that fleetgen's
#     bootstrap.yaml (synced automatically, pruning) does what its syncPolicy did

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="argocd-in-cluster",
    repo="https://github.com/acme/single-cluster.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True, self_heal=True),
    environments=[
        Environment(name="in-cluster"),
    ],
    clusters=[
        Cluster(name="in-cluster", env="in-cluster", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="platform",
                namespaces=["*"],
                description="What runs on the cluster Argo CD runs on",
                source_repos=[
                    "https://github.com/acme/single-cluster.git",
                    "https://charts.jetstack.io",
                    "https://kubernetes-sigs.github.io/metrics-server",
                ]),
    ],
    apps=[
        App(name="cert-manager", project="platform", namespace="cert-manager",
            chart=HelmChart(repo="https://charts.jetstack.io", name="cert-manager",
                            version="v1.16.2"),
            values={"crds": {"enabled": True}, "prometheus": {"enabled": False}}),
        App(name="podinfo", project="platform", namespace="podinfo", path="apps/podinfo"),
        App(name="podinfo-dashboards", project="platform", namespace="monitoring",
            path="apps/podinfo/dashboards"),
        App(name="metrics-server", project="platform", namespace="kube-system",
            chart=HelmChart(repo="https://kubernetes-sigs.github.io/metrics-server",
                            name="metrics-server", version="3.12.2"),
            values={"replicas": 1, "commonLabels": {"cluster": "in-cluster"}}),
        App(name="tenant-team-a", project="platform", namespace="team-a",
            path="apps/tenants/team-a"),
        App(name="tenant-team-b", project="platform", namespace="team-b",
            path="apps/tenants/team-b"),
    ],
)
