"""per_label: settings shared by the clusters that carry a label, between per_env and per_cluster.

east clusters get a regional image mirror and config; gpu clusters more replicas; east-2, east
and gpu at once, gets both, and its own per_cluster layer wins over them.
"""

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Image,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="labels",
    repo="https://git.example.com/labels.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True))],
    clusters=[
        Cluster(name="east-1", env="prod", server="https://east-1.example.com",
                labels={"region": "east"}, engine="flux"),
        Cluster(name="east-2", env="prod", server="https://east-2.example.com",
                labels={"region": "east", "tier": "gpu"}),
        Cluster(name="west-1", env="prod", server="https://west-1.example.com",
                labels={"region": "west"}),
    ],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[
        App(
            name="web", project="web", namespace="web", path="apps/web/base",
            replicas={"web": 2},
            per_label={
                "region=east": Overrides(
                    images=[Image(name="web", new_name="east.registry.example.com/web")],
                    config={"web-config": {"REGION": "east", "LEVEL": "east"}},
                    common_labels={"region": "east"},
                    sync=SyncPolicy(prune=True)),
                "tier=gpu": Overrides(replicas={"web": 6}, config={"web-config": {"GPU": "yes"}},
                                      sync=SyncPolicy(prune=True)),
            },
            per_cluster={"east-2": Overrides(config={"web-config": {"LEVEL": "east-2"}})},
        ),
    ],
)
