"""What Argo CD names and how it matches what fleetgen writes: its API version, the label,
annotation and finalizer keys it reads, a cluster's API URL and a chart repository as it spells
them, and whether an AppProject's destinations and ``sourceRepos`` permit a target.

`permitted` and `repo_permitted` follow Argo CD's matching (glob patterns, ``!`` denies) with
`fnmatch` standing in for its glob library: the emitter's check of the spec and ``add`` use them.
`fleetgen.rules.argoproject` matches emitted AppProjects as Argo CD does.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Protocol

API_VERSION = "argoproj.io/v1alpha1"
SECRET_TYPE = "argocd.argoproj.io/secret-type"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
GENERATE_PATHS = "argocd.argoproj.io/manifest-generate-paths"
# Argo CD deletes an Application's (or waits for an AppProject's) resources before the object.
RESOURCES_FINALIZER = "resources-finalizer.argocd.argoproj.io"
# fleetgen's AppProject of the Applications ``<cluster>.tenants`` that apply the tenants' accounts.
TENANTS_PROJECT = "fleetgen-tenants"


class Destination(Protocol):
    """What `permitted` reads of an AppProject destination (`fleetgen.model.Destination`)."""

    @property
    def server(self) -> str:
        """An API server URL or a glob of them."""
        ...

    @property
    def namespace(self) -> str:
        """A namespace or a glob of them."""
        ...


def server_url(server: str) -> str:
    """A cluster's API URL as Argo CD's controller keys it (no trailing ``/``)."""
    return server.rstrip("/")


def repo_url(repo: str) -> str:
    """A chart repository as Argo CD's ``repoURL`` takes it: an OCI registry path without the
    ``oci://`` scheme (Argo CD treats a scheme-less URL as OCI: ``helm.IsHelmOciRepo``)."""
    return repo.removeprefix("oci://")


def permitted(destinations: Sequence[Destination], server: str, namespace: str) -> bool:
    """Whether Argo CD lets an app of a project with ``destinations`` deploy there."""
    allowed = False
    for destination in destinations:
        server_ok = _glob(destination.server, server)
        namespace_ok = _glob(destination.namespace, namespace)
        if server_ok and namespace_ok:
            allowed = True
        elif any(
            pattern.startswith("!") and not ok
            for pattern, ok in (
                (destination.server, server_ok),
                (destination.namespace, namespace_ok),
            )
        ):
            return False
    return allowed


def written_repos(patterns: Sequence[str]) -> list[str]:
    """``Project.source_repos`` as the AppProject holds them: as written, and after an
    ``oci://`` one its form without the scheme, which is how an Application spells a Helm OCI
    chart's ``repoURL`` (`repo_url`) and which argo-cd ``IsSourcePermitted`` compares
    (``git.NormalizeGitURL`` keeps a scheme)."""
    found: list[str] = []
    for pattern in patterns:
        found.append(pattern)
        if pattern.startswith("oci://"):
            found.append(repo_url(pattern))
    return list(dict.fromkeys(found))


def repo_permitted(patterns: Sequence[str], repo: str) -> bool:
    """Whether ``sourceRepos`` ``patterns`` let an app source from ``repo`` (URLs normalized)."""
    allowed = False
    for pattern in patterns:
        if _glob(_normal_repo(pattern), _normal_repo(repo)):
            allowed = True
        elif pattern.startswith("!"):
            return False
    return allowed


def _normal_repo(url: str) -> str:
    """Roughly Argo CD's NormalizeGitURL: case, a ``.git`` suffix and a final ``/`` ignored."""
    return url.strip().lower().removesuffix(".git").removesuffix("/")


def _glob(pattern: str, value: str) -> bool:
    """Argo CD's glob match; a ``!`` pattern matches what the rest does not."""
    if pattern.startswith("!"):
        return not fnmatch.fnmatchcase(value, pattern[1:])
    return fnmatch.fnmatchcase(value, pattern)
