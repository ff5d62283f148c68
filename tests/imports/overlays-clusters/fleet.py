"""The overlays-clusters fleet, imported by `fleetgen import` from the Kustomize overlays of the
repository it sits in. Review it, then `fleetgen build` compiles it into output/; commit both. The
files it came from are untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
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
    SyncPolicy,
)

fleet = Fleet(
    name="overlays-clusters",
    repo="https://placeholder.invalid/overlays-clusters.git",
    engines=["flux"],
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev"),
        Environment(name="prod"),
    ],
    clusters=[
        Cluster(name="dev", env="dev", server="https://kubernetes.default.svc"),
        Cluster(name="prod-eu", env="prod", server="https://kubernetes.default.svc"),
        Cluster(name="prod-us", env="prod", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["cart", "shop"]),
    ],
    apps=[
        App(name="cart", project="apps", namespace=None,
            per_env={
                "dev": Overrides(resources=["cart/dev"]),
                "prod": Overrides(resources=["cart/prod"]),
            }),
        App(name="shop", project="apps", namespace=None,
            per_env={"dev": Overrides(resources=["shop/overlays/dev"])},
            per_cluster={
                "prod-eu": Overrides(resources=["shop/overlays/prod-eu"]),
                "prod-us": Overrides(resources=["shop/overlays/prod-us"]),
            }),
    ],
)
