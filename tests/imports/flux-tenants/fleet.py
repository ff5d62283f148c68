"""The flux-tenants fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# clusters/production/flux-system/kustomization.yaml:6: patches of Flux's own controllers
#     (bootstrap's kustomization) — kept where they are: fleetgen leaves Flux's installation to
#     flux bootstrap, which keeps this file
# clusters/production/flux-system/kustomization.yaml:13: Flux's controllers run with --default-
#     service-account=default: fleetgen's apps outside a tenant project name no account, so they
#     would run as 'default', not as Flux's own account as the platform's objects here do —
#     fleetgen has no setting for the platform's account: drop the flag, or give that account the
#     rights the platform's apps need
# clusters/production/infrastructure.yaml:7: Kustomization 'kyverno' (followed into the Flux
#     objects it applies): its spec.interval, spec.timeout, spec.wait not kept — fleetgen applies
#     what it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with
#     their own settings and depends_on: set those by hand if this timing matters
# clusters/production/infrastructure.yaml:43: Kustomization 'policy-library' (followed into the
#     Flux objects it applies): its spec.interval not kept — fleetgen applies what it holds with
#     flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their own settings
#     and depends_on: set those by hand if this timing matters
# clusters/production/tenants.yaml:9: Kustomization 'tenants' (followed into the Flux objects it
#     applies): its spec.interval, spec.timeout, spec.wait not kept — fleetgen applies what it
#     holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their own
#     settings and depends_on: set those by hand if this timing matters
# clusters/staging/flux-system/kustomization.yaml:6: patches of Flux's own controllers (bootstrap's
#     kustomization) — kept where they are: fleetgen leaves Flux's installation to flux bootstrap,
#     which keeps this file
# clusters/staging/flux-system/kustomization.yaml:13: Flux's controllers run with --default-
#     service-account=default: fleetgen's apps outside a tenant project name no account, so they
#     would run as 'default', not as Flux's own account as the platform's objects here do —
#     fleetgen has no setting for the platform's account: drop the flag, or give that account the
#     rights the platform's apps need
# clusters/staging/infrastructure.yaml:7: Kustomization 'kyverno' (followed into the Flux objects
#     it applies): its spec.interval, spec.timeout, spec.wait not kept — fleetgen applies what it
#     holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their own
#     settings and depends_on: set those by hand if this timing matters
# clusters/staging/infrastructure.yaml:43: Kustomization 'policy-library' (followed into the Flux
#     objects it applies): its spec.interval not kept — fleetgen applies what it holds with flux
#     bootstrap's Kustomization (10m, prune, no wait), and its apps with their own settings and
#     depends_on: set those by hand if this timing matters
# clusters/staging/tenants.yaml:9: Kustomization 'tenants' (followed into the Flux objects it
#     applies): its spec.interval, spec.timeout, spec.wait not kept — fleetgen applies what it
#     holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with their own
#     settings and depends_on: set those by hand if this timing matters
# infrastructure/policy-library/source.yaml:7: OCIRepository 'baseline-policies': spec.interval not
#     mapped — fleetgen checks an app's source every 1m (GitSource and OciSource have no interval)
# infrastructure/policy-library/source.yaml:13: OCIRepository 'baseline-policies': spec.verify not
#     mapped — fleetgen verifies no signature of an app's source (GitSource and OciSource have no
#     verify): keep the check in a policy, or verify where the artifact is pushed
# tenants/base/dev-team/rbac.yaml:14: RoleBinding 'dev-team-reconciler' grants a tenant ClusterRole
#     'cluster-admin' — fleetgen binds a tenant's ServiceAccount to ClusterRole admin in its
#     project's namespaces: check that is enough
# tenants/base/dev-team/sync.yaml:7: GitRepository 'dev-team': spec.interval not mapped — fleetgen
#     checks an app's source every 1m (GitSource and OciSource have no interval)

from fleetgen import (
    App,
    ChartVerify,
    Cluster,
    Environment,
    Fleet,
    GitSource,
    HelmChart,
    NamespaceMeta,
    OciSource,
    OIDCIdentity,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="flux-tenants",
    repo="https://github.com/acme/platform-tenants.git",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True),
    cascade_delete=True,
    environments=[
        Environment(name="staging"),
        Environment(name="production"),
    ],
    clusters=[
        Cluster(name="staging", env="staging", server="https://kubernetes.default.svc"),
        Cluster(name="production", env="production", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["kyverno"]),
        Project(name="dev-team",
                namespaces=["apps"],
                service_account="dev-team",
                namespace_metadata={
                    "apps": NamespaceMeta(labels={"toolkit.fluxcd.io/tenant": "dev-team"}),
                }),
    ],
    apps=[
        App(name="kyverno", project="apps", namespace="kyverno",
            chart=HelmChart(repo="oci://ghcr.io/kyverno/charts", name="kyverno", version="3.3.4",
                            install_retries=3, upgrade_retries=3, interval="12h",
                            verify=ChartVerify(match_oidc_identity=[
                                                   OIDCIdentity(issuer=("^https://token\\.actions"
                                                                        "\\.githubusercontent\\.co"
                                                                        "m$"),
                                                                subject=("^https://github\\.com/ky"
                                                                         "verno/kyverno/.*$")),
                                               ])),
            values={
                "admissionController": {
                    "replicas": 1,
                    "container": {"resources": {"limits": {"memory": "768Mi"}}},
                },
                "cleanupController": {"enabled": False},
            },
            sync=SyncPolicy(interval="30m", wait=True)),
        App(name="kyverno-policies", project="apps", namespace=None,
            path="infrastructure/kyverno-policies",
            depends_on=["kyverno"],
            sync=SyncPolicy(interval="1h", timeout="5m", wait=True)),
        App(name="baseline-policies", project="apps", namespace=None,
            source=OciSource(url="oci://ghcr.io/acme/policies/baseline", tag="v1.4.0"),
            depends_on=["kyverno"],
            sync=SyncPolicy(interval="1h", timeout="5m", wait=True)),
        App(name="dev-team", project="dev-team", namespace=None,
            source=GitSource(url="https://github.com/acme/dev-team-apps.git"),
            depends_on=["kyverno-policies"],
            sync=SyncPolicy(interval="5m", wait=False),
            per_env={
                "staging": Overrides(path="staging"),
                "production": Overrides(path="production"),
            }),
    ],
)
