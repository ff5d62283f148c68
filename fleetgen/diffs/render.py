"""``diff --render``: what the engines would deploy, before and after, for affected placements.

Generated files never show a change to a user's kustomize base under ``apps/``; this module
finds the apps whose base inputs changed (cheaply, from Git blob ids) and kustomize-builds the
overlays of affected placements at both refs. Each ref's inputs (the generated overlays of the
apps involved and the files their bases read) are written to a temporary directory, never into
the working tree, so no ``git worktree`` is needed. Builds go through the render cache shared
with ``validate --render`` (`fleetgen.tools.renders`), keyed by every file an overlay's build reads:
a second ``diff --render`` of the same refs runs no build.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from fleetgen.diffs.blast import Change, Context, Pair, Side, Where
from fleetgen.diffs.objects import Obj, field_changes, objects, whole
from fleetgen.errors import FleetgenError
from fleetgen.inputs.workspace import base_deps
from fleetgen.manifests.k8s import Key
from fleetgen.tools import renders
from fleetgen.tools.kustomize import Kustomize, find_kustomize
from fleetgen.util import cache
from fleetgen.util.progress import SILENT, Progress
from fleetgen.write import writer

RENDERED = "rendered"  # the scope of rendered workloads: one overlay's build output


class RenderError(FleetgenError):
    """kustomize failed on an overlay at one of the refs."""


def changed_bases(base: Side, head: Side) -> set[str]:
    """Apps at both refs whose base inputs (user files under ``apps/`` …), or the inputs of a
    directory their layers add to their overlays at either ref, differ."""
    apps: dict[tuple[str, str], list[str]] = {}
    added: dict[str, list[str]] = {}  # a directory layers add -> the apps adding it
    for app in sorted(base.facts.app_path.keys() & head.facts.app_path.keys()):
        apps.setdefault((base.facts.app_path[app], head.facts.app_path[app]), []).append(app)
        for path in {*base.facts.app_inputs.get(app, ()), *head.facts.app_inputs.get(app, ())}:
            added.setdefault(path, []).append(app)
    changed: set[str] = set()
    for (old_path, new_path), names in apps.items():
        if _inputs_differ(base, head, old_path, new_path):
            changed.update(names)
    for path, names in sorted(added.items()):
        if not changed.issuperset(names) and _inputs_differ(base, head, path, path):
            changed.update(names)
    return changed


def _inputs_differ(base: Side, head: Side, old_path: str, new_path: str) -> bool:
    """Whether a base reads different files at the two refs (compared by Git blob id)."""
    old, new = base_deps(base.snapshot.read, old_path), base_deps(head.snapshot.read, new_path)
    before, after = base.snapshot, head.snapshot
    if any(before.files(d) != after.files(d) for d in sorted(old.dirs | new.dirs)):
        return True
    return any(before.read(f) != after.read(f) for f in sorted(old.files | new.files))


def render_changes(
    base: Side,
    head: Side,
    pairs: Iterable[Pair],
    ctx: Context,
    kustomize: Kustomize | None = None,
    store: cache.Cache | None = None,
    progress: Progress = SILENT,
) -> list[Change]:
    """Rendered-workload changes of ``pairs`` (placements), one set per overlay transition;
    builds cached in ``store`` when given, reported to ``progress``."""
    groups: dict[tuple[str | None, str | None], set[Pair]] = {}
    for pair in pairs:
        move = (_unit(base, pair), _unit(head, pair))
        if move != (None, None):
            groups.setdefault(move, set()).add(pair)
    built = _build(base, head, groups, kustomize or find_kustomize(), store, progress)
    changes = []
    for (old_dir, new_dir), members in sorted(
        groups.items(), key=lambda g: (str(g[0][1]), str(g[0][0]))
    ):
        old = built.get((0, old_dir), {}) if old_dir is not None else {}
        new = built.get((1, new_dir), {}) if new_dir is not None else {}
        where = ctx.complete({c for _, c in members}, {a for a, _ in members})
        file = _shown(head, new_dir) if new_dir is not None else _shown(base, str(old_dir))
        for key in sorted(old.keys() | new.keys()):
            change = compare_objects(old.get(key), new.get(key), file, where)
            if change is not None:
                changes.append(change)
    return changes


def plain(side: Side, app: str) -> bool:
    """Whether ``app`` reads a plain directory at ``side`` (its workspace inventory; False when
    ``side`` is a stored compile, loaded from nothing)."""
    path = side.facts.app_path.get(app)  # none for a chart app or one from another source
    base = side.loaded.workspace.bases.get(path) if side.loaded and path else None
    return base is not None and base.plain


def _unit(side: Side, pair: Pair) -> str | None:
    """What a placement renders at ``side``: its overlay, a plain directory's
    `renders.directory_unit`, or None (not placed there; a chart app, an app from another
    source: nothing of this repository to build)."""
    overlay = side.facts.overlay_of.get(pair)
    if overlay or overlay is None or not plain(side, pair[0]):
        return overlay or None
    return renders.directory_unit(side.facts.app_path[pair[0]], side.facts.namespace[pair])


def _shown(side: Side, unit: str) -> str:
    """A rendered unit as users see it: an overlay's path, a plain directory's."""
    found = renders.directory_of(unit)
    return found[0] if found is not None else side.shown(unit)


def _name(side: Side, built: str) -> str:
    """The unit a scratch path built: an overlay's output-relative path, or a plain
    directory's unit as it is."""
    return built if renders.directory_of(built) else built[len(side.output_dir) + 1 :]


