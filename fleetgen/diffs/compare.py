"""diff: compile the spec at two refs and compare what they generate, object by object.

The base ref is read in memory through Git (``fleetgen.diffs.refs``); the head is the working tree
or another ref. Both are compiled by the running fleetgen, so the report shows what the spec
change does, not what differs in a possibly stale committed ``output/``. ``diff`` writes nothing
into the repository but the (self-ignoring) cache under ``output/.fleetgen/cache/``: not the
working tree, the index, a ref or a worktree (the cache holds compiled refs, their placements
and, with ``--render``, chart renders).

The report and its JSON contract: ``fleetgen.diffs.report``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fleetgen.diffs import charts
from fleetgen.diffs.blast import (
    Change,
    Context,
    Facts,
    Pair,
    Side,
    Source,
    Where,
    applied_by,
    attribute,
    entity_renames,
    workloads,
)
from fleetgen.diffs.notes import (
    _notes,
    _runtime_notes,
    _uninstalls,
    draining_notes,
    instance_moves,
    narrowed,
    stranded,
    stuck,
    tenant_prunes,
)
from fleetgen.diffs.notices import notification_notes
from fleetgen.diffs.objects import Obj, field_changes, file_objects, index, rename_key, whole
from fleetgen.diffs.refs import (
    EditedWorktree,
    RefError,
    Snapshot,
    WorktreeSnapshot,
    commit_snapshot,
    default_base,
    open_repo,
    spec_root,
)
from fleetgen.diffs.render import changed_bases, render_changes
from fleetgen.diffs.rendercharts import chart_changes
from fleetgen.diffs.report import Deletion, Move, Placed, Ref, Rename, Report, section
from fleetgen.diffs.sides import RefSpecError, load_side
from fleetgen.diffs.syncs import held_notes, sync_notes
from fleetgen.diffs.takeovers import tenant_takeovers
from fleetgen.emit import pictures
from fleetgen.manifests.k8s import Key
from fleetgen.pipeline.incremental import StoredFiles
from fleetgen.tools.kustomize import Kustomize
from fleetgen.util import cache
from fleetgen.util.layout import argocd_part
from fleetgen.util.progress import SILENT, Progress
from fleetgen.write.journal import RECORD
from fleetgen.write.output import OutputFile


def diff(
    spec: Path = Path("fleet.py"),
    base: str | None = None,
    head: str | None = None,
    *,
    render: bool = False,
    kustomize: Kustomize | None = None,
    charts_dir: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Compare what ``spec`` compiles to at ``base`` (default: the merge-base of HEAD with the
    default branch, else HEAD) and at ``head`` (default: the working tree). ``charts_dir``: with
    ``render``, the local chart cache of charts from repositories (`fleetgen.validate.charts`);
    ``progress``: where the phases of the work are reported (default: not).

    Raises RefSpecError (a spec error at one ref), refs.RefError, and with ``render``
    render.RenderError or kustomize.KustomizeNotFound.
    """
    spec, progress = spec.resolve(), progress or SILENT
    with open_repo(spec.parent) as repo:
        root = spec_root(repo, spec)
        name = spec.name
        if base is None:
            sha, label = default_base(repo)
            old_snapshot: Snapshot = commit_snapshot(repo, sha, root, label)
        else:
            old_snapshot = commit_snapshot(repo, base, root)
        new_snapshot: Snapshot = (
            WorktreeSnapshot(repo, spec.parent)
            if head is None
            else commit_snapshot(repo, head, root)
        )
        if old_snapshot.read(name) is None and new_snapshot.read(name) is None:
            raise RefError(
                f"{posixpath.join(root, name)} exists at neither "
                f"{old_snapshot.label} nor {new_snapshot.label}"
            )
        in_repo = posixpath.join(root, name)
        progress.phase(f"compiling {name} at {old_snapshot.label}")
        old_side = load_side(old_snapshot, name, in_repo, spec)
        progress.phase(f"compiling {name} at {new_snapshot.label}")
        new_side = load_side(new_snapshot, name, str(spec) if head is None else in_repo, spec)
        store = cache.Cache(spec.parent / new_side.output_dir)
        progress.phase("comparing")
        return compare(
            old_side,
            new_side,
            render=render,
            kustomize=kustomize,
            charts_dir=charts_dir,
            store=store,
            progress=progress,
        )


