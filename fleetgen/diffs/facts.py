"""Blast radius, the data: what attribution reads of one ref (`Facts`) and of both
(`Context`), one compiled ref (`Side`), what a change reaches (`Where`), a `Change`, and the
Applications ApplicationSets generate (`Application`)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from fleetgen.diffs.objects import Field, Obj, scope_of
from fleetgen.diffs.refs import Snapshot
from fleetgen.inputs.load import Loaded
from fleetgen.inputs.record import Record, written
from fleetgen.manifests.k8s import Key
from fleetgen.model import Fleet
from fleetgen.model.apps import layer_inputs
from fleetgen.model.fields import repo_path
from fleetgen.resolver import resolve
from fleetgen.resolver.placements import Placements
from fleetgen.resolver.plan import Plan
from fleetgen.write.journal import RECORD
from fleetgen.write.output import OutputFile

ARGO_GROUP = "argoproj.io"
Pair = tuple[str, str]  # (app, cluster): one placement
Op = Literal["added", "removed", "changed"]
Source = Literal["generated", "derived", "rendered"]


@dataclass(frozen=True, slots=True)
class Facts:
    """What attribution needs from one ref's Plan (empty for an empty fleet)."""

    cluster_env: Mapping[str, str] = field(default_factory=dict)
    server: Mapping[str, str] = field(default_factory=dict)
    env_clusters: Mapping[str, frozenset[str]] = field(default_factory=dict)
    production: frozenset[str] = frozenset()
    app_project: Mapping[str, str] = field(default_factory=dict)
    app_path: Mapping[str, str] = field(default_factory=dict)
    # kustomize app -> the directories its layers add to its overlays (`layer_inputs`)
    app_inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    project_namespaces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    overlay_of: Mapping[Pair, str] = field(default_factory=dict)  # placement -> overlay dir
    builds_on: Mapping[str, str] = field(default_factory=dict)  # cluster overlay -> env overlay
    engine: Mapping[Pair, str] = field(default_factory=dict)  # placement -> its engine
    # placement -> the namespace it deploys into (None: its manifests say)
    namespace: Mapping[Pair, str | None] = field(default_factory=dict)
    manual: frozenset[Pair] = frozenset()  # placements whose sync is manual (not automated)
    suspended: frozenset[Pair] = frozenset()  # placements Flux holds suspended (manual ones)
    overlay_users: Mapping[str, frozenset[Pair]] = field(default_factory=dict)
    app_clusters: Mapping[str, frozenset[str]] = field(default_factory=dict)
    cluster_apps: Mapping[str, frozenset[str]] = field(default_factory=dict)
    cascade_delete: bool = False
    flux_per_cluster: bool = False

    @classmethod
    def of(cls, fleet: Fleet, placements: Placements) -> Facts:
        """The facts of ``fleet`` placed as ``placements``."""
        builds_on = placements.builds_on
        users: dict[str, set[Pair]] = {}
        app_clusters: dict[str, set[str]] = {}
        cluster_apps: dict[str, set[str]] = {}
        overlay_of: dict[Pair, str] = {}
        engine: dict[Pair, str] = {}
        namespace: dict[Pair, str | None] = {}
        manual: set[Pair] = set()
        for app, cluster, _, overlay, engine_name, placed_in, by_hand in placements.rows:
            pair = (app, cluster)
            overlay_of[pair], engine[pair], namespace[pair] = overlay, engine_name, placed_in
            if by_hand:
                manual.add(pair)
            app_clusters.setdefault(app, set()).add(cluster)
            cluster_apps.setdefault(cluster, set()).add(app)
            for path in (overlay, builds_on.get(overlay)):
                if path:  # a chart app has no overlay ("")
                    users.setdefault(path, set()).add(pair)
        env_clusters: dict[str, set[str]] = {env.name: set() for env in fleet.environments}
        for cluster_spec in fleet.clusters:
            env_clusters.setdefault(cluster_spec.env, set()).add(cluster_spec.name)
        return cls(
            cluster_env={c.name: c.env for c in fleet.clusters},
            server={c.name: c.server for c in fleet.clusters},
            env_clusters={env: frozenset(names) for env, names in env_clusters.items()},
            production=frozenset(env.name for env in fleet.environments if env.is_production),
            app_project={a.name: a.project for a in fleet.apps},
            app_path={
                a.name: repo_path(a.base_path) for a in fleet.apps if a.base_path is not None
            },
            app_inputs={a.name: tuple(layer_inputs(a)) for a in fleet.apps if a.kustomize},
            project_namespaces={p.name: tuple(sorted(p.namespaces)) for p in fleet.projects},
            overlay_of=overlay_of,
            builds_on=builds_on,
            engine=engine,
            namespace=namespace,
            manual=frozenset(manual),
            suspended=frozenset(pair for pair in manual if engine[pair] == "flux"),
            overlay_users={path: frozenset(pairs) for path, pairs in users.items()},
            app_clusters={app: frozenset(names) for app, names in app_clusters.items()},
            cluster_apps={cluster: frozenset(names) for cluster, names in cluster_apps.items()},
            cascade_delete=fleet.cascades_anywhere,
            flux_per_cluster="flux" in fleet.engines and fleet.flux.mode == "per-cluster",
        )


