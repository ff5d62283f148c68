"""The argocd-unmappable fleet, imported by `fleetgen import` from the Argo CD repository it sits
in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from
are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# argocd/api.yaml:1: api on 'dev': Job 'api-migrations' moves from namespace 'db-jobs' to 'api' —
#     fleetgen's namespace= puts every object in it: use namespace=None and name the namespaces in
#     the manifests
# argocd/api.yaml:1: api: source.kustomize.namePrefix not mapped — put it in the folder's
#     kustomization.yaml
# argocd/api.yaml:8: ApplicationSet 'api': spec.strategy not mapped — roll changes through clusters
#     with Environment(rollout=Rollout(steps=...))
# argocd/api.yaml:24: api: sync wave 2 — Argo CD orders Applications by wave only under an app of
#     apps: say the order with depends_on
# argocd/canary.yaml:3: ApplicationSet 'canary': a merge generator whose generators make two
#     parameter sets with the same server (Argo CD refuses it too) — add its apps by hand
# argocd/legacy.yaml:1: AppProject 'default' (Argo CD's built-in project) is renamed 'apps' —
#     fleetgen writes the AppProject of each project: its apps move to 'apps' (rename it in
#     fleet.py at will)
# argocd/legacy.yaml:1: legacy: its source URL carries credentials — not copied, nor the app: give
#     the engines the credentials, not the URL, and add the app by hand
# argocd/monitoring.yaml:1: monitoring: helm.parameters not mapped — write them into values=
# argocd/monitoring.yaml:1: monitoring: helm.skipCrds not mapped — fleetgen has no equivalent: add
#     it by hand if it matters
# argocd/monitoring.yaml:8: Application 'monitoring': spec.revisionHistoryLimit not mapped —
#     fleetgen has no equivalent: add it by hand if it matters
# argocd/monitoring.yaml:16: monitoring: values file 'monitoring/values.yaml' is not in the
#     repository: Argo CD cannot render the app — imported without it: add the file, then put it in
#     values_files=
# argocd/previews.yaml:1: ApplicationSet 'previews': its 'pullRequest' generator is not mapped —
#     add its apps by hand

from fleetgen import (
    App,
    AwsAuth,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Project,
)

fleet = Fleet(
    name="argocd-unmappable",
    repo="https://github.com/acme/api-deploy.git",
    engines=["argocd"],
    create_namespaces=False,
    environments=[
        Environment(name="dev"),
    ],
    clusters=[
        Cluster(name="dev", env="dev", server="https://dev.k8s.example.com:6443",
                labels={"env": "dev"},
                credentials=AwsAuth(cluster_name="dev",
                                    role_arn="arn:aws:iam::111122223333:role/argocd"),
                ca_data=("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVWkdWMkxX"
                         "TnNkWE4wWlhJdFkyRXRabTl5TFhSbGMzUnpNQW9HQ0NxR1NNNDlCQU1DCi0tLS0tRU5EIENF"
                         "UlRJRklDQVRFLS0tLS0K")),
    ],
    projects=[
        Project(name="apps", namespaces=["api", "monitoring"]),
    ],
    apps=[
        App(name="monitoring", project="apps", namespace="monitoring",
            chart=HelmChart(repo="https://prometheus-community.github.io/helm-charts",
                            name="kube-prometheus-stack", version="65.1.0")),
        App(name="api", project="apps", namespace="api", path="apps/api"),
    ],
)