def edited(spec: Path, before: str, after: str) -> Report:
    """What changing ``spec``'s text from ``before`` to ``after`` does, the rest of its working
    tree as it is: the report of an edit fleetgen makes (``promote``)."""
    spec = spec.resolve()
    with open_repo(spec.parent) as repo:
        base, head = (
            load_side(
                EditedWorktree(repo, spec.parent, label, {spec.name: text.encode()}),
                spec.name,
                str(spec),
                spec,
            )
            for text, label in ((before, spec.name), (after, f"edited {spec.name}"))
        )
        return compare(base, head, store=cache.Cache(spec.parent / head.output_dir))


def compare(
    base: Side,
    head: Side,
    *,
    render: bool = False,
    kustomize: Kustomize | None = None,
    charts_dir: Path | None = None,
    store: cache.Cache | None = None,
    progress: Progress = SILENT,
) -> Report:
    """The report of what changes from ``base`` to ``head`` (``store``: where kustomize builds
    and chart renders are cached; none for builds and a temporary one for charts when None;
    ``progress``: where the renders are reported)."""
    ctx = Context(base.facts, head.facts)
    old, new, derived = _changed_objects(base, head)
    renamed = entity_renames(base.facts, head.facts)
    pairs = _rename_pairs(old, new, {o: n for names in renamed.values() for o, n in names.items()})
    changes = _object_changes(base, head, old, new, pairs, derived, ctx)
    app_sets = _application_sets(base)
    cascade = base.facts.cascade_delete or head.facts.cascade_delete
    renames = [
        _rename(base, head, old[a], new[b], renamed, ctx, derived, app_sets, cascade)
        for a, b in pairs
    ]
    added = _placed_diff(head.facts, base.facts)
    removed = _placed_diff(base.facts, head.facts)
    bases = changed_bases(base, head)
    notes = _notes(base, head, renamed, bases, render)
    not_rendered: dict[str, int] = {}
    if render:
        affected = _render_pairs(changes, renames, bases, added + removed, ctx)
        changes += render_changes(base, head, affected, ctx, kustomize, store, progress)
        charted = chart_changes(base, head, ctx, charts_dir, store, progress)
        changes += charted.changes
        not_rendered = charted.not_rendered
        notes += [
            f"{label}; its rendered objects are not compared ({count} placement"
            f"{'' if count == 1 else 's'})"
            for label, count in not_rendered.items()
        ]
    deletions = [
        Deletion(c, engine, workloads(c.obj, cascade, app_sets))
        for c in changes
        if c.op == "removed"
        and c.source != "rendered"
        and (engine := applied_by(c.obj)) is not None
    ]
    deletions, unreachable = stranded(deletions, changes)
    deletions, locked_out = narrowed(deletions, head)
    deletions, blocked = stuck(deletions, changes)
    deleting = any(d.workloads == "deleted" for d in deletions)
    notes += unreachable + locked_out + blocked + draining_notes(base, head, deleting)
    notes += tenant_prunes(changes) + tenant_takeovers(renames, base, head)
    notes += instance_moves(deletions, changes)
    moved, deletions = _moves(deletions, cascade, ctx)
    notes += _uninstalls(changes)
    reaches = _reaches(changes, renames, [*added, *removed, *moved], ctx)
    notes += _runtime_notes(base, head, _touched(reaches).apps)
    notes += sync_notes(base, head) + held_notes(base, head, changes)
    notes += notification_notes(base, head)
    bumps, values = charts.changes(
        base.chart_plan, head.chart_plan, base.facts.production | head.facts.production
    )
    touched = _touched(reaches)
    return Report(
        base=Ref(base.snapshot.label, base.snapshot.sha),
        head=Ref(head.snapshot.label, head.snapshot.sha),
        touched=touched,
        production=_production(reaches, ctx),
        added=tuple(added),
        removed=tuple(removed),
        moved=tuple(moved),
        changes=tuple(sorted(changes, key=_order)),
        deletions=tuple(sorted(deletions, key=lambda d: _order(d.change))),
        renames=tuple(sorted(renames, key=lambda r: _order(r.new))),
        notes=tuple(notes),
        rendered=render,
        bumps=bumps,
        values=values,
        not_rendered=not_rendered,
        rollout=tuple(pictures.touched(_views(head, base), touched.clusters)),
    )


