"""The faithfulness check: the imported fleet built in a scratch copy of the repository, and per
cluster what each app deploys there compared with what the repository deploys: the objects of
each kustomize path (both sides built by kustomize: the original as its engine builds it, the
import's overlay as fleetgen writes it), each release's chart, version and values. Every
difference is a finding; a clean import has none. Messages name objects and fields, never
values."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from fleetgen.errors import SpecError
from fleetgen.importer import notify
from fleetgen.importer.apps import Folded
from fleetgen.importer.draft import Engine, Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.flux.kustomizations import added_fields
from fleetgen.importer.flux.substitute import applied, variables
from fleetgen.importer.repo import mapping, overlay_of
from fleetgen.manifests.k8s import CLUSTER_SCOPED, group_of
from fleetgen.manifests.yamlio import dump, load_all
from fleetgen.model import ClusterVar, GitSource, OciSource
from fleetgen.pipeline import api
from fleetgen.resolver.plan import Placement
from fleetgen.resolver.values import merge_values
from fleetgen.tools import kustomize
from fleetgen.util.templating import Call
from fleetgen.version import VERSION
from fleetgen.write import writer
from fleetgen.write.output import LABEL_PREFIX

_TODO = "check the app's settings in fleet.py against the original"
Key = tuple[str, str, str, str]  # group, kind, namespace, name


def check(
    root: Path,
    text: str,
    apps: list[Folded],
    engine: Engine,
    channels: Mapping[str, Call] | None = None,
) -> list[Finding]:
    """What differs between the repository at ``root`` (read by ``engine``; the instances'
    ``channels``) and the fleet ``text`` imported from it: built in a scratch copy, nothing
    written here."""
    with tempfile.TemporaryDirectory(prefix="fleetgen-import-") as scratch:
        copy = Path(scratch) / "repo"
        skipped = shutil.ignore_patterns(".git", "output")  # the build writes output/ here
        shutil.copytree(root, copy, symlinks=True, ignore=skipped)
        spec = copy / "fleet.py"
        spec.write_text(text, encoding="utf-8")
        try:
            compiled = api.compile_spec(spec)
            writer.write(compiled.out_dir, compiled.rendered, VERSION)  # what kustomize builds
        except SpecError as error:
            return [
                Finding(
                    "fleet.py",
                    p.line,
                    f"the imported fleet does not build: {p.message}",
                    "fix fleet.py by hand",
                )
                for p in error.problems
            ]
        placed = {(p.app, p.cluster): p for p in compiled.plan.placements}
        pairs = [
            (app.name, i, placed.get((app.name, i.cluster))) for app in apps for i in app.instances
        ]
        found = [
            i.origin.finding(f"{name} is not placed on {i.cluster!r} by the import", _TODO)
            for name, i, p in pairs
            if p is None
        ]
        found += _also_placed(apps, compiled.plan.placements)
        found += notify.compared(channels or {}, pairs, compiled.plan)
        found += [f for name, i, p in pairs if p is not None for f in _chart(copy, name, i, p)]
        found += [f for name, i, p in pairs if p is not None for f in _as_is(name, i, p)]
        remote = compiled.plan.remote_bases
        found += [
            i.origin.finding(
                f"{name} on {i.cluster!r}: not compared: its folder reads remote bases "
                f"({', '.join(remote[name])}), which import does not fetch",
                "compare what it deploys with the original by hand",
            )
            for name, i, p in pairs
            if p is not None and name in remote
        ]
        builds = [
            (name, i, p)
            for name, i, p in pairs
            if p is not None and p.overlay and i.path and name not in remote
        ]
        found += _objects(copy, compiled.out_dir, builds, Path(scratch) / "original", engine)
        return found


def _also_placed(apps: list[Folded], placements: Sequence[Placement]) -> list[Finding]:
    """The clusters the import places an app on where the repository does not deploy it."""
    found = []
    by_name = {app.name: app for app in apps}
    for placement in placements:
        app = by_name.get(placement.app)
        if app is not None and all(i.cluster != placement.cluster for i in app.instances):
            found.append(
                app.instances[0].origin.finding(
                    f"{app.name} is also placed on {placement.cluster!r} by the import, where "
                    "the repository does not deploy it",
                    _TODO,
                )
            )
    return found


def _chart(root: Path, name: str, instance: Instance, placement: Placement) -> list[Finding]:
    """A release's chart, version and values on both sides."""
    chart, ref = placement.chart, instance.chart
    if chart is None or ref is None:
        return []
    where = f"{name} on {instance.cluster!r}"
    found = []
    original = (ref.repo, ref.name, instance.chart_version) if ref.path is None else (ref.path,)
    imported = (chart.repo, chart.name, chart.version) if chart.path is None else (chart.path,)
    if original != imported:
        found.append(instance.origin.finding(f"{where}: another chart or version", _TODO))
    values = _set(_effective(root, instance))
    settings = placement.settings if placement.template is None else placement.template
    written = _set(_written(settings.values))
    if values != written:
        fields = sorted(_differing(values, written))
        found.append(
            instance.origin.finding(f"{where}: the values differ at {', '.join(fields)}", _TODO)
        )
    return found


