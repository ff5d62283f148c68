"""The report of ``diff`` and its JSON contract.

JSON contract (``--format json``, ``Report.to_json``; version 1 — fields are only ever added),
typed by `ReportJSON`, whose JSON Schema is ``docs/diff.schema.json``::

    {"version": 1,
     "base": "<sha>", "head": "<sha>" | "worktree", "base_ref": "<as named>", "head_ref": "…",
     "changed": bool,            # exit status 1 when true
     "rendered": bool,           # --render: rendered workloads compared too
     "touched": {"clusters": [...], "environments": [...], "apps": [...], "projects": [...]},
     "production": {same keys},  # the part of "touched" in production environments
     "placements": {"added": [{"app", "cluster", "env"}], "removed": [...],
                    "moved": [{"app", "cluster", "env", "from": "argocd" | "flux", "to": …,
                               "workloads": "orphaned" | "deleted", "production",
                               "suspended": bool}]},
     "deletions": [{"source", "op": "removed", "kind", "group", "name", "namespace",
                    "cluster", "clusters", "app", "apps", "environments", "production", "file",
                    "engine": "argocd" | "flux",
                    "workloads": "deleted" | "orphaned" | "kept-prune-disabled" | "kept-suspended"
                                  | "stuck" | null}],
     "renames": [{"kind", "group", "namespace", "cluster", "app", "from", "to", "file",
                  "from_cluster", "from_file", "because", "engine", "workloads", "production",
                  "fields": [...]}],
     "changes": [{"source": "generated" | "derived" | "rendered",
                  "op": "added" | "removed" | "changed",
                  "kind", "group", "name", "namespace", "cluster", "clusters", "app", "apps",
                  "environments", "production", "file",
                  "fields": [{"path", "old", "new"}]}],
     "notes": ["…"],
     "not_rendered": {"chart NAME VERSION: reason": placements},
     "charts": {"versions": [{"app", "env", "clusters", "production", "old", "new"}],
                "values": [{"app", "env", "clusters", "production", "path", "old", "new",
                            "old_set", "new_set"}]}}

Every list is sorted; ``touched`` names only what changes. ``cluster``/``app`` are set when a
change reaches exactly one (else null; ``clusters``/``apps`` list them all). ``file`` is
relative to the spec's directory; a rendered change names the overlay directory built. Field
paths: ``a.b``, ``a["x.y"]``, ``list[name=web].image``, ``list[0]``; ``old``/``new`` are null
where the field is absent. ``changes`` come production first, then grouped by cluster (or by
environment for a shared env overlay) and app. ``derived`` changes are Applications that
ApplicationSets generate (see ``blast.derived_applications``). A deletion's ``workloads`` is read
from the deleted object (Flux ``deletionPolicy``, the ApplicationSet's
``preserveResourcesOnDeletion``), else from ``cascade_delete`` of either ref (deleted if either
cascades); ``kept-prune-disabled``: Flux never deletes an object annotated
``kustomize.toolkit.fluxcd.io/prune: disabled``, nor what it holds; ``kept-suspended``: a
suspended Flux object deletes nothing; ``stuck``: its finalizer
cannot finish because the same change removes what it needs (a note says what and why). A
placement that changes engine is ``moved``, not deleted: the old engine's objects that
act only on moved placements are left out of ``deletions`` (they stay in ``changes``), and the
move's ``workloads`` says what the old engine does to the workloads: ``orphaned`` (the new engine
adopts them) or ``deleted`` (the new engine recreates them); ``suspended`` when the new engine
is Flux holding the placement suspended (a manual sync), which adopts nothing yet. ``charts``
lists, for chart apps placed at both refs, each chart version change per app and environment
and each changed value path of the merged values (``fleetgen.diffs.charts``);
``old_set``/``new_set`` tell an unset value from a null one. With ``--render``, chart apps'
rendered objects are ``rendered`` changes too (``file``: the chart template, or the chart
archive of a chart from a repository), and ``not_rendered`` counts the chart placements that
could not be rendered at a ref (a chart from a repository without ``--charts``), which are
therefore not compared (``fleetgen.diffs.rendercharts``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fleetgen.diffs.blast import Change, Where
from fleetgen.diffs.charts import ABSENT, Bump, ValueChange
from fleetgen.diffs.refs import WORKTREE
from fleetgen.emit.pictures import EnvView

# What deleting an object does to the workloads it manages (`fleetgen.diffs.blast.workloads`).
Workloads = Literal["deleted", "orphaned", "kept-prune-disabled", "kept-suspended", "stuck"]


@dataclass(frozen=True, slots=True)
class Ref:
    """A compared ref: as the user named it, and its commit (None for the working tree)."""

    label: str
    sha: str | None


@dataclass(frozen=True, slots=True)
class Deletion:
    """A removed object an engine applies, and what happens to the workloads it manages."""

    change: Change
    engine: str
    workloads: str | None


@dataclass(frozen=True, slots=True)
class Rename:
    """An object that moved to a new identity because a spec name changed."""

    old: Change  # the base object (op "removed")
    new: Change  # the head object, with the field changes (op "changed")
    because: str
    engine: str | None
    workloads: str | None


@dataclass(frozen=True, slots=True)
class Placed:
    """One placement added or removed."""

    app: str
    cluster: str
    env: str


@dataclass(frozen=True, slots=True)
class Move:
    """One placement whose engine changes; the workloads stay unless the old engine deletes them.

    ``workloads``: what the old engine does with them, ``orphaned`` (the new engine adopts
    them) or ``deleted`` (the new engine recreates them); ``suspended``: the new engine is Flux
    and holds the placement suspended (a manual sync), so it adopts or recreates nothing yet.
    """

    app: str
    cluster: str
    env: str
    old: str
    new: str
    workloads: str
    production: bool
    suspended: bool = False


@dataclass(frozen=True, slots=True)
class Report:
    """Everything ``diff`` found; ``to_json`` is the stable contract."""

    base: Ref
    head: Ref
    touched: Where
    production: Where
    added: tuple[Placed, ...]
    removed: tuple[Placed, ...]
    moved: tuple[Move, ...]
    changes: tuple[Change, ...]
    deletions: tuple[Deletion, ...]
    renames: tuple[Rename, ...]
    notes: tuple[str, ...]
    rendered: bool
    bumps: tuple[Bump, ...] = ()
    values: tuple[ValueChange, ...] = ()
    not_rendered: Mapping[str, int] = field(default_factory=dict)  # label -> placements
    # the touched clusters' environments and rollout waves (`pictures.touched`): a view, not JSON
    rollout: tuple[EnvView, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether anything that reaches a cluster or an engine changes."""
        return bool(self.changes or self.renames or self.added or self.removed or self.moved)

    def to_json(self) -> dict[str, Any]:
        """The documented JSON document (module docstring; schema: `ReportJSON`)."""
        return self.contract().model_dump(by_alias=True)

    def contract(self) -> ReportJSON:
        """The report as the typed JSON contract."""
        return ReportJSON(
            base=self.base.sha,
            head=self.head.sha or WORKTREE,
            base_ref=self.base.label,
            head_ref=self.head.label,
            changed=self.changed,
            rendered=self.rendered,
            touched=_names(self.touched),
            production=_names(self.production),
            placements=Placements(
                added=[_placed(p) for p in self.added],
                removed=[_placed(p) for p in self.removed],
                moved=[_moved(m) for m in self.moved],
            ),
            deletions=[
                DeletionJSON(**_object(d.change), engine=d.engine, workloads=d.workloads)
                for d in self.deletions
            ],
            renames=[_rename_json(r) for r in self.renames],
            changes=[ChangeJSON(**_object(c), fields=_fields(c)) for c in self.changes],
            notes=list(self.notes),
            charts=ChartsJSON(
                versions=[_bump(b) for b in self.bumps], values=[_value(v) for v in self.values]
            ),
            not_rendered=dict(self.not_rendered),
        )