def _same_file(base: Mapping[str, OutputFile], head: Mapping[str, OutputFile], path: str) -> bool:
    """Whether ``path`` holds the same file at both refs: equal stored bytes
    (`incremental.StoredFiles`: both read back) prove it without decoding either file, else
    their data are compared."""
    if isinstance(base, StoredFiles) and isinstance(head, StoredFiles):
        stored = base.serialized(path)
        if stored is not None and stored == head.serialized(path):
            return True
    return base.get(path) == head.get(path)


def _changed_objects(base: Side, head: Side) -> tuple[dict[Key, Obj], dict[Key, Obj], set[Key]]:
    """Objects of files that differ, plus derived Applications; identical ones left out."""
    paths = sorted(
        path
        for path in base.files.keys() | head.files.keys()
        if path != RECORD and not _same_file(base.files, head.files, path)
    )
    old = index(base.files[path] for path in paths if path in base.files)
    new = index(head.files[path] for path in paths if path in head.files)
    before, after = base.applications, head.applications
    differ = sorted(
        key for key in before.keys() | after.keys() if before.get(key) != after.get(key)
    )
    derived: set[Key] = set()
    for applications, found in ((before, old), (after, new)):
        objs = [applications[key].obj() for key in differ if key in applications]
        found.update((obj.key, obj) for obj in objs)
        derived |= {obj.key for obj in objs}
    for key in old.keys() & new.keys():
        if old[key].doc == new[key].doc:
            del old[key], new[key]
    return old, new, derived


def _rename_pairs(
    old: Mapping[Key, Obj], new: Mapping[Key, Obj], renamed: Mapping[str, str]
) -> list[tuple[Key, Key]]:
    """(old, new) identities that differ only by renamed spec names."""
    arrived = set(new.keys() - old.keys())
    pairs = []
    for key in sorted(old.keys() - new.keys()):
        target = rename_key(key, renamed)
        if target != key and target in arrived:
            pairs.append((key, target))
            arrived.discard(target)
    return pairs


def _object_changes(
    base: Side,
    head: Side,
    old: Mapping[Key, Obj],
    new: Mapping[Key, Obj],
    pairs: list[tuple[Key, Key]],
    derived: set[Key],
    ctx: Context,
) -> list[Change]:
    paired = {key for pair in pairs for key in pair}
    changes = []
    for key in sorted(old.keys() | new.keys()):
        if key in paired:
            continue
        source: Source = "derived" if key in derived else "generated"
        if key in old and key in new:
            fields = tuple(field_changes(old[key].doc, new[key].doc))
            where = attribute(old[key], fields, ctx) | attribute(new[key], fields, ctx)
            changes.append(
                Change("changed", new[key], head.shown(new[key].file), fields, where, source)
            )
        else:
            side, obj = (head, new[key]) if key in new else (base, old[key])
            fields = whole(obj, added=key in new)
            changes.append(
                Change(
                    "added" if key in new else "removed",
                    obj,
                    side.shown(obj.file),
                    fields,
                    attribute(obj, fields, ctx),
                    source,
                )
            )
    return changes


def _rename(
    base: Side,
    head: Side,
    old: Obj,
    new: Obj,
    renamed: Mapping[str, Mapping[str, str]],
    ctx: Context,
    derived: set[Key],
    app_sets: Mapping[str, Any],
    cascade: bool,
) -> Rename:
    source: Source = "derived" if new.key in derived else "generated"
    fields = tuple(field_changes(old.doc, new.doc))
    before = Change(
        "removed",
        old,
        base.shown(old.file),
        whole(old, added=False),
        attribute(old, fields, ctx),
        source,
    )
    after = Change(
        "changed", new, head.shown(new.file), fields, attribute(new, fields, ctx), source
    )
    texts = " ".join((old.key.scope, old.key.name))
    because = "; ".join(
        f"{kind} {a} renamed to {b}"
        for kind, names in sorted(renamed.items())
        for a, b in sorted(names.items())
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(a)}(?![A-Za-z0-9])", texts)
    )
    engine = applied_by(old)
    fate = workloads(old, cascade, app_sets) if engine is not None else None
    return Rename(before, after, because, engine, fate)


