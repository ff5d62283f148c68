"""The flux-notifications fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# notifications/base/github.yaml:10: Provider 'github': its token is in a Secret (spec.secretRef)
#     import does not read (made outside the repository, or kept in it) — put it in the store
#     'notify-secrets' under 'notify/github', as the channel's secret=ExternalSecretRef(...) says,
#     or name the entry that holds it
# notifications/base/github.yaml:17: Alert 'commits': eventSeverity info without inclusionList also
#     sends every other event of its sources (progress, dependencies, reconciliations) — fleetgen's
#     Alerts send Notify's events only: check that is enough
# notifications/base/slack.yaml:34: Alert 'failures': spec.summary not mapped — fleetgen has no
#     equivalent: add it by hand if it matters
# notifications/base/slack.yaml:43: Alert 'failures': eventSources[2]: GitRepository events:
#     fleetgen's Alerts send those of Kustomizations and HelmReleases: not mapped — fleetgen's
#     Alerts send Notify's events only: add it by hand if it matters
# notifications/production/deploys.yaml:45: Alert 'deploys': exclusionList[0] matches no message of
#     the events fleetgen sends: not mapped — fleetgen's Alerts send Notify's events only: add it
#     by hand if it matters
# notifications/production/pager.yaml:2: Provider 'pager' not mapped (type 'pagerduty': fleetgen's
#     channels are Slack, Teams, webhooks, GitHub statuses) — fleetgen's Alerts send Notify's
#     events only: add it by hand if it matters
# notifications/production/pager.yaml:8: Provider 'pager': spec.address is written in the Provider:
#     not copied — keep it in the store entry the channel's secret=ExternalSecretRef(...) names
# notifications/production/pager.yaml:11: Alert 'pages' not mapped (its Provider 'pager' is not) —
#     fleetgen's Alerts send Notify's events only: add it by hand if it matters

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
)

fleet = Fleet(
    name="flux-notifications",
    repo="https://github.com/acme/shop-flux",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True),
    cascade_delete=True,
    notify=[
        Notify(on=["sync_failed", "health_degraded"],
               to=[
                   Slack(channel="platform",
                         secret=ExternalSecretRef(store="vault", key="notify/slack",
                                                  property="platform")),
               ]),
    ],
    environments=[
        Environment(name="staging"),
        Environment(name="production",
                    notify=[
                        Notify(on=["deployed"],
                               to=[
                                   Slack(channel="prod-deploys",
                                         secret=ExternalSecretRef(store="vault", key="notify/slack",
                                                                  property="prod-deploys")),
                               ]),
                    ]),
    ],
    clusters=[
        Cluster(name="staging", env="staging", server="https://kubernetes.default.svc"),
        Cluster(name="production", env="production", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["redis", "shop"]),
    ],
    apps=[
        App(name="web", project="apps", namespace="shop",
            path="apps/web",
            sync=SyncPolicy(interval="10m", wait=False),
            notify=[
                Notify(on=["sync_failed", "health_degraded", "deployed"],
                       to=[
                           GitHubStatus(secret=ExternalSecretRef(store="notify-secrets",
                                                                 key="notify/github")),
                       ]),
            ]),
        App(name="redis", project="apps", namespace="redis",
            chart=HelmChart(repo="oci://registry-1.docker.io/bitnamicharts", name="redis",
                            version="20.6.2"),
            values={"architecture": "standalone"},
            sync=SyncPolicy(interval="30m", wait=True)),
    ],
)