class _Contract(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Names(_Contract):
    """Names reached, each list sorted."""

    clusters: list[str]
    environments: list[str]
    apps: list[str]
    projects: list[str]


class PlacedJSON(_Contract):
    """A placement added or removed."""

    app: str
    cluster: str
    env: str


class MovedJSON(_Contract):
    """A placement whose engine changes: the old engine lets go, the new one adopts."""

    app: str
    cluster: str
    env: str
    from_: Literal["argocd", "flux"] = Field(alias="from")
    to: Literal["argocd", "flux"]
    workloads: Workloads | None
    production: bool
    suspended: bool = Field(
        description="the new engine is Flux and the placement's sync is manual: suspended, it "
        "adopts or recreates nothing until fleet.py sets its sync to automated"
    )


class Placements(_Contract):
    """Placements that appear, disappear and change engine."""

    added: list[PlacedJSON]
    removed: list[PlacedJSON]
    moved: list[MovedJSON]


class FieldJSON(_Contract):
    """One leaf that differs; ``old``/``new`` are null where it is absent."""

    path: str = Field(description='a.b, a["x.y"], list[name=web].image, list[0]')
    old: Any = Field(description="the value at the base (any JSON value), null where absent")
    new: Any = Field(description="the value at the head (any JSON value), null where absent")


class ObjectJSON(_Contract):
    """An object added, removed or changed, and what it reaches."""

    source: Literal["generated", "derived", "rendered"]
    op: Literal["added", "removed", "changed"]
    kind: str
    group: str
    name: str
    namespace: str
    cluster: str | None = Field(description="the one cluster reached, else null")
    clusters: list[str]
    app: str | None = Field(description="the one app reached, else null")
    apps: list[str]
    environments: list[str]
    production: bool
    file: str = Field(
        description="relative to the spec's directory; for a rendered change "
        "the overlay directory built"
    )


class DeletionJSON(ObjectJSON):
    """A removed object an engine applies, and the fate of the workloads it manages."""

    engine: Literal["argocd", "flux"]
    workloads: Workloads | None


class ChangeJSON(ObjectJSON):
    """A change with its field-level differences."""

    fields: list[FieldJSON]


class RenameJSON(_Contract):
    """An object that moved to a new identity because a spec name changed."""

    kind: str
    group: str
    namespace: str
    cluster: str | None
    app: str | None
    from_: str = Field(alias="from")
    to: str
    file: str
    from_cluster: str | None
    from_file: str
    because: str
    engine: Literal["argocd", "flux"] | None
    workloads: Workloads | None
    production: bool
    fields: list[FieldJSON]


class BumpJSON(_Contract):
    """A chart version (or chart) change of an app in one environment."""

    app: str
    env: str
    clusters: list[str]
    production: bool
    old: str
    new: str


class ValueJSON(_Contract):
    """A changed value path of an app's merged values on some clusters of one environment."""

    app: str
    env: str
    clusters: list[str]
    production: bool
    path: str = Field(description='as Helm\'s --set names it: a.b, a["x.y"]')
    old: Any = Field(description="the value at the base; null where unset (old_set false)")
    new: Any = Field(description="the value at the head; null where unset (new_set false)")
    old_set: bool
    new_set: bool


class ChartsJSON(_Contract):
    """Chart apps placed at both refs: chart version changes and value changes."""

    versions: list[BumpJSON] = []
    values: list[ValueJSON] = []


class ReportJSON(_Contract):
    """``fleetgen diff --format json``: version 1; fields are only ever added."""

    model_config = ConfigDict(title="fleetgen diff report")

    version: Literal[1] = 1
    base: str | None = Field(description="the base commit")
    head: str = Field(description=f"the head commit, or {WORKTREE!r}")
    base_ref: str
    head_ref: str
    changed: bool = Field(description="exit status 1 when true")
    rendered: bool = Field(description="--render: rendered workloads compared too")
    touched: Names = Field(description="only what changes")
    production: Names = Field(description="the part of touched in production environments")
    placements: Placements
    deletions: list[DeletionJSON]
    renames: list[RenameJSON]
    changes: list[ChangeJSON] = Field(
        description="production first, then grouped by cluster (or environment) and app"
    )
    notes: list[str]
    charts: ChartsJSON = ChartsJSON()
    not_rendered: dict[str, int] = Field(
        default={},
        description="--render: chart placements whose rendered objects are not "
        "compared, by 'chart NAME VERSION: reason'",
    )


def json_schema() -> str:
    """The JSON Schema of the contract, as committed in ``docs/diff.schema.json``."""
    return json.dumps(ReportJSON.model_json_schema(by_alias=True), indent=2) + "\n"


def _names(where: Where) -> Names:
    return Names(
        clusters=sorted(where.clusters),
        environments=sorted(where.envs),
        apps=sorted(where.apps),
        projects=sorted(where.projects),
    )


def _placed(placed: Placed) -> PlacedJSON:
    return PlacedJSON(app=placed.app, cluster=placed.cluster, env=placed.env)


def _moved(move: Move) -> MovedJSON:
    return MovedJSON.model_validate(
        {
            "app": move.app,
            "cluster": move.cluster,
            "env": move.env,
            "from": move.old,
            "to": move.new,
            "workloads": move.workloads,
            "production": move.production,
            "suspended": move.suspended,
        }
    )


def _bump(bump: Bump) -> BumpJSON:
    return BumpJSON(
        app=bump.app,
        env=bump.env,
        clusters=list(bump.clusters),
        production=bump.production,
        old=bump.old,
        new=bump.new,
    )


def _value(change: ValueChange) -> ValueJSON:
    return ValueJSON(
        app=change.app,
        env=change.env,
        clusters=list(change.clusters),
        production=change.production,
        path=change.path,
        old=None if change.old is ABSENT else change.old,
        new=None if change.new is ABSENT else change.new,
        old_set=change.old is not ABSENT,
        new_set=change.new is not ABSENT,
    )


def _object(change: Change) -> dict[str, Any]:
    key, where = change.obj.key, change.where
    return {
        "source": change.source,
        "op": change.op,
        "kind": key.kind,
        "group": key.group,
        "name": key.name,
        "namespace": key.namespace,
        "cluster": where.cluster,
        "clusters": sorted(where.clusters),
        "app": where.app,
        "apps": sorted(where.apps),
        "environments": sorted(where.envs),
        "production": where.production,
        "file": change.file,
    }


def _fields(change: Change) -> list[FieldJSON]:
    return [FieldJSON(path=f.path, old=f.old, new=f.new) for f in change.fields]


def _rename_json(rename: Rename) -> RenameJSON:
    old, new = rename.old, rename.new
    return RenameJSON(
        kind=new.obj.key.kind,
        group=new.obj.key.group,
        namespace=new.obj.key.namespace,
        cluster=new.where.cluster,
        app=new.where.app,
        from_=old.obj.key.name or old.file,
        to=new.obj.key.name or new.file,
        file=new.file,
        from_cluster=old.where.cluster,
        from_file=old.file,
        because=rename.because,
        engine=rename.engine,
        workloads=rename.workloads,
        production=new.where.production or old.where.production,
        fields=_fields(new),
    )


def section(where: Where) -> tuple[int, str]:
    """Where a change is listed: one cluster; one environment's clusters; several; none."""
    if len(where.clusters) == 1:
        return 0, next(iter(where.clusters))
    envs = sorted(where.envs)
    if where.clusters:
        return (1, envs[0]) if len(envs) == 1 else (2, "")
    return (3, envs[0]) if len(envs) == 1 else (4, "")
