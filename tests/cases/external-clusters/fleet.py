"""Clusters fleetgen does not register: the cluster Argo CD runs on (a registration without
material) and edge clusters whose Argo CD Secrets another tool owns, selected by label at run
time."""

from fleetgen import (
                      App,
                      Cluster,
                      Destination,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      Project,
                      Selector,
                      SyncPolicy,
)

fleet = Fleet(
    name="edge",
    repo="https://git.example.com/edge.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="mgmt", sync=SyncPolicy(automated=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True)),
    ],
    clusters=[
        Cluster(name="mgmt", env="mgmt", server="https://kubernetes.default.svc"),
        Cluster(name="core-1", env="prod", server="https://core-1.example.com",
                labels={"tier": "core"}),
        # Registered by Terraform; its Secret must carry the labels output/README.md lists.
        Cluster(name="edge-1", env="prod", server="https://edge-1.example.com",
                registration="external", labels={"tier": "edge", "region": "eu"}),
        Cluster(name="edge-2", env="prod", server="https://edge-2.example.com",
                registration="external", labels={"tier": "edge", "region": "us"}),
    ],
    projects=[
        Project(name="platform", namespaces=["api"]),
        Project(name="edge", namespaces=["api"],
                destinations=[Destination(server="*", namespace="api")]),
    ],
    apps=[
        App(name="api", project="platform", namespace="api", path="apps/api/base",
            targets=Selector(match_labels={"tier": "core"})),
        App(name="api-mgmt", project="platform", namespace="api", path="apps/api/base",
            targets=Selector(envs=["mgmt"])),
        App(name="edge-api", project="edge", namespace="api", path="apps/api/base",
            targets=Selector(match_labels={"tier": "edge"}, exclude=["edge-2"], runtime=True)),
    ],
)
