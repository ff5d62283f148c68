"""The argocd-autopilot fleet, imported by `fleetgen import` from the Argo CD repository it sits
in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from
are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# bootstrap/argo-cd.yaml:1: AppProject 'default' (Argo CD's built-in project) is renamed 'apps' —
#     fleetgen writes the AppProject of each project: its apps move to 'apps' (rename it in
#     fleet.py at will)
# bootstrap/argo-cd.yaml:1: argo-cd on 'in-cluster': not compared: its folder reads remote bases
#     (bootstrap/argo-cd/kustomization.yaml:17), which import does not fetch — compare what it
#     deploys with the original by hand
# bootstrap/cluster-resources.yaml:13: ApplicationSet 'cluster-resources':
#     spec.generators[0].git.requeueAfterSeconds not mapped — fleetgen's ApplicationSets generate
#     from what fleet.py lists, not from Git: an app for a folder or file added later is added to
#     fleet.py
# bootstrap/cluster-resources.yaml:21: ApplicationSet 'cluster-resources': spec.syncPolicy not
#     mapped — fleetgen's ApplicationSets keep their Applications' resources as
#     Fleet(cascade_delete=...) says
# bootstrap/root.yaml:1: Application 'root' not mapped (an app of apps: the Applications it holds
#     are imported, and fleetgen writes its own root Application) — check that fleetgen's
#     bootstrap.yaml (synced automatically, pruning) does what its syncPolicy did
# projects/production.yaml:5: AppProject 'production': metadata.annotations not mapped (argocd-
#     autopilot.argoproj-labs.io/default-dest-server, argocd.argoproj.io/sync-options,
#     argocd.argoproj.io/sync-wave) — fleetgen writes its own AppProjects, without them: nothing to
#     do unless a tool reads them
# projects/production.yaml:13: AppProject 'production': spec.clusterResourceWhitelist permits
#     cluster-scoped kinds by pattern ('*/*') — fleetgen derives the project's cluster-scoped kinds
#     from its bases; list a chart's in Project(cluster_resources=...)
# projects/production.yaml:17: AppProject 'production': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there
# projects/production.yaml:20: AppProject 'production': spec.namespaceResourceWhitelist not mapped
#     — fleetgen has no equivalent: add it by hand if it matters
# projects/production.yaml:31: ApplicationSet 'production': metadata.annotations not mapped
#     (argocd.argoproj.io/sync-wave) — fleetgen writes its own ApplicationSets, without them:
#     nothing to do unless a tool reads them
# projects/production.yaml:41: ApplicationSet 'production':
#     spec.generators[0].git.requeueAfterSeconds not mapped — fleetgen's ApplicationSets generate
#     from what fleet.py lists, not from Git: an app for a folder or file added later is added to
#     fleet.py
# projects/production.yaml:48: ApplicationSet 'production': spec.generators[1] makes no Application
#     from what the repository holds — add its apps by hand if it deploys any
# projects/production.yaml:52: ApplicationSet 'production':
#     spec.generators[1].git.requeueAfterSeconds not mapped — fleetgen's ApplicationSets generate
#     from what fleet.py lists, not from Git: an app for a folder or file added later is added to
#     fleet.py
# projects/production.yaml:66: ApplicationSet 'production': spec.syncPolicy not mapped — fleetgen's
#     ApplicationSets keep their Applications' resources as Fleet(cascade_delete=...) says
# projects/staging.yaml:5: AppProject 'staging': metadata.annotations not mapped (argocd-
#     autopilot.argoproj-labs.io/default-dest-server, argocd.argoproj.io/sync-options,
#     argocd.argoproj.io/sync-wave) — fleetgen writes its own AppProjects, without them: nothing to
#     do unless a tool reads them
# projects/staging.yaml:13: AppProject 'staging': spec.clusterResourceWhitelist permits cluster-
#     scoped kinds by pattern ('*/*') — fleetgen derives the project's cluster-scoped kinds from
#     its bases; list a chart's in Project(cluster_resources=...)
# projects/staging.yaml:17: AppProject 'staging': spec.destinations permit servers fleetgen's
#     AppProject does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there
# projects/staging.yaml:20: AppProject 'staging': spec.namespaceResourceWhitelist not mapped —
#     fleetgen has no equivalent: add it by hand if it matters
# projects/staging.yaml:31: ApplicationSet 'staging': metadata.annotations not mapped
#     (argocd.argoproj.io/sync-wave) — fleetgen writes its own ApplicationSets, without them:
#     nothing to do unless a tool reads them
# projects/staging.yaml:41: ApplicationSet 'staging': spec.generators[0].git.requeueAfterSeconds
#     not mapped — fleetgen's ApplicationSets generate from what fleet.py lists, not from Git: an
#     app for a folder or file added later is added to fleet.py
# projects/staging.yaml:48: ApplicationSet 'staging': spec.generators[1] makes no Application from
#     what the repository holds — add its apps by hand if it deploys any
# projects/staging.yaml:52: ApplicationSet 'staging': spec.generators[1].git.requeueAfterSeconds
#     not mapped — fleetgen's ApplicationSets generate from what fleet.py lists, not from Git: an
#     app for a folder or file added later is added to fleet.py
# projects/staging.yaml:66: ApplicationSet 'staging': spec.syncPolicy not mapped — fleetgen's
#     ApplicationSets keep their Applications' resources as Fleet(cascade_delete=...) says

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    IgnoreDifference,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="argocd-autopilot",
    repo="https://github.com/acme/gitops.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, self_heal=True, allow_empty=True),
    create_namespaces=False,
    environments=[
        Environment(name="in-cluster"),
    ],
    clusters=[
        Cluster(name="in-cluster", env="in-cluster", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["argocd", "podinfo-production", "podinfo-staging"]),
        Project(name="production", namespaces=["*"], description="production project"),
        Project(name="staging", namespaces=["*"], description="staging project"),
    ],
    apps=[
        App(name="argo-cd", project="apps", namespace="argocd",
            path="bootstrap/argo-cd",
            sync=SyncPolicy(prune=True, sync_options=["allowEmpty=true"]),
            ignore_differences=[
                IgnoreDifference(group="argoproj.io", kind="Application",
                                 json_pointers=["/status"]),
            ],
            labels={
                "app.kubernetes.io/managed-by": "argocd-autopilot",
                "app.kubernetes.io/name": "argo-cd",
            }),
        App(name="cluster-resources", project="apps", namespace=None,
            path="bootstrap/cluster-resources/in-cluster",
            ignore_differences=[
                IgnoreDifference(group="argoproj.io", kind="Application",
                                 json_pointers=["/status"]),
            ],
            labels={
                "app.kubernetes.io/managed-by": "argocd-autopilot",
                "app.kubernetes.io/name": "cluster-resources-in-cluster",
            }),
        App(name="production-podinfo", project="production", namespace="podinfo-production",
            path="apps/podinfo/overlays/production",
            sync=SyncPolicy(prune=True),
            ignore_differences=[
                IgnoreDifference(group="argoproj.io", kind="Application",
                                 json_pointers=["/status"]),
            ],
            labels={
                "app.kubernetes.io/managed-by": "argocd-autopilot",
                "app.kubernetes.io/name": "podinfo",
            }),
        App(name="staging-podinfo", project="staging", namespace="podinfo-staging",
            path="apps/podinfo/overlays/staging",
            sync=SyncPolicy(prune=True),
            ignore_differences=[
                IgnoreDifference(group="argoproj.io", kind="Application",
                                 json_pointers=["/status"]),
            ],
            labels={
                "app.kubernetes.io/managed-by": "argocd-autopilot",
                "app.kubernetes.io/name": "podinfo",
            }),
    ],
)
