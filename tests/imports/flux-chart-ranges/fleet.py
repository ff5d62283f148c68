"""The flux-chart-ranges fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# clusters/dev/addons.yaml:7: Kustomization 'addons' (followed into the Flux objects it applies):
#     its spec.interval not kept — fleetgen applies what it holds with flux bootstrap's
#     Kustomization (10m, prune, no wait), and its apps with their own settings and depends_on: set
#     those by hand if this timing matters
# clusters/production/addons.yaml:7: Kustomization 'addons' (followed into the Flux objects it
#     applies): its spec.interval not kept — fleetgen applies what it holds with flux bootstrap's
#     Kustomization (10m, prune, no wait), and its apps with their own settings and depends_on: set
#     those by hand if this timing matters
# infrastructure/base/ingress-nginx.yaml:25: HelmRelease 'ingress-nginx': chart version '*' is a
#     range: mapped as written, with a Waiver of chart-range; Argo CD and Flux each resolve it on
#     their own at sync time, so what runs is not pinned — pin an exact version, and drop the
#     Waiver
# infrastructure/base/memcached.yaml:17: HelmRelease 'memcached': chart version '7.4' is partial,
#     which Flux reads as the range '7.4.x': mapped as that, with a Waiver of chart-range; Argo CD
#     and Flux each resolve it on their own at sync time, so what runs is not pinned — pin an exact
#     version, and drop the Waiver
# infrastructure/base/podinfo.yaml:16: HelmRelease 'podinfo': chart version '6.x' is a range:
#     mapped as written, with a Waiver of chart-range; Argo CD and Flux each resolve it on their
#     own at sync time, so what runs is not pinned — pin an exact version, and drop the Waiver
# infrastructure/base/podinfo.yaml:16: HelmRelease 'podinfo': chart version '~6.7' is a range:
#     mapped as written, with a Waiver of chart-range; Argo CD and Flux each resolve it on their
#     own at sync time, so what runs is not pinned — pin an exact version, and drop the Waiver
# infrastructure/base/redis.yaml:26: HelmRelease 'redis': chart version '>=20.0.0 <21.0.0' is a
#     range: mapped as written, with a Waiver of chart-range; Argo CD and Flux each resolve it on
#     their own at sync time, so what runs is not pinned — pin an exact version, and drop the
#     Waiver

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    SyncPolicy,
    Waiver,
)

fleet = Fleet(
    name="flux-chart-ranges",
    repo="https://github.com/acme/platform-addons",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True, interval="30m", wait=True),
    cascade_delete=True,
    environments=[
        Environment(name="dev"),
        Environment(name="production"),
    ],
    clusters=[
        Cluster(name="dev", env="dev", server="https://kubernetes.default.svc"),
        Cluster(name="production", env="production", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["ingress-nginx", "memcached", "podinfo", "redis"]),
    ],
    apps=[
        App(name="ingress-nginx", project="apps", namespace="ingress-nginx",
            chart=HelmChart(repo="https://kubernetes.github.io/ingress-nginx", name="ingress-nginx",
                            version="*", interval="12h"),
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
        App(name="memcached", project="apps", namespace="memcached",
            chart=HelmChart(repo="https://charts.bitnami.com/bitnami", name="memcached",
                            version="7.4.x", interval="12h"),
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
        App(name="podinfo", project="apps", namespace="podinfo",
            chart=HelmChart(repo="oci://ghcr.io/stefanprodan/charts", name="podinfo",
                            version="6.x"),
            values={"replicaCount": 2},
            per_env={"production": Overrides(chart_version="~6.7")},
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
        App(name="redis", project="apps", namespace="redis",
            chart=HelmChart(repo="https://charts.bitnami.com/bitnami", name="redis",
                            version=">=20.0.0 <21.0.0", interval="12h"),
            values={"architecture": "standalone"},
            per_env={"production": Overrides(chart_version="20.4.1")},
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
    ],
)
