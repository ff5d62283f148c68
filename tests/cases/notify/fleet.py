"""Notify on both engines: the fleet tells Teams of failures, dev marks GitHub commits, prod
tells #prod-alerts of failures and deploys; app api adds an audit webhook for drift and silences
Teams. On Argo CD, subscription annotations and argocd/README.md; on Flux, per cluster, an
ExternalSecret and a Provider per channel and Alerts whose sources are the apps concerned."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      GitHubStatus,
                      HelmChart,
                      Notify,
                      Project,
                      Slack,
                      SyncPolicy,
                      Teams,
                      Webhook,
)

VAULT = "vault"
OPS = Teams(channel="ops", secret=ExternalSecretRef(store=VAULT, key="notify/teams"))
ALERTS = Slack(channel="prod-alerts",
               secret=ExternalSecretRef(store=VAULT, key="notify/slack", property="prod-alerts"))
COMMITS = GitHubStatus(secret=ExternalSecretRef(store=VAULT, key="notify/github",
                                                property="token"))
AUDIT = Webhook(name="audit", secret=ExternalSecretRef(store=VAULT, key="notify/audit"))

fleet = Fleet(
    name="notify",
    repo="https://github.com/acme/notify.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store=VAULT, key="clusters/{cluster}"),
    notify=[Notify(on=["sync_failed", "health_degraded"], to=[OPS])],
    environments=[
        Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True, prune=True),
                    notify=[Notify(on=["sync_failed", "deployed"], to=[COMMITS])]),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True),
                    notify=[Notify(on=["sync_failed", "deployed"], to=[ALERTS])]),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com"),
    ],
    projects=[Project(name="api", namespaces=["api", "cache"],
                      source_repos=["https://github.com/acme/notify.git",
                                    "https://charts.example.com"])],
    apps=[
        App(name="api", project="api", namespace="api", path="apps/api/base",
            notify=[Notify(on=["drift_corrected"], to=[AUDIT]), Notify(on=[], to=[OPS])]),
        App(name="web", project="api", namespace="api", path="apps/api/base"),
        App(name="cache", project="api", namespace="cache",
            chart=HelmChart(repo="https://charts.example.com", name="cache", version="1.2.3"),
            notify=[Notify(on=["deployed", "drift_corrected"], to=[AUDIT])]),
    ],
)