def _as_is(name: str, instance: Instance, placement: Placement) -> list[Finding]:
    """An app whose manifests both sides read as they are (a plain folder here, a folder of
    another source): the same folder of the same source in the same namespace, read by the same
    engine, deploys the same objects — what differs of those is a finding."""
    remote = placement.remote
    if remote is None or instance.chart is not None:
        return []
    theirs = (_source_of(instance.source), instance.path or ".", instance.namespace)
    ours = (_source_of(remote.source), remote.path, placement.namespace)
    named = ("the source", "the folder", "the namespace")
    differ = [what for what, a, b in zip(named, theirs, ours, strict=True) if a != b]
    if not differ:
        return []
    where = f"{name} on {instance.cluster!r}"
    return [instance.origin.finding(f"{where}: {' and '.join(differ)} differ", _TODO)]


def _source_of(source: Call | GitSource | OciSource | None) -> tuple[tuple[str, str], ...]:
    """A source's fields, with the spec's defaults filled in; () for the fleet's repository."""
    if source is None:
        return ()
    if isinstance(source, Call):
        model = GitSource if source.name == "GitSource" else OciSource
        given = source.kwargs
    else:
        model, given = type(source), source.model_dump(exclude_defaults=True)
    fields = model.model_fields
    return tuple((key, str(given.get(key, fields[key].default))) for key in sorted(fields))


def _objects(
    copy: Path,
    out_dir: Path,
    builds: list[tuple[str, Instance, Placement]],
    original: Path,
    engine: Engine,
) -> list[Finding]:
    """The objects of each kustomize path: as the repository's engine builds it, and as the
    import's overlay does."""
    theirs = {}
    for index, (_, instance, _) in enumerate(builds):
        folder = original / str(index)
        folder.mkdir(parents=True)
        (folder / "kustomization.yaml").write_text(
            dump(_engine_kustomization(copy, folder, instance, engine))
        )
        theirs[index] = folder
    ours = {index: out_dir / placement.overlay for index, (_, _, placement) in enumerate(builds)}
    try:
        rendered = kustomize.build_many([*theirs.values(), *ours.values()], workers=2)
    except kustomize.KustomizeBuildError as error:
        sides = ((theirs, "the original"), (ours, "the import"))
        of = {path: (builds[i], side) for paths, side in sides for i, path in paths.items()}
        return [
            _unbuilt(*of[path], message, (f"{path}/", f"{copy}/"))
            for path, message in sorted(error.failures.items())
        ]
    found = []
    for index, (name, instance, _) in enumerate(builds):
        namespace = instance.namespace if engine == "argocd" else None
        values = variables(instance.origin.spec) if engine == "flux" else {}
        before = _keyed(rendered[theirs[index]], namespace, values)
        after = _keyed(rendered[ours[index]])
        found += _compared(f"{name} on {instance.cluster!r}", instance, before, after)
    return found


def _unbuilt(
    build: tuple[str, Instance, Placement], side: str, message: str, scratch: tuple[str, ...]
) -> Finding:
    """A kustomize build that failed, at the instance it is of: kustomize's last two reasons,
    without the ``scratch`` folders' paths."""
    name, instance, _ = build
    last = message.strip().splitlines()[-1].rstrip('"') if message.strip() else ""
    for folder in scratch:
        last = last.replace(folder, "")
    reason = ": ".join(last.rsplit(": ", 2)[-2:])
    return instance.origin.finding(
        f"{name} on {instance.cluster!r}: kustomize cannot build what {side} deploys ({reason})",
        _TODO,
    )


def _engine_kustomization(
    copy: Path, folder: Path, instance: Instance, engine: Engine
) -> dict[str, Any]:
    """The kustomization the repository's engine builds for an instance: its folder, with what
    its Flux Kustomization adds (`added_fields`), or the images of its Argo CD source (whose
    destination namespace fills in only objects without one: `_keyed`)."""
    fields = dict(instance.app_fields)
    if engine == "flux":
        added = added_fields(instance.origin.spec)
    else:
        added = {"images": [_image_entry(image) for image in fields.get("images", [])]}
    built = _original_folder(copy, folder, instance)
    return overlay_of(built, folder, {k: v for k, v in added.items() if v})


def _original_folder(copy: Path, folder: Path, instance: Instance) -> Path:
    """The folder the engine builds for an instance: its path in the repository, or in the
    artifact it reads it from, made in ``folder`` of the repository's files as its
    ArtifactGenerator copies them."""
    if instance.packed is None:
        return copy / str(instance.path)
    artifact = folder / "artifact"
    for inside, source in instance.packed.files:
        (artifact / inside).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(copy / source, artifact / inside)
    return artifact / instance.packed.path