@dataclass(frozen=True, slots=True)
class Where:
    """What one change reaches."""

    clusters: frozenset[str] = frozenset()
    apps: frozenset[str] = frozenset()
    envs: frozenset[str] = frozenset()
    projects: frozenset[str] = frozenset()
    production: bool = False

    def __or__(self, other: Where) -> Where:
        return Where(
            self.clusters | other.clusters,
            self.apps | other.apps,
            self.envs | other.envs,
            self.projects | other.projects,
            self.production or other.production,
        )

    @property
    def cluster(self) -> str | None:
        """The one cluster reached, if exactly one."""
        return next(iter(self.clusters)) if len(self.clusters) == 1 else None

    @property
    def app(self) -> str | None:
        """The one app reached, if exactly one."""
        return next(iter(self.apps)) if len(self.apps) == 1 else None


@dataclass(frozen=True, slots=True)
class Change:
    """One object added, removed or changed; ``file`` is relative to the spec's directory."""

    op: Op
    obj: Obj  # the head object; the base object when removed
    file: str
    fields: tuple[Field, ...]
    where: Where
    source: Source


@dataclass(frozen=True, slots=True)
class Context:
    """Both refs' facts, queried as one."""

    base: Facts
    head: Facts

    @property
    def sides(self) -> tuple[Facts, Facts]:
        """(base, head)."""
        return self.base, self.head

    def placements(self) -> set[Pair]:
        """Every placement at either ref."""
        return {pair for facts in self.sides for pair in facts.overlay_of}

    def reached(self, where: Where) -> set[Pair]:
        """Placements at either ref that a change reaching ``where`` acts on: those of its apps
        on its clusters, or every placement on its clusters when it names no app."""
        return {
            (app, cluster)
            for app, cluster in self.placements()
            if cluster in where.clusters and (not where.apps or app in where.apps)
        }

    def users(self, overlay_dir: str) -> set[Pair]:
        """Placements built from an overlay directory at either ref."""
        return {pair for facts in self.sides for pair in facts.overlay_users.get(overlay_dir, ())}

    def clusters_of(self, app: str, env: str | None, engine: str | None = None) -> set[str]:
        """Clusters ``app`` is placed on (in ``env``, by ``engine``, if given) at either ref."""
        return {
            cluster
            for facts in self.sides
            for cluster in facts.app_clusters.get(app, ())
            if env in (None, facts.cluster_env.get(cluster))
            and engine in (None, facts.engine.get((app, cluster)))
        }

    def apps_on(self, cluster: str, namespace: str | None = None) -> set[str]:
        """Apps placed on ``cluster`` (deploying into ``namespace``, if given) at either ref."""
        return {
            app
            for facts in self.sides
            for app in facts.cluster_apps.get(cluster, ())
            if namespace in (None, facts.namespace.get((app, cluster)))
        }

    def cluster_named(self, name: Any, server: Any) -> str | None:
        """The fleet cluster an Argo CD destination names (by name, else by server)."""
        for facts in self.sides:
            if name in facts.cluster_env:
                return str(name)
        for facts in self.sides:
            for cluster, url in facts.server.items():
                if url == server:
                    return cluster
        return None

    def complete(
        self,
        clusters: Iterable[str],
        apps: Iterable[str],
        envs: Iterable[str] = (),
        projects: Iterable[str] = (),
    ) -> Where:
        """A Where with the environments of its clusters and the projects of its apps."""
        clusters, apps = frozenset(clusters), frozenset(apps)
        all_envs = set(envs) | {
            f.cluster_env[c] for f in self.sides for c in clusters if c in f.cluster_env
        }
        all_projects = set(projects) | {
            f.app_project[a] for f in self.sides for a in apps if a in f.app_project
        }
        production = any(env in facts.production for facts in self.sides for env in all_envs)
        return Where(clusters, apps, frozenset(all_envs), frozenset(all_projects), production)


