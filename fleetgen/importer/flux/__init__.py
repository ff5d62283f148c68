"""Flux: each cluster folder (the path of a ``flux-system`` Kustomization that bootstrap wrote,
or ``clusters/NAME/``) is a cluster; what its folder applies becomes app instances. A
Kustomization whose folder holds only Flux objects (releases, their sources, further
Kustomizations, a tenant's accounts) is followed into them; any other is an app whose path is
its folder, used as it is. A HelmRelease is a chart app; a Kustomization reading another
repository an app from that source.

A Kustomization or HelmRelease with ``kubeConfig`` makes its cluster a hub and its namespace a
spoke (``FluxOptions(mode="hub")``); ``postBuild.substitute`` is evaluated per cluster.

`clusters` finds the cluster folders, `walk` follows each through what it applies, one module
a kind: `kustomizations`, `releases` (and their `sources`), `tenancy`; `hub` the spokes,
`substitute` Flux's post-build substitution, `generators` source-watcher's ArtifactGenerators (the
files of an artifact and the folder a path in it is: `artifacts`); `common` holds what they
share."""

from __future__ import annotations

from fleetgen.importer.draft import ClusterDraft, Draft, env_name
from fleetgen.importer.flux.bootstrap import bootstrap
from fleetgen.importer.flux.clusters import cluster_folders, fleet_repo, flux_namespace
from fleetgen.importer.flux.common import Walk
from fleetgen.importer.flux.hub import other_clusters
from fleetgen.importer.flux.walk import follow
from fleetgen.importer.repo import Repo
from fleetgen.model.clusters import IN_CLUSTER
from fleetgen.model.fields import to_dns_label

__all__ = ["recognise"]


def recognise(repo: Repo) -> Draft | None:
    """The fleet of a Flux repository, None when it has no cluster folder."""
    folders = cluster_folders(repo)
    if not folders:
        return None
    draft = Draft("flux")
    for folder, origin in folders.items():
        name = to_dns_label(folder.rsplit("/", 1)[-1], "cluster")
        draft.clusters.append(ClusterDraft(name, env_name(name), IN_CLUSTER, origin))
        follow(Walk(repo, draft, name, flux_namespace(origin)), folder)
    other_clusters(draft, folders)
    draft.repo = fleet_repo(repo)
    bootstrap(repo, draft, folders)
    for instance in draft.instances:  # Flux deletes what a pruning Kustomization applied
        instance.cascade = bool(instance.sync.get("prune"))
    return draft