def _keyed(
    text: str, default_namespace: str | None = None, values: Mapping[str, str] | None = None
) -> dict[Key, dict[str, Any]]:
    """The objects of a build by identity; ``default_namespace`` put on namespaced objects
    without one (as Argo CD does with its destination namespace), Flux's post-build
    ``values`` substituted."""
    found = {}
    for obj in load_all(text):
        if isinstance(obj, Mapping):
            obj = applied(obj, values or {})[0]
            scope = (group_of(obj.get("apiVersion")), str(obj.get("kind")))
            meta = mapping(obj.get("metadata"))
            if default_namespace and not meta.get("namespace") and scope not in CLUSTER_SCOPED:
                meta = {**meta, "namespace": default_namespace}
                obj = {**obj, "metadata": meta}
            key = (
                group_of(obj.get("apiVersion")),
                str(obj.get("kind")),
                str(meta.get("namespace", "")),
                str(meta.get("name", "")),
            )
            found[key] = _without_fleetgen(obj)
    return found


def _without_fleetgen(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` without the labels and annotations fleetgen adds (its ``fleetgen.io/`` keys)."""
    meta = dict(mapping(obj.get("metadata")))
    for field in ("labels", "annotations"):
        kept = {k: v for k, v in mapping(meta.get(field)).items() if not k.startswith(LABEL_PREFIX)}
        if kept:
            meta[field] = kept
        else:
            meta.pop(field, None)
    return {**obj, "metadata": meta}


def _compared(
    where: str, instance: Instance, before: Mapping[Key, Any], after: Mapping[Key, Any]
) -> list[Finding]:
    """The differences of one app on one cluster: objects moved to another namespace, missing,
    added or changed (at which fields)."""
    moved = _moved(before.keys() - after.keys(), after.keys() - before.keys())
    said = {key for pair in moved for key in pair}
    found = [
        instance.origin.finding(
            f"{where}: {old[1]} {old[3]!r} moves from namespace {old[2]!r} to {new[2]!r}",
            "fleetgen's namespace= puts every object in it: use namespace=None and name the "
            "namespaces in the manifests",
        )
        for old, new in moved
    ]
    for key in sorted((before.keys() | after.keys()) - said):
        shown = f"{key[1]} {'/'.join(part for part in key[2:] if part)}"
        if key not in after:
            what = f"the import does not deploy {shown}"
        elif key not in before:
            what = f"the import also deploys {shown}"
        elif before[key] != after[key]:
            what = f"{shown} differs at {', '.join(sorted(_differing(before[key], after[key])))}"
        else:
            continue
        found.append(instance.origin.finding(f"{where}: {what}", _TODO))
    return found


def _moved(missing: set[Key], added: set[Key]) -> list[tuple[Key, Key]]:
    """(missing, added) pairs of the same object in another namespace."""
    by_object = {(key[0], key[1], key[3]): key for key in added}
    return [
        (key, by_object[(key[0], key[1], key[3])])
        for key in sorted(missing)
        if (key[0], key[1], key[3]) in by_object
    ]


def _differing(left: Any, right: Any, path: str = "") -> Iterator[str]:
    """The dotted paths where ``left`` and ``right`` differ (the shallowest below mappings)."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        for key in sorted(left.keys() | right.keys(), key=str):
            if left.get(key) != right.get(key):
                yield from _differing(
                    left.get(key), right.get(key), f"{path}.{key}" if path else str(key)
                )
    elif left != right:
        yield path or "(the whole value)"


def _effective(root: Path, instance: Instance) -> dict[str, Any]:
    """A release's values as its engine passes them: its values files in order (Argo CD's
    ``valueFiles`` of this repository, as that instance resolved them), then its inline values."""
    merged: dict[str, Any] = {}
    for path in instance.values_files:
        docs = load_all((root / path).read_bytes()) if (root / path).is_file() else []
        merged = merge_values(merged, mapping(docs[0]) if docs else {}, "", {})
    return merge_values(merged, instance.values, "", {})


def _written(value: Any) -> Any:
    """Values with each `ClusterVar` as fleet.py writes it (a placement that selects its
    clusters at run time keeps them: its template reads each cluster's annotation)."""
    if isinstance(value, ClusterVar):
        return Call("ClusterVar", args=(value.name,))
    if isinstance(value, Mapping):
        return {key: _written(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_written(item) for item in value]
    return value


def _set(values: Mapping[str, Any]) -> dict[str, Any]:
    """Helm values without nulls (a null removes a key, as leaving it out does)."""
    return {
        key: _set(value) if isinstance(value, Mapping) else value
        for key, value in values.items()
        if value is not None
    }


def _image_entry(image: Call) -> dict[str, str]:
    """``Image(...)`` as a kustomization's ``images`` entry (an Argo CD source's override)."""
    keys = (("name", "name"), ("new_name", "newName"), ("tag", "newTag"), ("digest", "digest"))
    return {entry: str(image.kwargs[key]) for key, entry in keys if key in image.kwargs}
