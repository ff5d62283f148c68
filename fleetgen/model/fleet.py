"""The Fleet, the whole spec, with its Argo CD and Flux settings and the oldest controller
releases the output supports."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator

from fleetgen.fields import (
    Annotations,
    Duration,
    GitURL,
    Labels,
    Name,
    Version,
    release_patch,
    repo_path,
)
from fleetgen.model.apps import App, GitSource
from fleetgen.model.base import Engine, Spec
from fleetgen.model.clusters import Cluster, Credentials, Environment
from fleetgen.model.projects import Policy, Project
from fleetgen.model.sync import SyncPolicy

# The oldest controller releases the output supports, compared down to the patch: their
# projects' three newest minors, and for Argo CD the first 3.3 whose RollingSync re-gates an
# Application when its generated spec changes (argo-cd v3.3.7, applicationset_controller.go
# updateApplicationSetApplicationStatus; before it, revision changes only, so a values-only change
# of a Helm-repository chart never synced: RollingSync turns auto-sync off).
ARGOCD_FLOOR, FLUX_FLOOR = "3.3.7", "2.7"


def _at_least(floor: str, project: str, why: str = "") -> Callable[[str], str]:
    """A check that ``value`` is ``floor`` or newer; a release without a patch ('3.3') in the
    floor's minor means the floor, and reads as it."""
    lowest = release_patch(floor)

    def check(value: str) -> str:
        major, minor, patch = release_patch(value)
        if patch is None and (major, minor) == lowest[:2]:
            return floor
        if (major, minor, patch or 0) < (lowest[0], lowest[1], lowest[2] or 0):
            raise ValueError(
                f"{project} {value} is too old: fleetgen's output needs {project} >= {floor}{why}"
            )
        return value

    return check


class ArgoOptions(Spec):
    """Argo CD settings.

    Attributes:
        namespace: The namespace Argo CD runs in.
        min_version: The oldest Argo CD release the output must work on.
    """

    namespace: Name = "argocd"
    min_version: Annotated[
        Version,
        AfterValidator(
            _at_least(
                ARGOCD_FLOOR,
                "Argo CD",
                " (before it, a RollingSync ApplicationSet never syncs a change that moves no Git"
                " revision, such as new Helm values)",
            )
        ),
    ] = ARGOCD_FLOOR


class FluxOptions(Spec):
    """Flux settings.

    Attributes:
        mode: 'per-cluster': each cluster runs Flux; 'hub': the `hub` cluster's Flux applies to
            all, a spoke's apps once the namespaces fleetgen creates there exist (a tenant's chart
            app, which cannot wait for them, is refused until then and retried with backoff).
        hub: The hub cluster (mode 'hub').
        namespace: The namespace Flux runs in.
        interval: How often Flux reconciles each Kustomization.
        source: The repository to read output/ from; None: the one `flux bootstrap` created.
        min_version: The oldest Flux release the output must work on.
        source_per_namespace: Hub mode: a GitRepository of `source` in each spoke namespace, for
            hubs locked down with --no-cross-namespace-refs (its `secret_ref` must exist in each);
            False: every Kustomization reads the one in `namespace`, across namespaces.
    """

    mode: Literal["per-cluster", "hub"] = "per-cluster"
    hub: Name | None = None
    namespace: Name = "flux-system"
    interval: Duration = "10m"
    source: GitSource | None = None
    min_version: Annotated[Version, AfterValidator(_at_least(FLUX_FLOOR, "Flux"))] = FLUX_FLOOR
    source_per_namespace: bool = False  # hub mode: a source in each spoke namespace


class Fleet(Spec):
    """The whole fleet: the single source of truth that ``fleetgen build`` compiles.

    Attributes:
        name: The fleet's name.
        repo: The Git repository that holds output/, which the engines read.
        revision: The branch or revision of `repo` the engines read.
        engines: The engines to emit for.
        environments: The environments, at least one.
        clusters: The clusters.
        projects: The project boundaries.
        apps: The apps.
        argocd: Argo CD settings.
        flux: Flux settings.
        default_credentials: Credentials of clusters that set none ({cluster}, {env} are filled in).
        cascade_delete: Removing an app or cluster deletes its workloads; False: they are orphaned
            (an Environment's or App's own setting wins for its placements).
        create_namespaces: Both engines create the apps' namespaces (Argo CD CreateNamespace=true,
            Flux Namespace objects); False: they are provisioned elsewhere.
        output_dir: Where the output goes, relative to the folder holding fleet.py.
        sync: Sync settings of every placement (the shallowest layer).
        common_labels: Labels put on every object every placement deploys (but a chart app's,
            which has no overlay: set them through its values).
        common_annotations: Annotations put on every object every placement deploys (as
            common_labels).
        policy: Severities of validate's rules for the whole fleet.
    """

    name: Name
    repo: GitURL
    revision: str = "main"
    engines: list[Engine] = Field(default=["argocd"], min_length=1)
    environments: list[Environment] = Field(min_length=1)
    clusters: list[Cluster] = []
    projects: list[Project] = []
    apps: list[App] = []
    argocd: ArgoOptions = Field(default_factory=ArgoOptions)
    flux: FluxOptions = Field(default_factory=FluxOptions)
    default_credentials: Credentials | None = None
    cascade_delete: bool = False
    create_namespaces: bool = True  # Argo CD CreateNamespace=true, Flux Namespace objects
    output_dir: str = "output"
    sync: SyncPolicy = Field(default_factory=SyncPolicy)
    common_labels: Labels = {}
    common_annotations: Annotations = {}
    policy: Policy = Field(default_factory=Policy)

    @property
    def cascades_anywhere(self) -> bool:
        """Whether removing some placement may delete its workloads (the fleet's, an
        environment's or an app's cascade_delete)."""
        return (
            self.cascade_delete
            or any(e.cascade_delete for e in self.environments)
            or any(a.cascade_delete for a in self.apps)
        )

    @property
    def cascades_everywhere(self) -> bool:
        """Whether removing any placement deletes its workloads (no environment or app says
        otherwise)."""
        return (
            self.cascade_delete
            and all(e.cascade_delete is not False for e in self.environments)
            and all(a.cascade_delete is not False for a in self.apps)
        )

    @field_validator("output_dir")
    @classmethod
    def _output_dir(cls, value: str) -> str:
        normal = repo_path(value)
        if posixpath.isabs(normal) or normal == "." or normal.startswith(".."):
            raise ValueError(
                f"{value!r} must be a relative path inside the repository "
                "(the directory holding fleet.py)"
            )
        return normal
