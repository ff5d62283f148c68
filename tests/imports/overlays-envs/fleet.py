"""The overlays-envs fleet, imported by `fleetgen import` from the Kustomize overlays of the
repository it sits in. Review it, then `fleetgen build` compiles it into output/; commit both. The
files it came from are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# apps/orders/overlays/dev/kustomization.yaml:1: cluster 'dev': its API server is not in the
#     repository (fleet.py has the placeholder https://dev.invalid, registration='external') — set
#     Cluster(server=...) to its API server, and credentials=... for fleetgen to register it in
#     Argo CD (or keep registration='external' where another tool does)
# apps/orders/overlays/prod/kustomization.yaml:1: cluster 'prod': its API server is not in the
#     repository (fleet.py has the placeholder https://prod.invalid, registration='external') — set
#     Cluster(server=...) to its API server, and credentials=... for fleetgen to register it in
#     Argo CD (or keep registration='external' where another tool does)
# apps/storefront/overlays/staging/kustomization.yaml:1: cluster 'staging': its API server is not
#     in the repository (fleet.py has the placeholder https://staging.invalid,
#     registration='external') — set Cluster(server=...) to its API server, and credentials=... for
#     fleetgen to register it in Argo CD (or keep registration='external' where another tool does)
# docs/example-configmap.yaml:1: ConfigMap 'example' is in no app folder (APP/base/,
#     APP/overlays/NAME/): not imported — add its folder as an app, or delete it if nothing deploys
#     it
# fleet.py: the engines' objects that deploy the overlays are not in the repository: fleet.py syncs
#     automatically and prunes (SyncPolicy(automated=True, prune=True)) — set Fleet(sync=...) to
#     what they do
# fleet.py: the fleet's repo is a placeholder (no Git remote origin, no repository URL in the
#     engines' objects) — set Fleet(repo=...) to the https:// URL the engines read this repository
#     from

from fleetgen import (
    App,
    Cluster,
    Environment,
    Fleet,
    Overrides,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="overlays-envs",
    repo="https://placeholder.invalid/overlays-envs.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev"),
        Environment(name="staging"),
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="dev", env="dev", server="https://dev.invalid", registration="external"),
        Cluster(name="staging", env="staging", server="https://staging.invalid",
                registration="external"),
        Cluster(name="prod", env="prod", server="https://prod.invalid", registration="external"),
    ],
    projects=[
        Project(name="apps",
                namespaces=["orders", "storefront-dev", "storefront-prod", "storefront-staging"]),
    ],
    apps=[
        App(name="orders", project="apps", namespace=None,
            targets=Selector(envs=["dev", "prod"]),
            per_env={
                "dev": Overrides(resources=["apps/orders/overlays/dev"]),
                "prod": Overrides(resources=["apps/orders/overlays/prod"]),
            }),
        App(name="storefront", project="apps", namespace=None,
            per_env={
                "dev": Overrides(resources=["apps/storefront/overlays/dev"]),
                "staging": Overrides(resources=["apps/storefront/overlays/staging"]),
                "prod": Overrides(resources=["apps/storefront/overlays/prod"]),
            }),
    ],
)
