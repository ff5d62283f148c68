"""The argocd-values-refs fleet, imported by `fleetgen import` from the Argo CD repository it sits
in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from
are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# apps/redis.yaml:15: redis: helm.valueFiles[0] is 'redis/prod.yaml' of another repository
#     (https://github.com/acme/cache-settings.git, revision 'main'): not mapped — copy its values
#     into values= (or the file into this repository, values_files=)
# appsets/cert-manager.yaml:27: cert-manager: values file 'values/cert-manager/ap.yaml' is not in
#     the repository: Argo CD cannot render the app — imported without it: add the file, then put
#     it in values_files=
# projects/platform.yaml:16: AppProject 'platform': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there

from fleetgen import (
    App,
    AwsAuth,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="argocd-values-refs",
    repo="https://github.com/acme/platform.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev"),
        Environment(name="staging"),
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.k8s.acme.example",
                labels={"env": "dev"},
                annotations={"acme.io/region": "eu"},
                credentials=AwsAuth(cluster_name="dev-1",
                                    role_arn="arn:aws:iam::444455556666:role/argocd-dev-1"),
                ca_data=("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClRVbEpRbmw2UTBOQldFZG5RWGRKUWtGblNW"
                         "VlpWMDUwV2xNeGQySkhSakJhYlRsNVlsTXhNRnBZVGpCTVYwNW9UVUZ2UjBORGNVZFRUVFE1"
                         "Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K")),
        Cluster(name="staging-1", env="staging", server="https://staging-1.k8s.acme.example",
                labels={"env": "staging"},
                annotations={"acme.io/region": "ap"},
                credentials=AwsAuth(cluster_name="staging-1",
                                    role_arn="arn:aws:iam::444455556666:role/argocd-staging-1"),
                ca_data=("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClRVbEpRbmw2UTBOQldFZG5RWGRKUWtGblNW"
                         "VlpWMDUwV2xNeGQySkhSakJhYlRsNVlsTXhNRnBZVGpCTVYwNW9UVUZ2UjBORGNVZFRUVFE1"
                         "Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K")),
        Cluster(name="prod-eu", env="prod", server="https://prod-eu.k8s.acme.example",
                labels={"env": "prod"},
                annotations={"acme.io/region": "eu"},
                credentials=AwsAuth(cluster_name="prod-eu",
                                    role_arn="arn:aws:iam::444455556666:role/argocd-prod-eu"),
                ca_data=("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClRVbEpRbmw2UTBOQldFZG5RWGRKUWtGblNW"
                         "VlpWMDUwV2xNeGQySkhSakJhYlRsNVlsTXhNRnBZVGpCTVYwNW9UVUZ2UjBORGNVZFRUVFE1"
                         "Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K")),
        Cluster(name="prod-us", env="prod", server="https://prod-us.k8s.acme.example",
                labels={"env": "prod"},
                annotations={"acme.io/region": "us"},
                credentials=AwsAuth(cluster_name="prod-us",
                                    role_arn="arn:aws:iam::444455556666:role/argocd-prod-us"),
                ca_data=("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClRVbEpRbmw2UTBOQldFZG5RWGRKUWtGblNW"
                         "VlpWMDUwV2xNeGQySkhSakJhYlRsNVlsTXhNRnBZVGpCTVYwNW9UVUZ2UjBORGNVZFRUVFE1"
                         "Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K")),
    ],
    projects=[
        Project(name="platform",
                namespaces=["*"],
                description="Platform add-ons, their values kept in this repository",
                source_repos=[
                    "https://github.com/acme/platform.git",
                    "https://github.com/acme/cache-settings.git",
                    "https://stefanprodan.github.io/podinfo",
                    "https://kubernetes.github.io/ingress-nginx",
                    "https://charts.jetstack.io",
                    "https://charts.bitnami.com/bitnami",
                ]),
    ],
    apps=[
        App(name="guestbook", project="platform", namespace="guestbook",
            path="guestbook",
            targets=Selector(envs=["dev"])),
        App(name="hello", project="platform", namespace="hello",
            chart=HelmChart(path="charts/hello",
                            values_files=[
                                "charts/hello/values-common.yaml",
                                "values/hello/dev.yaml",
                            ]),
            targets=Selector(envs=["dev"])),
        App(name="cert-manager", project="platform", namespace="cert-manager",
            chart=HelmChart(repo="https://charts.jetstack.io", name="cert-manager",
                            version="v1.16.1"),
            values={"crds": {"enabled": True}},
            per_env={"dev": Overrides(values_files=["values/cert-manager/eu.yaml"])},
            per_cluster={
                "prod-eu": Overrides(values_files=["values/cert-manager/eu.yaml"]),
                "prod-us": Overrides(values_files=["values/cert-manager/us.yaml"]),
            }),
        App(name="ingress-nginx", project="platform", namespace="ingress-nginx",
            chart=HelmChart(repo="https://kubernetes.github.io/ingress-nginx", name="ingress-nginx",
                            version="4.11.3", values_files=["values/ingress-nginx/common.yaml"]),
            targets=Selector(envs=["staging", "prod"]),
            per_env={
                "staging": Overrides(values_files=["values/ingress-nginx/staging.yaml"]),
                "prod": Overrides(values_files=["values/ingress-nginx/prod.yaml"]),
            },
            per_cluster={
                "prod-eu": Overrides(values_files=["values/ingress-nginx/clusters/prod-eu.yaml"]),
            }),
        App(name="podinfo", project="platform", namespace="podinfo",
            chart=HelmChart(repo="https://stefanprodan.github.io/podinfo", name="podinfo",
                            version="6.7.1",
                            values_files=[
                                "values/podinfo/common.yaml",
                                "values/podinfo/prod.yaml",
                            ]),
            targets=Selector(clusters=["prod-eu"]),
            values={"ui": {"message": "served by prod-eu"}}),
        App(name="redis", project="platform", namespace="redis",
            chart=HelmChart(repo="https://charts.bitnami.com/bitnami", name="redis",
                            version="20.3.0"),
            targets=Selector(clusters=["prod-us"]),
            values={"architecture": "standalone"}),
    ],
)
