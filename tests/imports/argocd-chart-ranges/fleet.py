"""The argocd-chart-ranges fleet, imported by `fleetgen import` from the Argo CD repository it sits
in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from
are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# apps/memcached.yaml:13: memcached: chart version '7.4' is partial: Argo CD reads it as that exact
#     tag, Flux as a range; the spec takes neither — write the exact version or a range such as
#     '1.2.x', then add it as App(chart=HelmChart(...))
# appsets/metrics.yaml:30: metrics: chart version '~5.27' is a range: mapped as written, with a
#     Waiver of chart-range; Argo CD and Flux each resolve it on their own at sync time, so what
#     runs is not pinned — pin an exact version, and drop the Waiver
# appsets/podinfo.yaml:22: podinfo: chart version '6.x' is a range: mapped as written, with a
#     Waiver of chart-range; Argo CD and Flux each resolve it on their own at sync time, so what
#     runs is not pinned — pin an exact version, and drop the Waiver
# appsets/redis.yaml:22: redis: chart version '>=20.0.0 <21.0.0' is a range: mapped as written,
#     with a Waiver of chart-range; Argo CD and Flux each resolve it on their own at sync time, so
#     what runs is not pinned — pin an exact version, and drop the Waiver
# bootstrap/root.yaml:2: Application 'root' not mapped (an app of apps: the Applications it holds
#     are imported, and fleetgen writes its own root Application) — check that fleetgen's
#     bootstrap.yaml (synced automatically, pruning) does what its syncPolicy did
# clusters/dev-1.yaml:1: cluster Secret 'cluster-dev-1': its credentials are not copied — put its
#     connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/dev-1', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)
# clusters/prod-1.yaml:1: cluster Secret 'cluster-prod-1': its credentials are not copied — put its
#     connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/prod-1', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)
# projects/addons.yaml:14: AppProject 'addons': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    SyncPolicy,
    Waiver,
)

fleet = Fleet(
    name="argocd-chart-ranges",
    repo="https://github.com/acme/platform-addons.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True),
    default_credentials=ExternalSecretRef(store="cluster-secrets", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev"),
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.k8s.example.com",
                labels={"env": "dev"}),
        Cluster(name="prod-1", env="prod", server="https://prod-1.k8s.example.com",
                labels={"env": "prod"}),
    ],
    projects=[
        Project(name="addons",
                namespaces=["memcached", "metrics", "podinfo", "redis"],
                description="Cluster add-ons, each following a range of chart releases",
                source_repos=[
                    "https://github.com/acme/platform-addons.git",
                    "https://charts.bitnami.com/bitnami",
                    "ghcr.io/stefanprodan/charts",
                    "https://prometheus-community.github.io/helm-charts",
                ]),
    ],
    apps=[
        App(name="metrics", project="addons", namespace="metrics",
            chart=HelmChart(repo="https://prometheus-community.github.io/helm-charts",
                            name="kube-state-metrics", version="~5.27"),
            per_env={"prod": Overrides(chart_version="5.27.0")},
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
        App(name="podinfo", project="addons", namespace="podinfo",
            chart=HelmChart(repo="oci://ghcr.io/stefanprodan/charts", name="podinfo",
                            version="6.x"),
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
        App(name="policies", project="addons", namespace="redis", path="policies"),
        App(name="redis", project="addons", namespace="redis",
            chart=HelmChart(repo="https://charts.bitnami.com/bitnami", name="redis",
                            version=">=20.0.0 <21.0.0"),
            values={"architecture": "standalone"},
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
    ],
)
