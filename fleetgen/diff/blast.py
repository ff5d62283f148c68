"""Blast radius: which clusters, apps, environments and projects a generated object reaches.

Attribution uses the object's place in the output layout (DESIGN.md §5) and the Plans of both
refs: an overlay file reaches every placement built from it (directly, or through a cluster
layer on top of an env overlay); ``argocd/clusters/<c>.yaml`` is cluster ``c``;
``argocd/projects/<p>.yaml`` project ``p``; ``argocd/applicationsets/<a>.yaml`` app ``a``, in the
environment its ApplicationSet ``<a>-<env>`` is for, and every Argo CD cluster of that pair unless
only the generators or the rollout strategy changed (those change membership and order, which the
derived Applications report); ``flux/clusters/<c>/`` cluster ``c``, with a Flux Kustomization
attributed to the app it is named after or whose overlay it applies, and a Namespace to the
apps placed there in it; in Flux hub mode, an object in a namespace named after a spoke (or the
Namespace named after it) acts on that spoke, as does ``flux/spokes/<spoke>/``.
``fleetgen.io/{cluster,app,env,project}`` labels, where an emitter sets them, add to this.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from fleetgen.diff.objects import HUB, Field, Obj
from fleetgen.diff.refs import Snapshot
from fleetgen.fields import repo_path
from fleetgen.k8s import Key
from fleetgen.load import Loaded
from fleetgen.model import Fleet
from fleetgen.output import LABEL_PREFIX, OutputFile
from fleetgen.placements import Placements
from fleetgen.plan import Plan
from fleetgen.resolve import resolve

FLUX_GROUP = "kustomize.toolkit.fluxcd.io"
HELM_GROUP = "helm.toolkit.fluxcd.io"
KEEP = "helm.sh/resource-policy: keep"
ARGO_GROUP = "argoproj.io"
PRUNE_DISABLED = ("kustomize.toolkit.fluxcd.io/prune", "disabled")
_MEMBERSHIP_FIELDS = ("spec.generators", "spec.strategy")
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
    app_namespace: Mapping[str, str | None] = field(default_factory=dict)
    app_path: Mapping[str, str] = field(default_factory=dict)
    project_namespaces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    overlay_of: Mapping[Pair, str] = field(default_factory=dict)  # placement -> overlay dir
    builds_on: Mapping[str, str] = field(default_factory=dict)  # cluster overlay -> env overlay
    engine: Mapping[Pair, str] = field(default_factory=dict)  # placement -> its engine
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
        for app, cluster, _, overlay, _ in placements.rows:
            pair = (app, cluster)
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
            app_namespace={a.name: a.namespace for a in fleet.apps},
            app_path={
                a.name: repo_path(a.path)
                for a in fleet.apps
                if a.path is not None and a.source is None
            },
            project_namespaces={p.name: tuple(sorted(p.namespaces)) for p in fleet.projects},
            overlay_of={(app, cluster): overlay for app, cluster, _, overlay, _ in placements.rows},
            builds_on=builds_on,
            engine={(app, cluster): engine for app, cluster, _, _, engine in placements.rows},
            overlay_users={path: frozenset(pairs) for path, pairs in users.items()},
            app_clusters={app: frozenset(names) for app, names in app_clusters.items()},
            cluster_apps={cluster: frozenset(names) for cluster, names in cluster_apps.items()},
            cascade_delete=fleet.cascade_delete,
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
            if namespace in (None, facts.app_namespace.get(app))
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


def engine_of(file: str) -> str | None:
    """The engine that applies an output-relative file, None for overlays and the rest."""
    top = file.split("/", 1)[0]
    return top if top in ("argocd", "flux") else None


def attribute(obj: Obj, fields: Sequence[Field], ctx: Context) -> Where:
    """What ``obj`` reaches, given which of its fields changed (see the module docstring)."""
    parts = obj.file.split("/")
    stem = posixpath.splitext(parts[-1])[0]
    clusters, apps, envs, projects = _labelled(obj.doc)
    if parts[0] == "overlays":
        pairs = ctx.users(posixpath.dirname(obj.file))
        apps |= {app for app, _ in pairs} or set(parts[1:2])
        clusters |= {cluster for _, cluster in pairs}
    elif parts[:2] == ["argocd", "clusters"]:
        clusters.add(stem)
    elif parts[:2] == ["argocd", "projects"]:
        projects.add(stem)
    elif parts[:2] == ["argocd", "applicationsets"]:
        apps.add(stem)
        if obj.key.kind == "ApplicationSet":
            clusters |= _application_set_clusters(obj, stem, fields, ctx, envs)
    elif obj.key.scope not in (HUB, obj.file):  # flux/clusters/<cluster>/, flux/spokes/<spoke>/
        cluster = _flux_target(obj, ctx)
        clusters.add(cluster)
        apps |= _flux_apps(obj, cluster, ctx)
    if obj.key.group == ARGO_GROUP and obj.key.kind == "Application":
        clusters |= _destination(obj.doc, ctx)
    return ctx.complete(clusters, apps, envs, projects)


def _labelled(doc: Any) -> tuple[set[str], set[str], set[str], set[str]]:
    labels = _get(doc, "metadata", "labels") or {}
    found: tuple[set[str], set[str], set[str], set[str]] = (set(), set(), set(), set())
    for target, name in zip(found, ("cluster", "app", "env", "project"), strict=True):
        value = labels.get(LABEL_PREFIX + name) if isinstance(labels, dict) else None
        if isinstance(value, str):
            target.add(value)
    return found


def _application_set_clusters(
    obj: Obj, app: str, fields: Sequence[Field], ctx: Context, envs: set[str]
) -> set[str]:
    """Clusters an ApplicationSet change reaches; records its environment in ``envs``."""
    known = {env for facts in ctx.sides for env in facts.env_clusters}
    env = next((e for e in sorted(known) if obj.key.name == f"{app}-{e}"), None)
    if env is not None:
        envs.add(env)
    broad = any(not f.path.startswith(_MEMBERSHIP_FIELDS) for f in fields)
    return ctx.clusters_of(app, env, "argocd") if broad else set()


def _flux_target(obj: Obj, ctx: Context) -> str:
    """The cluster a Flux-applied object acts on: its directory's, unless it sits in (hub mode)
    or is the namespace named after another cluster of the fleet."""
    key, known = obj.key, {c for facts in ctx.sides for c in facts.cluster_env}
    if key.namespace in known:
        return key.namespace
    if key.group == "" and key.kind == "Namespace" and key.name in known:
        return key.name
    return key.scope


def _flux_apps(obj: Obj, cluster: str, ctx: Context) -> set[str]:
    key = obj.key
    if key.group == FLUX_GROUP and key.kind == "Kustomization":
        placed = ctx.apps_on(cluster)
        if key.name in placed:
            return {key.name}
        path = _get(obj.doc, "spec", "path")
        if isinstance(path, str) and "overlays/" in path:
            overlay = path[path.index("overlays/") :].rstrip("/")
            return {app for app, c in ctx.users(overlay) if c == cluster}
    if key.group == "" and key.kind == "Namespace":
        return ctx.apps_on(cluster, key.name)
    return set()


def _destination(doc: Any, ctx: Context) -> set[str]:
    cluster = ctx.cluster_named(
        _get(doc, "spec", "destination", "name"), _get(doc, "spec", "destination", "server")
    )
    return {cluster} if cluster is not None else set()


def _get(doc: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def workloads(obj: Obj, cascade_delete: bool, application_sets: Mapping[str, Any]) -> str | None:
    """``deleted`` or ``orphaned``: what deleting ``obj`` does to the workloads it manages.

    Read from the object where it says (Flux ``deletionPolicy``/``prune``, the prune-disabled
    annotation, a HelmRelease's keep post-renderer, the owning ApplicationSet's
    ``preserveResourcesOnDeletion``), else from the fleet's ``cascade_delete``. None for objects
    that manage no workloads.
    """
    key, doc = obj.key, obj.doc
    if key.group == HELM_GROUP and key.kind == "HelmRelease":
        return "orphaned" if keeps_objects(doc) else "deleted"
    if key.group == FLUX_GROUP and key.kind == "Kustomization":
        policy = _get(doc, "spec", "deletionPolicy")
        if policy in ("Orphan", "Delete"):
            return "orphaned" if policy == "Orphan" else "deleted"
        prune = _get(doc, "spec", "prune")
        return "deleted" if (prune if isinstance(prune, bool) else cascade_delete) else "orphaned"
    if key.group == "" and key.kind == "Namespace" and engine_of(obj.file) == "flux":
        annotations = _get(doc, "metadata", "annotations") or {}
        kept = (
            isinstance(annotations, dict)
            and annotations.get(PRUNE_DISABLED[0]) == PRUNE_DISABLED[1]
        )
        return "orphaned" if kept else "deleted"
    if key.group == ARGO_GROUP and key.kind in ("Application", "ApplicationSet"):
        owner = key.name if key.kind == "ApplicationSet" else _owner(doc)
        preserve = _get(
            application_sets.get(owner or ""), "spec", "syncPolicy", "preserveResourcesOnDeletion"
        )
        cascade = not preserve if isinstance(preserve, bool) else cascade_delete
        return "deleted" if cascade else "orphaned"
    return None


def keeps_objects(release: Any) -> bool:
    """Whether a HelmRelease's post-renderer annotates every object ``helm.sh/resource-policy:
    keep``: uninstalling the release (helm-controller on deletion) then leaves them."""
    for renderer in _get(release, "spec", "postRenderers") or []:
        for patch in _get(renderer, "kustomize", "patches") or []:
            if isinstance(patch, dict) and KEEP in str(patch.get("patch", "")):
                return True
    return False


def _owner(doc: Any) -> str | None:
    owners = _get(doc, "metadata", "ownerReferences") or []
    names = [
        o.get("name") for o in owners if isinstance(o, dict) and o.get("kind") == "ApplicationSet"
    ]
    return names[0] if names and isinstance(names[0], str) else None


class Application(NamedTuple):
    """What the Plan fixes about one generated Application (a tuple: cheap at 100,000s)."""

    namespace: str
    name: str
    owner: str
    project: str
    repo: str
    revision: str
    path: str
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
                "source": {
                    "repoURL": self.repo,
                    "targetRevision": self.revision,
                    "path": self.path,
                },
                "destination": {
                    "name": self.cluster,
                    "server": self.server,
                    **({"namespace": self.target_namespace} if self.target_namespace else {}),
                },
            },
        }
        return Obj(application_key(self.namespace, self.name), self.file, doc)


def application_key(namespace: str, name: str) -> Key:
    """The identity of an Argo CD Application."""
    return Key(HUB, ARGO_GROUP, "Application", namespace, name)


def derived_applications(
    fleet: Fleet, placements: Placements, files: Mapping[str, OutputFile]
) -> dict[tuple[str, str], Application]:
    """The Applications the ApplicationSets generate at sync time, derived from the placements.

    They exist in no file, so the diff derives them: one per Argo CD placement whose app has an
    ``argocd/applicationsets/<app>.yaml``, named ``<app>-<cluster>``, with what the Plan fixes
    (owner, project, source path, destination).
    """
    apps = {app.name: app for app in fleet.apps}
    sets = {name: file for name in apps if (file := f"argocd/applicationsets/{name}.yaml") in files}
    servers = {cluster.name: cluster.server for cluster in fleet.clusters}
    namespace = fleet.argocd.namespace
    derived = {}
    for app_name, cluster, env, overlay, engine in placements.rows:
        if engine != "argocd" or app_name not in sets:
            continue
        app, name = apps[app_name], f"{app_name}-{cluster}"
        derived[namespace, name] = Application(
            namespace,
            name,
            f"{app_name}-{env}",
            app.project,
            fleet.repo,
            fleet.revision,
            f"{fleet.output_dir}/{overlay}",
            cluster,
            servers[cluster],
            app.namespace,
            sets[app_name],
        )
    return derived


def entity_renames(base: Facts, head: Facts) -> dict[str, dict[str, str]]:
    """Spec names that changed while the thing stayed: kind -> {old: new}.

    A cluster is the same when its server is; an app when its base path is; a project when its
    namespaces are; an environment when its clusters are (after cluster renames).
    """
    clusters = _pair(base.server, head.server)
    old_envs = {
        env: frozenset(clusters.get(c, c) for c in names)
        for env, names in base.env_clusters.items()
        if names
    }
    return {
        "cluster": clusters,
        "app": _pair(base.app_path, head.app_path),
        "project": _pair(base.project_namespaces, head.project_namespaces),
        "environment": _pair(old_envs, {e: n for e, n in head.env_clusters.items() if n}),
    }


def _pair(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, str]:
    """Names that left ``old`` and arrived in ``new`` with the same, unshared, value."""
    gone: dict[Any, list[str]] = {}
    came: dict[Any, list[str]] = {}
    for name, value in old.items():
        if name not in new:
            gone.setdefault(value, []).append(name)
    for name, value in new.items():
        if name not in old:
            came.setdefault(value, []).append(name)
    return {
        olds[0]: came[value][0]
        for value, olds in gone.items()
        if len(olds) == 1 and len(came.get(value, ())) == 1
    }


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
    def output_dir(self) -> str:
        """Where the fleet writes its output, relative to the spec's directory."""
        return self.loaded.fleet.output_dir if self.loaded is not None else "output"

    def shown(self, path: str) -> str:
        """An output-relative path as users see it (relative to the spec's directory)."""
        return posixpath.join(self.output_dir, path)