class Application(NamedTuple):
    """What the Plan fixes about one generated Application (a tuple: cheap at 100,000s)."""

    namespace: str
    name: str
    owner: str
    project: str
    source: tuple[tuple[str, str], ...]  # spec.source's fields: repoURL, chart, revision, path
    cluster: str
    server: str
    target_namespace: str | None  # None: the manifests say (App(namespace=None))
    file: str

    def obj(self) -> Obj:
        """The Application as an object, shaped like the one Argo CD will hold."""
        doc = {
            "apiVersion": f"{ARGO_GROUP}/v1alpha1",
            "kind": "Application",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "ownerReferences": [
                    {
                        "apiVersion": f"{ARGO_GROUP}/v1alpha1",
                        "kind": "ApplicationSet",
                        "name": self.owner,
                    }
                ],
            },
            "spec": {
                "project": self.project,
                "source": dict(self.source),
                "destination": {
                    "name": self.cluster,
                    "server": self.server,
                    **({"namespace": self.target_namespace} if self.target_namespace else {}),
                },
            },
        }
        key = Key(scope_of(self.file), ARGO_GROUP, "Application", self.namespace, self.name)
        return Obj(key, self.file, doc)  # on the Argo CD instance of its ApplicationSet's file


@dataclass(frozen=True)
class Side:
    """One ref, compiled: its snapshot, spec (None: no spec, an empty fleet), output files, the
    facts attribution needs and its derived Applications. When its placements came from the
    cache, the Plan is resolved on first use (only chart apps and ``--render`` need it)."""

    snapshot: Snapshot
    loaded: Loaded | None
    files: Mapping[str, OutputFile]  # by output-relative path
    facts: Facts
    applications: Mapping[tuple[str, str], Application]  # `derived_applications`
    _plan: Plan | None = field(default=None, repr=False, compare=False)

    @property
    def plan(self) -> Plan | None:
        """The Plan the files were emitted from (None for an empty fleet)."""
        if self._plan is None and self.loaded is not None:
            object.__setattr__(self, "_plan", resolve(self.loaded.fleet, self.loaded.workspace))
        return self._plan

    @property
    def chart_plan(self) -> Plan | None:
        """The Plan if an app deploys a chart, else None: no placement has a chart then, and a
        Plan not resolved yet need not be resolved to find none."""
        fleet = self.loaded.fleet if self.loaded is not None else None
        charted = fleet is not None and any(app.chart is not None for app in fleet.apps)
        return self.plan if charted else None

    @property
    def record(self) -> Record:
        """The record this side's compile writes (`fleetgen.inputs.record`): what drains."""
        file = self.files.get(RECORD)
        return written(file.text.encode()) if file is not None and file.text else Record()

    @property
    def output_dir(self) -> str:
        """Where the fleet writes its output, relative to the spec's directory."""
        return self.loaded.fleet.output_dir if self.loaded is not None else "output"

    def shown(self, path: str) -> str:
        """An output-relative path as users see it (relative to the spec's directory)."""
        return posixpath.join(self.output_dir, path)
