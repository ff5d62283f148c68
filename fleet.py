"""The example fleet: three environments, five clusters, seven apps (two Helm charts), three
projects.

Each placement has one engine: dev runs on Flux (each cluster pulls its own changes), staging and
prod on Argo CD (prod rolls out in canary waves, which an ApplicationSet orders).

Run `fleetgen build` next to this file to regenerate output/.
"""

from fleetgen import (
    App,
    AppSecret,
    AwsAuth,
    Cluster,
    ClusterVar,
    Environment,
    ExternalSecretRef,
    Fleet,
    FluxOptions,
    HelmChart,
    IgnoreDifference,
    Image,
    NamespaceMeta,
    Notify,
    Overrides,
    Patch,
    Project,
    Retry,
    Rollout,
    Selector,
    Slack,
    Step,
    SyncPolicy,
)

REPO = "https://github.com/acme/fleet.git"
JETSTACK = "https://charts.jetstack.io"

# The EKS clusters' CA bundles (public, base64 PEM), as printed by
# `aws eks describe-cluster --name NAME --query cluster.certificateAuthority.data --output text`:
# Argo CD verifies their API servers against these (IAM credentials carry no CA).
PROD_EAST_CA = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJmekNDQVNXZ0F3SUJBZ0lVUDA4SGYrdytoZEx2M2F5"
    "c3lqN01UZ3YwOE04d0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWVG"
    "dzB5TmpFeE16QXlNRFV6TXpaYUZ3MHpOakV4TWpjeQpNRFV6TXpaYU1CVXhFekFSQmdOVkJBTU1DbXQxWW1W"
    "eWJtVjBaWE13V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPClBRTUJCd05DQUFUUmVLOFprWGQrSm5hUWl4UGlJ"
    "OTJ0R25VZXBHR0pkdFNJTHhGTzRIUkhFeTF6T3RISFZ3cEQKQ1g1cjMxN202MWQ4OFFuNzZ3dVlDM1BaRUpL"
    "MWk2VEtvMU13VVRBZEJnTlZIUTRFRmdRVWtwY20zWGRFaU5FZworOTFYWW5xeGN0LzRGUVl3SHdZRFZSMGpC"
    "Qmd3Rm9BVWtwY20zWGRFaU5FZys5MVhZbnF4Y3QvNEZRWXdEd1lEClZSMFRBUUgvQkFVd0F3RUIvekFLQmdn"
    "cWhrak9QUVFEQWdOSUFEQkZBaUVBOFd0ZnVELzdhK0tpYUpqcGw1TzIKa0lFeDdKVGpVRlMxbERSSitPQ0ZB"
    "Mm9DSURtOWNHT2dSUzRkNXZ6VTAwY3M5U09qcTlWVTFwZDJqTXpJRkpvdwpobU0vCi0tLS0tRU5EIENFUlRJ"
    "RklDQVRFLS0tLS0K"
)

PROD_WEST_CA = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnRENDQVNXZ0F3SUJBZ0lVV3M5Rk1zSldyK20rNVFB"
    "QThYbXdRemo4WGRFd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWVG"
    "dzB5TmpFeE16QXlNRFV6TXpaYUZ3MHpOakV4TWpjeQpNRFV6TXpaYU1CVXhFekFSQmdOVkJBTU1DbXQxWW1W"
    "eWJtVjBaWE13V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPClBRTUJCd05DQUFUQnp2V1dOZ2NsU3MrT1BSMlJC"
    "UENpcGRNeXZFVnJ3Q0ZjelZUY2dEOWxWZFZmWFlRZWFZelYKdTRMSlFvMzdhSmxUTERnbDhFb3hMZWNmQkEz"
    "RUw3MlpvMU13VVRBZEJnTlZIUTRFRmdRVUU3Ym5RRm16YWpVSgoxckdlcnNNM28zK0tqRTR3SHdZRFZSMGpC"
    "Qmd3Rm9BVUU3Ym5RRm16YWpVSjFyR2Vyc00zbzMrS2pFNHdEd1lEClZSMFRBUUgvQkFVd0F3RUIvekFLQmdn"
    "cWhrak9QUVFEQWdOSkFEQkdBaUVBOHl0U05yb3paQ0x0ck8vT0RRakUKYkpRVlNBVndRTVRCOE5nYzBCVkVs"
    "dEVDSVFDeVVURjhmdE9iN044cW5wS0ptSEtkWUwreU5ROE4rSTFWN2lGTQpJeGdqelE9PQotLS0tLUVORCBD"
    "RVJUSUZJQ0FURS0tLS0tCg=="
)

# Prod clusters kept warm for disaster recovery (label role=dr): everything runs there, but at one
# replica; per_label keys say it once for every such cluster.
DR = "role=dr"
DR_WARM = {"acme.io/role": "warm-standby"}

