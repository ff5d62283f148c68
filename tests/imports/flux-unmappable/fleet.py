"""The flux-unmappable fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# apps/db/release.yaml:27: HelmRelease 'postgresql': spec.maxHistory not mapped — fleetgen has no
#     equivalent: add it by hand if it matters
# apps/db/release.yaml:29: HelmRelease 'postgresql': spec.install.crds not mapped — fleetgen's
#     releases install CRDs (Create) and retry as HelmChart(install_retries) says: set what else
#     matters by hand
# apps/db/release.yaml:31: HelmRelease 'postgresql': valuesFrom ConfigMap 'postgresql-tuning' not
#     mapped — copy the values into values= (a ConfigMap's) or keep secret ones in the chart's
#     existingSecret settings
# apps/db/release.yaml:34: postgresql: values.auth.password looks like secret material — not
#     copied: keep it in a Secret (App(secrets=[AppSecret(...)]) from your store) and point the
#     chart or manifests at it (existingSecret, secretKeyRef)
# apps/db/release.yaml:34: postgresql: values.auth.postgresPassword looks like secret material —
#     not copied: keep it in a Secret (App(secrets=[AppSecret(...)]) from your store) and point the
#     chart or manifests at it (existingSecret, secretKeyRef)
# apps/db/release.yaml:59: HelmRelease 'redis': chart version '20.x' is a range: mapped as written,
#     with a Waiver of chart-range; Argo CD and Flux each resolve it on their own at sync time, so
#     what runs is not pinned — pin an exact version, and drop the Waiver
# clusters/prod-eu/apps.yaml:13: Kustomization 'web': spec.force not mapped — fleetgen has no
#     equivalent: add it by hand if it matters
# clusters/prod-eu/apps.yaml:15: Kustomization 'web': postBuild.substitute on a plain folder —
#     fleetgen applies a plain folder as it is: add a kustomization.yaml to apps/web and rerun
#     import, or write the values into the manifests
# clusters/prod-eu/apps.yaml:18: Kustomization 'web': spec.decryption not mapped — fleetgen does
#     not decrypt SOPS: keep the secrets in a store and use App(secrets=[AppSecret(...)])
# clusters/prod-eu/artifacts.yaml:1: ArtifactGenerator 'apps': the imported fleet reads the folders
#     its artifacts copy from the repository itself, so each app reconciles at every commit, where
#     its artifact 'apps' changed only with its own files — nothing to do (a Kustomization whose
#     files did not change applies nothing new); fleetgen writes no ArtifactGenerator: remove it
#     once the engines read output/
# clusters/prod-eu/registry-credentials.yaml:1: Secret 'registry-token' applied from the cluster
#     folder itself — fleetgen applies apps, not loose objects: move it into a folder of its own
#     and add that folder as an app
# docs/runbook.yaml:3: YAML that cannot be read (did not find expected ',' or '}') — fix the file,
#     rerun

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Project,
    SyncPolicy,
    Waiver,
)

fleet = Fleet(
    name="flux-unmappable",
    repo="https://gitlab.example.com/acme/shop-deploy.git",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True),
    cascade_delete=True,
    environments=[
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="prod-eu", env="prod", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["db", "web"]),
    ],
    apps=[
        App(name="web", project="apps", namespace=None,
            path="apps/web",
            sync=SyncPolicy(interval="10m", wait=False)),
        App(name="postgresql", project="apps", namespace="db",
            chart=HelmChart(repo="oci://registry-1.docker.io/bitnamicharts", name="postgresql",
                            version="16.4.5", interval="12h"),
            values={"auth": {"username": "shop"}, "primary": {"persistence": {"size": "20Gi"}}},
            sync=SyncPolicy(interval="1h", wait=True)),
        App(name="redis", project="apps", namespace="db",
            chart=HelmChart(repo="https://charts.bitnami.com/bitnami", name="redis",
                            version="20.x"),
            sync=SyncPolicy(interval="1h", wait=True),
            waivers=[Waiver(rule="chart-range", reason="imported: the original follows a range")]),
    ],
)
