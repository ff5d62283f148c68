"""The flux-clusters fleet, imported by `fleetgen import` from the Flux repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# clusters/production/apps.yaml:7: Kustomization 'apps' (followed into the Flux objects it
#     applies): its spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen
#     applies what it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps
#     with their own settings and depends_on: set those by hand if this timing matters
# clusters/production/infrastructure.yaml:7: Kustomization 'infra-controllers' (followed into the
#     Flux objects it applies): its spec.interval, spec.timeout, spec.retryInterval, spec.wait not
#     kept — fleetgen applies what it holds with flux bootstrap's Kustomization (10m, prune, no
#     wait), and its apps with their own settings and depends_on: set those by hand if this timing
#     matters
# clusters/staging/apps.yaml:7: Kustomization 'apps' (followed into the Flux objects it applies):
#     its spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept — fleetgen applies
#     what it holds with flux bootstrap's Kustomization (10m, prune, no wait), and its apps with
#     their own settings and depends_on: set those by hand if this timing matters
# clusters/staging/infrastructure.yaml:7: Kustomization 'infra-controllers' (followed into the Flux
#     objects it applies): its spec.interval, spec.timeout, spec.retryInterval, spec.wait not kept
#     — fleetgen applies what it holds with flux bootstrap's Kustomization (10m, prune, no wait),
#     and its apps with their own settings and depends_on: set those by hand if this timing matters

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    HelmChart,
    Image,
    Overrides,
    Patch,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="flux-clusters",
    repo="https://github.com/acme/fleet-infra",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True, wait=True),
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
        Project(name="apps", namespaces=["cert-manager", "hello", "monitoring", "podinfo"]),
    ],
    apps=[
        App(name="hello", project="apps", namespace="hello",
            chart=HelmChart(path="charts/hello"),
            targets=Selector(envs=["staging"]),
            values={"message": "hello from staging"},
            sync=SyncPolicy(interval="10m")),
        App(name="cert-manager", project="apps", namespace="cert-manager",
            chart=HelmChart(repo="https://charts.jetstack.io", name="cert-manager",
                            version="v1.16.2", interval="24h"),
            values={"crds": {"enabled": True}, "prometheus": {"enabled": False}},
            sync=SyncPolicy(interval="1h")),
        App(name="infra-configs", project="apps", namespace=None,
            path="infrastructure/configs",
            depends_on=["cert-manager"],
            sync=SyncPolicy(interval="1h", timeout="5m", retry_interval="1m")),
        App(name="podinfo", project="apps", namespace="podinfo",
            chart=HelmChart(repo="oci://ghcr.io/stefanprodan/charts", name="podinfo",
                            version="6.7.1", interval="5m"),
            depends_on=["infra-configs"],
            values={"ingress": {"className": "nginx", "enabled": True}, "ui": {"message": "hello"}},
            sync=SyncPolicy(interval="30m"),
            per_env={
                "staging": Overrides(values={
                                         "ingress": {
                                             "hosts": [{"host": "podinfo.staging.example.com"}],
                                         },
                                         "replicaCount": 1,
                                     }),
                "production": Overrides(chart_version="6.7.0",
                                        values={
                                            "ingress": {"hosts": [{"host": "podinfo.example.com"}]},
                                            "replicaCount": 3,
                                        }),
            }),
        App(name="monitoring", project="apps", namespace=None,
            path="infrastructure/monitoring",
            sync=SyncPolicy(interval="1h", timeout="5m", retry_interval="1m"),
            patches=[
                Patch(target={"kind": "Deployment", "name": "exporter"},
                      patch={
                          "apiVersion": "apps/v1",
                          "kind": "Deployment",
                          "metadata": {"name": "exporter"},
                          "spec": {"replicas": 2},
                      }),
            ],
            images=[Image(name="quay.io/prometheus/node-exporter", tag="v1.8.1")]),
    ],
)
