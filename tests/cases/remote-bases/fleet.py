"""Bases that list remote kustomize bases, pinned by commit or version tag.

podinfo's base is a remote base (a commit) plus a ConfigMap of its own; the overlays rewrite its
namespace, image and replicas on top, as for a local base (kustomize fetches the remote when it
builds them, on the controller: fleetgen never does). addons (namespace=None) lists a remote at
a version tag beside a local object: its objects may go to any namespace its project allows, so
the AppProject names those. dev is on Flux, which is told (a build warning) what the
kustomize-controller needs; prod on Argo CD. The remote URLs are never fetched here (build reads
no remote; tests/test_remote_bases.py renders such overlays against local Git repositories).
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
    name="remote-bases",
    repo="https://git.example.com/remote-bases.git",
    engines=["argocd", "flux"],  # dev on Flux, prod on Argo CD
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev", engine="flux"),
        Environment(name="prod", engine="argocd"),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
    ],
    projects=[
        Project(name="web", namespaces=["podinfo"]),
        Project(name="platform", namespaces=["addons", "addons-*"]),
    ],
    apps=[
        App(name="podinfo", project="web", namespace="podinfo", path="apps/podinfo",
            images=[Image(name="ghcr.io/stefanprodan/podinfo", tag="6.7.1")],
            config={"podinfo-settings": {"LEVEL": "info"}},
            per_env={"prod": Overrides(replicas={"podinfo": 3})}),
        App(name="addons", project="platform", namespace=None, path="apps/addons"),
    ],
)