def _application_sets(side: Side) -> dict[str, Any]:
    """The ApplicationSets of a side by name (they say what deleting their Applications does)."""
    found: dict[str, Any] = {}
    for path in side.files:  # by path: a stored file is decoded only when read
        if argocd_part(path) == "applicationsets":
            for obj in file_objects(side.files[path]):
                found[obj.key.name] = obj.doc
    return found


def _placed_diff(ours: Facts, theirs: Facts) -> list[Placed]:
    return [
        Placed(app, cluster, ours.cluster_env[cluster])
        for app, cluster in sorted(ours.overlay_of.keys() - theirs.overlay_of.keys())
    ]


def _moves(
    deletions: list[Deletion], cascade: bool, ctx: Context
) -> tuple[list[Move], list[Deletion]]:
    """Placements whose engine changes, and the deletions that are not part of such a move.

    A deletion is part of a move when every placement it acts on moves (the old engine's
    Application or Kustomization, and its registration or Namespace once nothing else uses them).
    What the old engine does to a moved placement's workloads is read from those objects, else
    from ``cascade_delete``.
    """
    base, head = ctx.base, ctx.head
    pairs = sorted(
        pair
        for pair, engine in base.engine.items()  # placed at both, moving
        if head.engine.get(pair, engine) != engine
    )
    if not pairs:
        return [], deletions
    moving, kept = set(pairs), []
    fates: dict[Pair, set[str]] = {pair: set() for pair in pairs}
    for deletion in deletions:
        reached = ctx.reached(deletion.change.where)
        if reached and reached <= moving:
            for pair in reached:
                fates[pair].add(deletion.workloads or "")
        else:
            kept.append(deletion)
    moves = []
    for app, cluster in pairs:
        deleted = "deleted" in fates[app, cluster] or (cascade and not fates[app, cluster])
        where = ctx.complete({cluster}, {app})
        moves.append(
            Move(
                app,
                cluster,
                head.cluster_env[cluster],
                base.engine[app, cluster],
                head.engine[app, cluster],
                "deleted" if deleted else "orphaned",
                where.production,
                (app, cluster) in head.suspended,
            )
        )
    return moves, kept


def _render_pairs(
    changes: list[Change], renames: list[Rename], bases: set[str], moved: list[Placed], ctx: Context
) -> set[Pair]:
    """Placements whose kustomize output may differ: overlay changes, base changes, moves."""
    placed = ctx.placements()
    affected = {(p.app, p.cluster) for p in moved} | {pair for pair in placed if pair[0] in bases}
    for change in [*changes, *(r.new for r in renames)]:
        if change.obj.file.startswith("overlays/"):
            affected |= {(a, c) for a in change.where.apps for c in change.where.clusters} & placed
    for pair in placed:
        if ctx.base.overlay_of.get(pair, "") != ctx.head.overlay_of.get(pair, ""):
            affected.add(pair)
    return affected


def _reaches(
    changes: list[Change], renames: list[Rename], moved: list[Placed | Move], ctx: Context
) -> list[Where]:
    """What each change, rename and placement addition, removal or move reaches."""
    found = [ctx.complete({p.cluster}, {p.app}) for p in moved]
    found += [change.where for change in changes]
    return found + [r.old.where | r.new.where for r in renames]


def _views(head: Side, base: Side) -> list[pictures.EnvView]:
    """The environments of the head's fleet as the pictures draw them (of the base's where the
    head has no spec)."""
    loaded = head.loaded or base.loaded
    return pictures.env_views(loaded.fleet) if loaded is not None else []


def _touched(reaches: list[Where]) -> Where:
    touched = Where()
    for where in reaches:
        touched |= where
    return touched


def _production(reaches: list[Where], ctx: Context) -> Where:
    """The production part of what is reached: production environments and their clusters."""
    envs = {env for facts in ctx.sides for env in facts.production}
    found = Where()
    for where in reaches:
        if where.production:
            clusters = {
                c
                for c in where.clusters
                if any(facts.cluster_env.get(c) in envs for facts in ctx.sides)
            }
            found |= Where(frozenset(clusters), where.apps, where.envs & envs, where.projects, True)
    return found


def _order(change: Change) -> tuple[Any, ...]:
    key = change.obj.key
    return (
        not change.where.production,
        section(change.where),
        change.where.app or "",
        change.source == "rendered",
        change.file,
        key.kind,
        key.namespace,
        key.name,
    )


__all__ = ["RefSpecError", "compare", "diff", "load_side"]
