"""The flux-tenants fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# clusters/production/flux-system/kustomization.yaml:6: patches of Flux's own controllers
#     (bootstrap's kustomization) — kept where they are: fleetgen leaves Flux's installation to
#     flux bootstrap, which keeps this file
# clusters/staging/flux-system/kustomization.yaml:6: patches of Flux's own controllers (bootstrap's
#     kustomization) — kept where they are: fleetgen leaves Flux's installation to flux bootstrap,
#     which keeps this file
# tenants/base/dev-team/rbac.yaml:14: RoleBinding 'dev-team-reconciler' grants a tenant ClusterRole
#     'cluster-admin' — fleetgen binds a tenant's ServiceAccount to ClusterRole admin in its
#     project's namespaces: check that is enough

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    GitSource,
    HelmChart,
    NamespaceMeta,
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
            chart=HelmChart(repo="https://kyverno.github.io/kyverno", name="kyverno",
                            version="3.3.4", install_retries=3, upgrade_retries=3),
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
