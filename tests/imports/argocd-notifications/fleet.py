"""The argocd-notifications fleet, imported by `fleetgen import` from the Argo CD repository it
sits in. Review it, then `fleetgen build` compiles it into output/; commit both. The files it came
from are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# argocd/api.yaml:52: ApplicationSet 'api-prod': annotation
#     'notifications.argoproj.io/subscribe.on-sync-running.slack': trigger 'on-sync-running' is not
#     one fleetgen writes — fleetgen writes on-sync-failed, on-health-degraded, on-deployed, on-
#     drift-corrected for Notify's events: keep that subscription as App(annotations=...) by hand
# argocd/notifications-cm.yaml:25: ConfigMap 'argocd-notifications-cm': data.subscriptions (of
#     every Application) not mapped — write them as Fleet(notify=[Notify(...)]) (or on the apps its
#     selectors pick)
# argocd/project.yaml:13: AppProject 'shop': spec.destinations permit servers fleetgen's AppProject
#     does not ('*') — fleetgen's permits the clusters its apps are placed on: set
#     Project(destinations=[Destination(...)]) if Applications made outside fleet.py deploy there
# argocd/worker.yaml:9: Application 'worker-staging': annotation
#     'notifications.argoproj.io/subscriptions': service 'oncall': of type email — fleetgen's
#     channels are Slack, Teams, webhooks, GitHub statuses: keep that subscription as
#     App(annotations=...) by hand
# clusters/prod-eu.yaml:1: cluster Secret 'cluster-prod-eu': its credentials are not copied — put
#     its connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/prod-eu', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)
# clusters/prod-us.yaml:1: cluster Secret 'cluster-prod-us': its credentials are not copied — put
#     its connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/prod-us', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)
# clusters/staging.yaml:1: cluster Secret 'cluster-staging': its credentials are not copied — put
#     its connection config (Argo CD's cluster config JSON) in the store 'cluster-secrets' under
#     'clusters/staging', as Fleet(default_credentials=...) says, or set Cluster(credentials=...)

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Notify,
    Project,
    Selector,
    Slack,
    SyncPolicy,
    Teams,
    Webhook,
)

fleet = Fleet(
    name="argocd-notifications",
    repo="https://github.com/acme/shop-gitops.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True),
    default_credentials=ExternalSecretRef(store="cluster-secrets", key="clusters/{cluster}"),
    notify=[
        Notify(on=["sync_failed"], to=[Slack(channel="platform")]),
    ],
    environments=[
        Environment(name="staging"),
        Environment(name="prod",
                    notify=[Notify(on=["deployed"], to=[Slack(channel="prod-deploys")])]),
    ],
    clusters=[
        Cluster(name="staging", env="staging", server="https://staging.k8s.example.com",
                labels={"env": "staging"}),
        Cluster(name="prod-eu", env="prod", server="https://prod-eu.k8s.example.com",
                labels={"env": "prod"}),
        Cluster(name="prod-us", env="prod", server="https://prod-us.k8s.example.com",
                labels={"env": "prod"}),
    ],
    projects=[
        Project(name="shop",
                namespaces=["shop"],
                description="The shop's services",
                source_repos=["https://github.com/acme/shop-gitops.git"]),
    ],
    apps=[
        App(name="worker-staging", project="shop", namespace="shop",
            path="apps/worker",
            targets=Selector(envs=["staging"]),
            notify=[Notify(on=["health_degraded"], to=[Teams(channel="ops")])]),
        App(name="api", project="shop", namespace="shop",
            path="apps/api",
            notify=[Notify(on=["drift_corrected"], to=[Webhook(name="audit")])]),
        App(name="web", project="shop", namespace="shop", path="apps/web"),
    ],
)