def compare_objects(old: Obj | None, new: Obj | None, file: str, where: Where) -> Change | None:
    """The rendered change of one object identity (None: the same at both refs)."""
    if old is not None and new is not None:
        if old.doc == new.doc:
            return None
        return Change(
            "changed", new, file, tuple(field_changes(old.doc, new.doc)), where, "rendered"
        )
    if new is not None:
        return Change("added", new, file, whole(new, added=True), where, "rendered")
    assert old is not None
    return Change("removed", old, file, whole(old, added=False), where, "rendered")


def _build(
    base: Side,
    head: Side,
    groups: Mapping[tuple[str | None, str | None], set[Pair]],
    kustomize: Kustomize,
    store: cache.Cache | None,
    progress: Progress,
) -> dict[tuple[int, str], dict[Key, Obj]]:
    """Rendered objects by (side index, overlay dir), for every overlay the groups use; raises
    RenderError naming every overlay kustomize failed on."""
    found: dict[tuple[int, str], dict[Key, Obj]] = {}
    failures = []
    with tempfile.TemporaryDirectory(prefix="fleetgen-diff-") as tmp:
        for index, side in enumerate((base, head)):
            overlays = {move[index] for move in groups if move[index] is not None}
            root = Path(tmp) / ("base", "head")[index]
            built = _render(
                side, {o for o in overlays if o is not None}, root, kustomize, store, progress
            )
            for path, rendered in built.objects.items():
                docs = [item.doc for item in rendered]
                name = _name(side, path)
                found[index, name] = {obj.key: obj for obj in objects(RENDERED, name, docs)}
            failures += [
                f"kustomize build failed for {_shown(side, _name(side, path))} at "
                f"{side.snapshot.label}: {error.strip()}"
                for path, error in sorted(built.failures.items())
            ]
    if failures:
        raise RenderError("\n".join(failures))
    return found


def _render(
    side: Side,
    overlays: set[str],
    root: Path,
    kustomize: Kustomize,
    store: cache.Cache | None,
    progress: Progress,
) -> renders.Builds:
    """Lay out under ``root`` the overlays' generated files and their apps' base inputs, and the
    plain directories with the kustomizations kustomize-controller generates for them
    (`renders.plain_directory`), and build them through the render cache
    (`fleetgen.tools.renders`)."""
    plain = {unit: found[0] for unit in overlays if (found := renders.directory_of(unit))}
    overlays = overlays - plain.keys()
    apps = {overlay.split("/")[1] for overlay in overlays}
    prefixes = tuple(f"overlays/{app}/" for app in sorted(apps))
    needed = [side.files[path] for path in side.files if path.startswith(prefixes)]
    out = side.output_dir
    generated = {f"{out}/{path}": data for path, data in writer.render(needed).items()}
    for unit, path in plain.items():
        generated |= renders.plain_directory(unit, side.snapshot.files(path))
    scratch = renders.lay_out(
        root,
        generated,
        [*(path for app in apps for path in _bases(side, app)), *plain.values()],
        side.snapshot.read,
        side.snapshot.files,
    )
    inputs = {unit: scratch.inputs(unit, None, [path]) for unit, path in plain.items()}
    for overlay in overlays:
        env = side.facts.builds_on.get(overlay)
        inputs[f"{out}/{overlay}"] = scratch.inputs(
            f"{out}/{overlay}", f"{out}/{env}" if env else None, _bases(side, overlay.split("/")[1])
        )
    return renders.build(
        scratch, inputs, store, kustomize, progress, f"kustomize build at {side.snapshot.label}"
    )


def _bases(side: Side, app: str) -> list[str]:
    """The repo directories an overlay of ``app`` may read: its base and every directory its
    layers add (an overlay reads some of them; the render cache keys on them all)."""
    base = side.facts.app_path.get(app)  # none for an app whose layers add all it deploys
    return [*([base] if base else []), *side.facts.app_inputs.get(app, ())]