fleet = Fleet(
    name="acme",
    repo=REPO,
    revision="main",
    engines=["argocd", "flux"],
    # Every cluster runs Flux 2.9 or newer: Kustomizations honour ignore_differences (spec.ignore).
    flux=FluxOptions(min_version="2.9"),
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    common_labels={"acme.io/managed-by": "fleetgen"},
    sync=SyncPolicy(sync_options=["ServerSideApply=true"],
                    retry=Retry(limit=5, backoff_duration="10s", backoff_max_duration="5m")),
    environments=[
        # Flux reconciles dev every minute rather than every FluxOptions.interval (10m); Argo CD,
        # in staging and prod, syncs when Git changes and has no interval.
        Environment(name="dev", engine="flux",
                    sync=SyncPolicy(automated=True, prune=True, self_heal=True, interval="1m")),
        Environment(name="staging", engine="argocd",
                    sync=SyncPolicy(automated=True, prune=True, self_heal=True)),
        Environment(
            name="prod", engine="argocd",
            # No self_heal: Argo CD's RollingSync turns automated sync off on the Applications it
            # rolls out, so drift in prod is corrected by the next rollout.
            sync=SyncPolicy(automated=True),
            common_annotations={"acme.io/oncall": "https://oncall.acme.example/prod"},
            rollout=Rollout(steps=[
                Step(match_labels={"ring": "canary"}, max_update=1),
                Step(match_labels={"role": "primary"}, max_update="50%"),
                Step(),  # the DR cluster last
            ]),
        ),
    ],
    clusters=[
        Cluster(name="dev", env="dev", server="https://dev.k8s.acme.example:6443",
                labels={"region": "eu-west", "tier": "shared"}, vars={"region": "eu-west"}),
        Cluster(name="staging", env="staging", server="https://staging.k8s.acme.example:6443",
                labels={"region": "eu-west"}, vars={"region": "eu-west"}),
        Cluster(name="prod-east", env="prod", server="https://10.0.1.100:6443",
                labels={"region": "us-east", "ring": "canary", "role": "primary"},
                vars={"region": "us-east"},
                ca_data=PROD_EAST_CA,
                credentials=AwsAuth(cluster_name="prod-east",
                                    role_arn="arn:aws:iam::111122223333:role/argocd-deployer")),
        Cluster(name="prod-west", env="prod", server="https://10.0.2.100:6443",
                labels={"region": "us-west", "role": "primary"}, vars={"region": "us-west"},
                ca_data=PROD_WEST_CA,
                credentials=AwsAuth(cluster_name="prod-west",
                                    role_arn="arn:aws:iam::111122223333:role/argocd-deployer")),
        Cluster(name="dr", env="prod", server="https://dr.k8s.acme.example:6443",
                labels={"region": "eu-central", "role": "dr"}, vars={"region": "eu-central"},
                annotations={"acme.io/runbook": "https://wiki.acme.example/runbooks/dr-failover"}),
    ],
    projects=[
        Project(name="platform", description="Cluster-wide platform settings",
                namespaces=["platform", "cert-manager", "monitoring", "ingress"],
                source_repos=[REPO, JETSTACK],
                cluster_resources=[
                    ("scheduling.k8s.io", "PriorityClass"),
                    ("apiextensions.k8s.io", "CustomResourceDefinition"),
                    ("rbac.authorization.k8s.io", "ClusterRole"),
                    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
                    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
                    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
                ]),
        Project(name="orders", description="Order domain", namespaces=["orders"],
                source_repos=[REPO]),
        Project(name="payments", description="Payment domain (PCI scope)",
                namespaces=["payments"], source_repos=[REPO],
                # On the payments Namespace that both engines create.
                namespace_metadata={"payments": NamespaceMeta(labels={
                    "pod-security.kubernetes.io/enforce": "restricted",
                    "pod-security.kubernetes.io/enforce-version": "latest",
                })}),
    ],
    apps=[
        # Shared infrastructure whose base says where things go: its own Namespaces and a
        # cluster-scoped PriorityClass (namespace=None: no namespace rewrite).
        App(name="cluster-baseline", project="platform", namespace=None,
            path="apps/cluster-baseline/base"),
        App(
            name="platform-config", project="platform", namespace="platform",
            path="apps/platform-config/base",
            # Each cluster's own region (Cluster(vars=...)), set in its cluster overlay.
            config={"cluster-info": {"FLEET": "acme", "REGION": ClusterVar("region")}},
            per_env={env: Overrides(config={"cluster-info": {"ENVIRONMENT": env}})
                     for env in ("dev", "staging", "prod")},
        ),
        # A third-party chart, pinned; its values are layered like Helm's chained values files.
        # Removing it must not delete its CRDs (and with them every Certificate): its objects stay
        # (on Flux, helm.sh/resource-policy: keep), and so does what an upgrade stops rendering.
        App(
            name="cert-manager", project="platform", namespace="cert-manager", cascade_delete=False,
            chart=HelmChart(repo=JETSTACK, name="cert-manager", version="v1.16.2"),
            values={"crds": {"enabled": True},
                    # Leader election in its own namespace, not kube-system (project boundary).
                    "global": {"leaderElection": {"namespace": "cert-manager"}},
                    # Per cluster, filled in from Cluster(vars=...) at build.
                    "podLabels": {"acme.io/region": ClusterVar("region")}},
            per_env={"prod": Overrides(values={
                "replicaCount": 2,
                "podDisruptionBudget": {"enabled": True, "minAvailable": 1},
                "resources": {"requests": {"cpu": "50m", "memory": "128Mi"}},
            })},
        ),
        # A chart kept in this repository (charts/status-page), outside prod; removing it, or an
        # upgrade that stops rendering an object, deletes what it deployed.
        App(
            name="status-page", project="platform", namespace="platform", cascade_delete=True,
            chart=HelmChart(path="charts/status-page"),
            targets=Selector(envs=["dev", "staging"]),
            values={"banner": "Status of {{ env }}: see ${STATUS_URL}"},
            per_env={"dev": Overrides(values={"banner": "dev", "resources": {"requests": None}})},
        ),
        App(
            name="order-service", project="orders", namespace="orders",
            path="apps/order-service/base",
            images=[Image(name="order-service", new_name="registry.acme.example/order-service",
                          tag="1.8.2")],
            config={"order-config": {"FEATURE_FLAGS": "checkout-v2"}},
            per_env={
                "dev": Overrides(images=[Image(name="order-service", tag="1.9.0-rc.1")],
                                 config={"order-config": {"LOG_LEVEL": "debug"}}),
                "prod": Overrides(config={"order-config": {"LOG_LEVEL": "warn"}}),
            },
            per_label={
                DR: Overrides(patches=[Patch(
                    target={"kind": "HorizontalPodAutoscaler", "name": "order-service"},
                    patch={"spec": {"minReplicas": 1, "maxReplicas": 1}})]),
            },
            # The HPA owns spec.replicas: do not treat its changes as drift.
            ignore_differences=[IgnoreDifference(group="apps", kind="Deployment",
                                                 json_pointers=["/spec/replicas"])],
            secrets=[AppSecret(name="order-db", store="vault-backend",
                               data={"DB_PASSWORD": "apps/order-service/{env}#db_password"})],
            # Its TLS Certificate needs cert-manager's webhook: on Flux it waits until the chart
            # app's HelmRelease is healthy (through the gate Kustomization cert-manager.ready).
            depends_on=["platform-config", "cert-manager"],
        ),
        App(
            name="api-service", project="orders", namespace="orders",
            path="apps/api-service/base",
            images=[Image(name="api-service", new_name="registry.acme.example/api-service",
                          tag="3.2.0")],
            config={"api-config": {"ORDER_URL": "http://order-service.orders.svc.cluster.local"}},
            per_env={"staging": Overrides(replicas={"api-service": 2}),
                     "prod": Overrides(replicas={"api-service": 4})},
            per_label={DR: Overrides(replicas={"api-service": 1}, common_annotations=DR_WARM)},
            depends_on=["order-service"],
        ),
        App(
            name="payment-service", project="payments", namespace="payments",
            path="apps/payment-service/base",
            targets=Selector(envs=["staging", "prod"]),
            images=[Image(name="payment-service",
                          new_name="registry.acme.example/payment-service", tag="2.4.1")],
            per_env={"prod": Overrides(
                replicas={"payment-service": 3},
                images=[Image(name="payment-service",
                              digest="sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945")],
                # A kustomize Component: a PodDisruptionBudget and pods spread across zones.
                components=["apps/payment-service/components/ha"],
            )},
            per_label={DR: Overrides(replicas={"payment-service": 1},
                                     common_annotations=DR_WARM)},
            secrets=[AppSecret(name="payment-provider", store="vault-backend",
                               data={"API_KEY": "apps/payment-service/{env}/{cluster}#api_key"})],
            labels={"acme.io/pci": "true"},
            # The payments team hears of failed syncs in #payments (on Argo CD, through the
            # slack service of argocd-notifications-cm: output/argocd/README.md).
            # (On Flux its Provider reads the webhook address from the store entry below.)
            notify=[
                Notify(
                    on=["sync_failed"],
                    to=[
                        Slack(
                            channel="payments",
                            secret=ExternalSecretRef(
                                store="vault-backend",
                                key="notify/slack-payments",
                                property="address",
                            ),
                        )
                    ],
                )
            ],
        ),
    ],
)
