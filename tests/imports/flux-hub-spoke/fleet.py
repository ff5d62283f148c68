"""The flux-hub-spoke fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# deploy/infra-controllers/cert-manager.yaml:9: dependsOn 'tenants': it makes no app of its own on
#     'production' — add depends_on by hand where the order matters
# deploy/infra-controllers/cert-manager.yaml:9: dependsOn 'tenants': it makes no app of its own on
#     'staging' — add depends_on by hand where the order matters
# deploy/tenants/accounts.yaml:3: Namespace 'production': holds only ServiceAccounts Flux runs as —
#     fleetgen writes a tenant's account where Flux impersonates it (a hub's: in the spoke's
#     namespace on the hub) and needs no such Namespace: create it in an app's folder if anything
#     else uses it
# deploy/tenants/accounts.yaml:3: Namespace 'staging': holds only ServiceAccounts Flux runs as —
#     fleetgen writes a tenant's account where Flux impersonates it (a hub's: in the spoke's
#     namespace on the hub) and needs no such Namespace: create it in an app's folder if anything
#     else uses it
# deploy/tenants/accounts.yaml:14: ClusterRoleBinding 'flux-cluster-admin' binds 'flux-cluster-
#     admin' cluster-wide, which Flux objects run as: no tenant — their apps run as the controller
#     (no project service_account), on a hub's spoke as its kubeconfig's user: check that may do
#     what the account could
# hub/production.yaml:12: Kustomization 'tenants' (followed into the Flux objects it applies): its
#     spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen applies what
#     it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their
#     own settings and depends_on: set those by hand if this timing matters
# hub/production.yaml:23: spoke 'production': its API server is in its kubeconfig — set
#     Cluster(server=...) to its API server (a placeholder now)
# hub/production.yaml:38: Kustomization 'infra-controllers' (followed into the Flux objects it
#     applies): its spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen
#     applies what it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps
#     with their own settings and depends_on: set those by hand if this timing matters
# hub/production.yaml:61: infra-configs on 'production': ConfigMap cert-manager/cluster-settings
#     differs at data.alert_webhook_token — check the app's settings in fleet.py against the
#     original
# hub/production.yaml:84: infra-configs: patches of ConfigMap 'cluster-settings' at
#     /data/alert_webhook_token looks like secret material — not copied: keep it in a Secret
#     (App(secrets=[AppSecret(...)]) from your store) and point the chart or manifests at it
#     (existingSecret, secretKeyRef)
# hub/production.yaml:96: Kustomization 'apps' (followed into the Flux objects it applies): its
#     spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen applies what
#     it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their
#     own settings and depends_on: set those by hand if this timing matters
# hub/staging.yaml:1: Namespace 'staging': a spoke's namespace on the hub, which fleetgen writes
#     without its labels and annotations — fleetgen has no equivalent: add it by hand if it matters
# hub/staging.yaml:14: Kustomization 'tenants' (followed into the Flux objects it applies): its
#     spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen applies what
#     it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their
#     own settings and depends_on: set those by hand if this timing matters
# hub/staging.yaml:25: spoke 'staging': its kubeconfig Secret 'spoke-kubeconfig' is made outside
#     the repository — put its kubeconfig in the store 'cluster-secrets' under 'clusters/staging',
#     property 'kubeconfig', as Fleet(default_credentials=...) says, or set
#     Cluster(credentials=...); and set Cluster(server=...) to its API server (a placeholder now)
# hub/staging.yaml:40: Kustomization 'infra-controllers' (followed into the Flux objects it
#     applies): its spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen
#     applies what it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps
#     with their own settings and depends_on: set those by hand if this timing matters
# hub/staging.yaml:63: infra-configs on 'staging': ConfigMap cert-manager/cluster-settings differs
#     at data.alert_webhook_token — check the app's settings in fleet.py against the original
# hub/staging.yaml:86: infra-configs: patches of ConfigMap 'cluster-settings' at
#     /data/alert_webhook_token looks like secret material — not copied: keep it in a Secret
#     (App(secrets=[AppSecret(...)]) from your store) and point the chart or manifests at it
#     (existingSecret, secretKeyRef)
# hub/staging.yaml:98: Kustomization 'apps' (followed into the Flux objects it applies): its
#     spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen applies what
#     it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their
#     own settings and depends_on: set those by hand if this timing matters

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    FluxOptions,
    HelmChart,
    NamespaceMeta,
    Overrides,
    Patch,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="flux-hub-spoke",
    repo="https://github.com/acme/fleet-hub.git",
    engines=["flux"],
    flux=FluxOptions(mode="hub", hub="hub"),
    sync=SyncPolicy(automated=True, prune=True),
    cascade_delete=True,
    default_credentials=ExternalSecretRef(store="cluster-secrets", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging"),
        Environment(name="production"),
        Environment(name="hub"),
    ],
    clusters=[
        Cluster(name="staging", env="staging", server="https://staging.invalid"),
        Cluster(name="production", env="production", server="https://production.invalid",
                credentials=ExternalSecretRef(store="vault", key="fleet/spokes/production")),
        Cluster(name="hub", env="hub", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps",
                namespaces=["cert-manager", "monitoring"],
                namespace_metadata={
                    "cert-manager": NamespaceMeta(labels={"platform.acme.io/owner": "sre"}),
                }),
        Project(name="flux-restricted",
                namespaces=["podinfo"],
                service_account="flux-restricted",
                namespace_metadata={
                    "podinfo": NamespaceMeta(labels={"platform.acme.io/owner": "web-team"}),
                }),
    ],
    apps=[
        App(name="cert-manager", project="apps", namespace="cert-manager",
            chart=HelmChart(repo="https://charts.jetstack.io", name="cert-manager",
                            version="v1.16.2", install_retries=3, interval="24h"),
            targets=Selector(envs=["staging", "production"]),
            values={"crds": {"enabled": True}},
            sync=SyncPolicy(interval="30m", wait=True)),
        App(name="infra-configs", project="apps", namespace=None,
            path="deploy/infra-configs",
            targets=Selector(envs=["staging", "production"]),
            depends_on=["cert-manager"],
            sync=SyncPolicy(interval="1h", timeout="5m", retry_interval="3m", wait=True),
            per_env={
                "staging": Overrides(patches=[
                                         Patch(target={
                                                   "kind": "ConfigMap",
                                                   "name": "cluster-settings",
                                               },
                                               patch=[
                                                   {
                                                       "op": "replace",
                                                       "path": "/data/cluster_name",
                                                       "value": "staging",
                                                   },
                                                   {
                                                       "op": "replace",
                                                       "path": "/data/dns_zone",
                                                       "value": "staging.acme.example",
                                                   },
                                               ]),
                                         Patch(target={
                                                   "group": "cert-manager.io",
                                                   "kind": "ClusterIssuer",
                                                   "name": "letsencrypt",
                                               },
                                               patch=[
                                                   {
                                                       "op": "replace",
                                                       "path": "/spec/acme/email",
                                                       "value": "platform+staging@acme.example",
                                                   },
                                               ]),
                                     ]),
                "production": Overrides(patches=[
                                            Patch(target={
                                                      "kind": "ConfigMap",
                                                      "name": "cluster-settings",
                                                  },
                                                  patch=[
                                                      {
                                                          "op": "replace",
                                                          "path": "/data/cluster_name",
                                                          "value": "production",
                                                      },
                                                      {
                                                          "op": "replace",
                                                          "path": "/data/dns_zone",
                                                          "value": "production.acme.example",
                                                      },
                                                  ]),
                                            Patch(target={
                                                      "group": "cert-manager.io",
                                                      "kind": "ClusterIssuer",
                                                      "name": "letsencrypt",
                                                  },
                                                  patch=[
                                                      {
                                                          "op": "replace",
                                                          "path": "/spec/acme/email",
                                                          "value": ("platform+production@acme.exam"
                                                                    "ple"),
                                                      },
                                                  ]),
                                        ]),
            }),
        App(name="podinfo", project="flux-restricted", namespace="podinfo",
            chart=HelmChart(repo="oci://ghcr.io/stefanprodan/charts", name="podinfo",
                            version="6.7.1", interval="12h"),
            targets=Selector(envs=["staging", "production"]),
            depends_on=["infra-configs"],
            values={"ingress": {"className": "nginx", "enabled": True}},
            sync=SyncPolicy(interval="30m", wait=True),
            per_env={
                "staging": Overrides(values={
                                         "ingress": {
                                             "hosts": [
                                                 {
                                                     "host": "podinfo.staging.acme.example",
                                                     "paths": [{"path": "/", "pathType": "Prefix"}],
                                                 },
                                             ],
                                         },
                                         "replicaCount": 1,
                                         "ui": {"message": "Hello from staging"},
                                     }),
                "production": Overrides(values={
                                            "hpa": {"enabled": True},
                                            "ingress": {
                                                "hosts": [
                                                    {
                                                        "host": "podinfo.production.acme.example",
                                                        "paths": [
                                                            {"path": "/", "pathType": "Prefix"},
                                                        ],
                                                    },
                                                ],
                                            },
                                            "replicaCount": 3,
                                            "ui": {"message": "Hello from production"},
                                        }),
            }),
        App(name="alerting", project="apps", namespace=None,
            path="deploy/hub/alerting",
            targets=Selector(envs=["hub"]),
            sync=SyncPolicy(interval="30m", wait=False)),
    ],
)
