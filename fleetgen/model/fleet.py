"""The Fleet, the whole spec."""

from __future__ import annotations

import posixpath

from pydantic import Field, field_validator

from fleetgen.model.apps import App
from fleetgen.model.base import Engine, Spec
from fleetgen.model.clusters import Cluster, Credentials, Environment
from fleetgen.model.engines import ArgoInstance, ArgoOptions, FluxOptions
from fleetgen.model.fields import (
    Annotations,
    GitURL,
    Labels,
    Name,
    repo_path,
)
from fleetgen.model.notify import Notify
from fleetgen.model.projects import Policy, Project
from fleetgen.model.sync import SyncPolicy
from fleetgen.util.layout import argocd_directory


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
        notify: Who hears about what of every placement (`Notify`); environments and apps add.
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
    notify: list[Notify] = []

    @property
    def argocd_instances(self) -> tuple[ArgoInstance, ...]:
        """The Argo CD instances of the output: the fleet's first (always: it prunes what moves
        to an environment's own), then each environment's own, in environment order."""
        shared = tuple(env.name for env in self.environments if env.argocd is None)
        return (
            ArgoInstance(argocd_directory(None), self.argocd, shared),
            *(
                ArgoInstance(argocd_directory(env.name), env.argocd, (env.name,))
                for env in self.environments
                if env.argocd is not None
            ),
        )

    def argocd_instance(self, env: str) -> ArgoInstance:
        """The Argo CD instance that reconciles environment ``env``'s Argo CD placements."""
        return next(i for i in self.argocd_instances if env in i.envs)

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
