"""Overrides(namespace=..., name_prefix=...): a namespace per environment, a kustomize namePrefix
per layer.

prod's placements go to `web-prod` instead of App.namespace `web`: its overlays' namespace, the
Argo CD Application's destination (created with CreateNamespace), the Namespace Flux creates on
prod-a, the AppProject's destinations. A deeper layer's namespace is its cluster overlay's:
prod-b's per_cluster `web-b`, and `web-canary` for clusters labelled canary=true (staging-2),
whose Application gets it from its generator (staging's clusters differ).

staging's env overlay prefixes every object with `staging-` (staging-1's replicas, in its cluster
overlay, still name the base's Deployment); in prod, clusters labelled region=east get `east-`
and prod-b its own `b-` (the deepest layer's, written once in the cluster overlay), with config
whose hash rolls the renamed Deployment. kustomize renames the Deployment's configMapRef with
the ConfigMap. prod-a is on Flux, the others on Argo CD: both read the same overlays.

The chart app cache is released per layer too: into `cache-prod` in prod (Flux's HelmRelease
targetNamespace and storageNamespace on prod-a, the Application's destination on prod-b) and
into `cache-canary` on staging-2 (its generator's namespace), `cache` elsewhere.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="prefixes",
    repo="https://git.example.com/prefixes.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging", engine="argocd", sync=SyncPolicy(automated=True)),
        Environment(name="prod", engine="flux", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="staging-1", env="staging", server="https://staging-1.example.com"),
        Cluster(name="staging-2", env="staging", server="https://staging-2.example.com",
                labels={"canary": "true"}),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"region": "east"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com",
                labels={"region": "east"}, engine="argocd"),
    ],
    projects=[Project(name="web", namespaces=["web", "web-prod", "web-b", "web-canary",
                                              "cache", "cache-prod", "cache-canary"])],
    apps=[
        App(
            name="web", project="web", namespace="web", path="apps/web/base",
            per_env={
                "staging": Overrides(name_prefix="staging-",
                                     config={"web-config": {"LEVEL": "staging"}}),
                "prod": Overrides(namespace="web-prod", replicas={"web": 3}),
            },
            per_label={
                "region=east": Overrides(name_prefix="east-"),
                "canary=true": Overrides(namespace="web-canary"),
            },
            per_cluster={
                "staging-1": Overrides(replicas={"web": 2}),
                "prod-b": Overrides(name_prefix="b-", namespace="web-b",
                                    config={"web-config": {"LEVEL": "b"}}),
            },
        ),
        App(
            name="cache", project="web", namespace="cache",
            chart=HelmChart(path="charts/echo"), cascade_delete=False,
            per_env={"prod": Overrides(namespace="cache-prod")},
            per_label={"canary=true": Overrides(namespace="cache-canary")},
        ),
    ],
)
