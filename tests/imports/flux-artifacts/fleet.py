"""The flux-artifacts fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# clusters/dev/artifacts.yaml:1: ArtifactGenerator 'shop': the imported fleet reads the folders its
#     artifacts copy from the repository itself, so each app reconciles at every commit, where its
#     artifacts 'services', 'status-chart' changed only with their own files — nothing to do (a
#     Kustomization whose files did not change applies nothing new); fleetgen writes no
#     ArtifactGenerator: remove it once the engines read output/
# clusters/dev/platform.yaml:7: Kustomization 'ingress' (followed into the Flux objects it
#     applies): its spec.interval, spec.wait not kept — fleetgen applies what it holds with flux
#     bootstrap's Kustomization (10m, prune, no wait), and its apps with their own settings and
#     depends_on: set those by hand if this timing matters
# clusters/dev/status-page.yaml:10: HelmRelease 'status-page': its chart is ExternalArtifact
#     'status-chart', a copy of the repository's folder 'charts/status': not mapped — add the app
#     by hand with HelmChart(path='charts/status'); fleetgen's release upgrades when the chart's
#     version changes, helm-controller's did on every change of the artifact
# clusters/prod/artifacts.yaml:1: ArtifactGenerator 'shop': the imported fleet reads the folders
#     its artifacts copy from the repository itself, so each app reconciles at every commit, where
#     its artifacts 'services', 'dashboards' changed only with their own files — nothing to do (a
#     Kustomization whose files did not change applies nothing new); fleetgen writes no
#     ArtifactGenerator: remove it once the engines read output/
# clusters/prod/artifacts.yaml:31: ArtifactGenerator 'shop': artifact 'dashboards' merges YAML
#     files (strategy Merge), which makes files no repository folder holds — commit the files it
#     makes and copy them as they are, then rerun import; or add the apps reading it by hand
# clusters/prod/dashboards.yaml:9: Kustomization 'dashboards': ExternalArtifact 'dashboards' is no
#     folder of the repository ('settings.yaml' is merged from several files (strategy Merge of
#     'dashboards/prod/settings.yaml'), in no folder of the repository) — point the Kustomization
#     at the repository's folder (sourceRef GitRepository flux-system) and rerun import, or add the
#     app by hand
# clusters/prod/platform.yaml:7: Kustomization 'ingress' (followed into the Flux objects it
#     applies): its spec.interval, spec.wait not kept — fleetgen applies what it holds with flux
#     bootstrap's Kustomization (10m, prune, no wait), and its apps with their own settings and
#     depends_on: set those by hand if this timing matters

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="flux-artifacts",
    repo="https://github.com/acme/shop-fleet",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True, interval="30m"),
    cascade_delete=True,
    environments=[
        Environment(name="dev"),
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="dev", env="dev", server="https://kubernetes.default.svc"),
        Cluster(name="prod", env="prod", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["ingress", "monitoring", "shop"]),
    ],
    apps=[
        App(name="dashboards", project="apps", namespace=None,
            path="dashboards/base",
            targets=Selector(envs=["dev"]),
            sync=SyncPolicy(wait=False)),
        App(name="ingress-nginx", project="apps", namespace="ingress",
            chart=HelmChart(repo="https://kubernetes.github.io/ingress-nginx", name="ingress-nginx",
                            version="4.11.3", interval="12h"),
            values={"controller": {"replicaCount": 2, "service": {"type": "LoadBalancer"}}},
            sync=SyncPolicy(wait=True)),
        App(name="shop-dev", project="apps", namespace="shop",
            path="services/dev",
            targets=Selector(envs=["dev"]),
            depends_on=["ingress-nginx"],
            sync=SyncPolicy(retry_interval="2m", wait=True)),
        App(name="shop-prod", project="apps", namespace="shop",
            path="services/prod",
            targets=Selector(envs=["prod"]),
            depends_on=["ingress-nginx"],
            sync=SyncPolicy(retry_interval="2m", wait=True)),
    ],
)
