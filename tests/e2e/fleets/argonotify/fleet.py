"""The loopback fleet of the Argo CD notification test (tests/e2e/test_argocd_notify.py): Argo CD
on its own cluster mgmt (https://kubernetes.default.svc, environment dev) places two Kustomize
apps of this repository; the Webhook channel ``hook`` hears dev's deploys and failed syncs but
quiet's (silenced at the app). On Argo CD the channel is the service ``webhook.hook`` of
argocd-notifications-cm, which the harness writes as a user would (output/argocd/README.md); its
address is the test's receiver on loopback. The harness replaces GIT_URL with its Git server's
URL.
"""

from fleetgen import App, Cluster, Environment, Fleet, Notify, Project, Retry, SyncPolicy, Webhook

HOOK = Webhook(name="hook")

fleet = Fleet(
    name="e2e",
    repo="GIT_URL",
    engines=["argocd"],
    # a failed sync ends Failed at once (Argo CD retries an automated one 5 times by default)
    sync=SyncPolicy(automated=True, prune=True, retry=Retry(limit=0)),
    environments=[
        Environment(name="dev", notify=[Notify(on=["sync_failed", "deployed"], to=[HOOK])])
    ],
    clusters=[Cluster(name="mgmt", env="dev", server="https://kubernetes.default.svc")],
    projects=[Project(name="apps", namespaces=["web", "quiet"])],
    apps=[
        App(name="web", project="apps", namespace="web", path="apps/web"),
        App(
            name="quiet", project="apps", namespace="quiet", path="apps/quiet",
            notify=[Notify(on=[], to=[HOOK])],
        ),
    ],
)
