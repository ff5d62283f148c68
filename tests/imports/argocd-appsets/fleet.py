"""The argocd-appsets fleet, imported by `fleetgen import` from the Argo CD repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# appsets/edge.yaml:1: edge-cache: no syncOption CreateNamespace=true, which other Applications
#     here have — fleetgen creates every app's namespace (Fleet(create_namespaces=True)): check
#     that is fine for this one
# appsets/edge.yaml:23: edge-cache: AppProject 'platform' does not permit its destination (cluster
#     'prod-eu', namespace 'guestbook'): Argo CD refuses to sync it — fleetgen's AppProject permits
#     each app's namespaces on the clusters it is placed on: check the app belongs to the project
# appsets/edge.yaml:23: edge-cache: AppProject 'platform' does not permit its destination (cluster
#     'staging-1', namespace 'guestbook'): Argo CD refuses to sync it — fleetgen's AppProject
#     permits each app's namespaces on the clusters it is placed on: check the app belongs to the
#     project
# appsets/metrics.yaml:3: metrics: no syncOption CreateNamespace=true, which other Applications
#     here have — fleetgen creates every app's namespace (Fleet(create_namespaces=True)): check
#     that is fine for this one
# bootstrap/hello.yaml:20: hello: AppProject 'platform' does not permit its destination (cluster
#     'prod-eu', namespace 'hello'): Argo CD refuses to sync it — fleetgen's AppProject permits
#     each app's namespaces on the clusters it is placed on: check the app belongs to the project
# bootstrap/root.yaml:1: Application 'root' not mapped (an app of apps: the Applications it holds
#     are imported, and fleetgen writes its own root Application) — check that fleetgen's
#     bootstrap.yaml (synced automatically, pruning) does what its syncPolicy did
# clusters/prod-eu.yaml:1: cluster Secret 'cluster-prod-eu': its credentials are not copied — put
#     its connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/prod-eu', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)
# clusters/prod-us.yaml:1: cluster Secret 'cluster-prod-us': its credentials are not copied — put
#     its connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/prod-us', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)
# clusters/staging-1.yaml:1: cluster 'staging-1': annotation acme.io/api-token looks like secret
#     material — not copied: keep it in a Secret (App(secrets=[AppSecret(...)]) from your store)
#     and point the chart or manifests at it (existingSecret, secretKeyRef)
# clusters/staging-1.yaml:1: cluster Secret 'cluster-staging-1': its credentials are not copied —
#     put its connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets'
#     under 'clusters/staging-1', as Fleet(default_credentials=...) says, or set
#     Cluster(credentials=...)
# projects/platform.yaml:11: AppProject 'platform': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there
# projects/team-a.yaml:11: AppProject 'team-a': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    IgnoreDifference,
    Overrides,
    Project,
    Role,
    Selector,
    SyncPolicy,
    SyncWindow,
)

fleet = Fleet(
    name="argocd-appsets",
    repo="https://github.com/acme/argo-fleet.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True, self_heal=True),
    default_credentials=ExternalSecretRef(store="cluster-secrets", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging"),
        Environment(name="prod"),
        Environment(name="in-cluster"),
    ],
    clusters=[
        Cluster(name="staging-1", env="staging", server="https://staging-1.k8s.example.com",
                labels={"env": "staging", "region": "eu"},
                annotations={"acme.io/owner": "platform-team"}),
        Cluster(name="prod-eu", env="prod", server="https://prod-eu.k8s.example.com",
                labels={"env": "prod", "region": "eu"}),
        Cluster(name="prod-us", env="prod", server="https://prod-us.k8s.example.com",
                labels={"env": "prod", "region": "us"}),
        Cluster(name="in-cluster", env="in-cluster", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="platform",
                namespaces=["guestbook", "hello", "ingress-nginx", "monitoring"],
                description="Cluster add-ons run by the platform team",
                cluster_resources=[["", "Namespace"]]),
        Project(name="team-a",
                namespaces=["team-a-*"],
                description="Team A's services",
                source_repos=["https://github.com/acme/argo-fleet.git"],
                roles=[
                    Role(name="deployer", description="Team A syncs its own apps",
                         policies=["p, proj:team-a:deployer, applications, sync, team-a/*, allow"],
                         groups=["acme:team-a"]),
                ],
                sync_windows=[
                    SyncWindow(kind="deny", schedule="0 22 * * *", duration="8h",
                               applications=["*"]),
                ]),
    ],
    apps=[
        App(name="ingress-nginx", project="platform", namespace="ingress-nginx",
            chart=HelmChart(repo="https://kubernetes.github.io/ingress-nginx", name="ingress-nginx",
                            version="4.11.3"),
            targets=Selector(envs=["staging", "prod"]),
            values={"controller": {"replicaCount": 2}},
            sync=SyncPolicy(sync_options=["ServerSideApply=true"]),
            per_label={
                "region=eu": Overrides(values={"controller": {"config": {"region": "eu"}}}),
                "region=us": Overrides(values={"controller": {"config": {"region": "us"}}}),
            },
            cascade_delete=True),
        App(name="edge-cache", project="platform", namespace="guestbook",
            path="guestbook",
            targets=Selector(match_labels={"region": "eu"})),
        App(name="hello", project="platform", namespace="hello",
            chart=HelmChart(path="charts/hello", values_files=["charts/hello/values-prod.yaml"]),
            targets=Selector(clusters=["prod-eu"]),
            values={"message": "hello from prod"},
            cascade_delete=True),
        App(name="metrics", project="platform", namespace="monitoring",
            chart=HelmChart(repo="https://prometheus-community.github.io/helm-charts",
                            name="kube-state-metrics", version="5.27.0"),
            targets=Selector(envs=["prod"]),
            per_label={
                "region=eu": Overrides(values={"replicas": "3"}),
                "region=us": Overrides(values={"replicas": "1"}),
            }),
        App(name="web", project="team-a", namespace="team-a-web",
            path="apps/team-a/web",
            targets=Selector(envs=["prod"]),
            ignore_differences=[
                IgnoreDifference(group="apps", kind="Deployment", json_pointers=["/spec/replicas"]),
            ],
            cascade_delete=True),
        App(name="worker", project="team-a", namespace="team-a-worker",
            path="apps/team-a/worker",
            targets=Selector(envs=["prod"]),
            ignore_differences=[
                IgnoreDifference(group="apps", kind="Deployment", json_pointers=["/spec/replicas"]),
            ],
            cascade_delete=True),
        App(name="guestbook", project="platform", namespace="guestbook",
            path="guestbook",
            targets=Selector(envs=["in-cluster"]),
            cascade_delete=True),
    ],
)
