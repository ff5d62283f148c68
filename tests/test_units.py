"""Per-app units (`fleetgen.emit.units`, `fleetgen.unitcache`): a unit depends on its app and the
fleet without apps alone; a rebuild computes the units of changed apps only and writes what a
cold build writes; damaged unit entries are computed again; a Flux hub is emitted whole."""

from __future__ import annotations

import argparse
import gc
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import fleetgen
from fleetgen import api, unitcache, writer
from fleetgen.cache import CACHE_DIR
from fleetgen.emit.units import Units, supported
from fleetgen.errors import SpecError
from fleetgen.load import load
from fleetgen.output import OutputFile
from fleetgen.resolve import resolve, resolve_apps
from tests.diff.test_diff import commit, git
from tests.helpers import tree
from tests.test_whole_fleets import Drawn, drawn_repo, fleets

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_build import make_repo  # noqa: E402
from run import FLEET, ONE_APP  # noqa: E402


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=fleets())
def test_a_unit_depends_on_its_app_and_the_fleet_without_apps(drawn: Drawn, tmp_path: Path) -> None:
    """What `unitcache.keys` keys a unit by must be all it reads: the unit of an app within the
    whole fleet equals its unit in the fleet where it is the only app."""
    loaded = load(drawn_repo(tmp_path, drawn.source))
    plan = resolve(loaded.fleet, loaded.workspace)
    event("per-app units" if supported(plan) else "Flux hub: emitted whole")
    whole = Units(plan)
    for app in loaded.fleet.apps:
        alone = loaded.fleet.model_copy(update={"apps": [app]})
        try:
            one = resolve(alone, loaded.workspace)
        except SpecError:  # e.g. it depends_on another app
            event("an app that cannot stand alone")
            continue
        assert Units(one).of(app.name) == whole.of(app.name), drawn.source


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=fleets())
def test_resolving_one_app_gives_its_part_of_the_whole_plan(drawn: Drawn, tmp_path: Path) -> None:
    """`resolve_apps` of one app (what a build after an edit of that app alone resolves) is the
    app's part of the whole Plan (`Plan.only`), an app depending on others included."""
    loaded = load(drawn_repo(tmp_path, drawn.source))
    fleet, workspace = loaded.fleet, loaded.workspace
    for app in fleet.apps:
        # one line: the SyncPolicy objects resolve makes record it as where they were built
        whole, alone = (
            resolve(fleet, workspace).only(app.name),
            resolve_apps(fleet, workspace, [app.name]),
        )
        assert alone == whole, drawn.source


# (pattern, replacement) of the first match: an edit of one app's content, of a layer, of the
# labels Flux objects carry (shared files), of chart values, of an environment (every unit).
EDITS = [
    (r'tag="[^"]*"', 'tag="9.9"'),
    (r'"LEVEL": "app"', '"LEVEL": "edited"'),
    (r'replicas=\{"web": \d\}', 'replicas={"web": 7}'),
    (
        r'common_labels=\{"example.com/app": "[^"]*"\}',
        'common_labels={"example.com/app": "edited"}',
    ),
    (r'"memory": "\dGi"', '"memory": "8Gi"'),
    (r"sync=SyncPolicy\(automated=True\)", "sync=SyncPolicy(automated=True, prune=True)"),
]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=fleets(), edit=st.sampled_from(EDITS))
def test_a_build_after_an_edit_writes_what_a_cold_build_writes(
    drawn: Drawn, edit: tuple[str, str], tmp_path: Path
) -> None:
    """Whole fleets (both engines, charts, layers, rollouts, hubs): built, edited, built again
    from the units of the first build — the tree a cold build of the edited spec writes."""
    pattern, replacement = edit
    edited = re.sub(pattern, replacement, drawn.source, count=1)
    assume(edited != drawn.source)
    spec = drawn_repo(tmp_path, drawn.source)
    api.build(spec)
    spec.write_text(edited)
    api.build(spec)
    assert api.check(spec).findings == []
    assert tree(spec.parent / "output") == _cold(spec, spec.parent / "cold"), edited


def _fleet(tmp_path: Path, clusters: int = 12, apps: int = 6) -> tuple[Path, str]:
    """The benchmark's fleet (both engines, a rollout, per_env and per_cluster layers)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    source = make_repo(repo, argparse.Namespace(clusters=clusters, apps=apps), FLEET)
    return repo / "fleet.py", source


def _cold(spec: Path, where: Path) -> dict[str, bytes]:
    api.build(spec, where, use_cache=False)
    return tree(where)


def test_a_one_app_edit_computes_that_unit_alone(tmp_path: Path) -> None:
    spec, source = _fleet(tmp_path, apps=10)
    unitcache.COMPUTED.clear()
    api.build(spec)
    assert len(unitcache.COMPUTED) == 10
    spec.write_text(source.replace(*ONE_APP))  # app007's image tag
    unitcache.COMPUTED.clear()
    result = api.build(spec)
    assert dict(unitcache.COMPUTED) == {"app007": 1}
    assert all("app007" in path or path == "README.md" for path in result.report.written)
    assert tree(spec.parent / "output") == _cold(spec, tmp_path / "cold")


def test_a_builds_plan_is_freed_without_the_cyclic_collector(tmp_path: Path) -> None:
    """No reference cycle holds a build's Plan (a unit computed now no longer calls back into
    the `unitcache.Output` holding it): it goes with its last reference, not at the collector's
    next full walk of a fleet-sized heap."""
    spec, source = _fleet(tmp_path)
    gc.collect()
    for edit in ((), ONE_APP):  # every unit computed, then one
        spec.write_text(source.replace(*edit) if edit else source)
        result = api.build(spec)
        assert result.compiled.plan.placements
        del result
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            left = {type(found).__name__ for found in gc.garbage}
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert not left & {"Plan", "Placement", "Units", "Output"}


LABELLED = (
    'project=f"team{a % 5}"',  # only app003's labels set: the other apps unchanged
    'project=f"team{a % 5}", **({"labels": {"example.com/owner": "x"}} if a == 3 else {})',
)


def test_an_edit_of_an_apps_flux_objects_rewrites_its_clusters_files(tmp_path: Path) -> None:
    """app003's labels are on its Flux Kustomizations: each ``kustomizations.yaml`` it is in is
    made again from the objects of every app there, the others' read back."""
    spec, source = _fleet(tmp_path)
    api.build(spec)
    unitcache.COMPUTED.clear()
    spec.write_text(source.replace(*LABELLED))
    result = api.build(spec)
    assert dict(unitcache.COMPUTED) == {"app003": 1}
    assert any(path.endswith("/kustomizations.yaml") for path in result.report.written)
    assert tree(spec.parent / "output") == _cold(spec, tmp_path / "cold")


@pytest.mark.parametrize("damage", [unitcache.INDEX, unitcache.DATA])
def test_damaged_unit_entries_are_computed_again(tmp_path: Path, damage: str) -> None:
    spec, source = _fleet(tmp_path)
    api.build(spec)
    entries = sorted((spec.parent / "output" / CACHE_DIR / damage).rglob("*.bin"))
    assert len(entries) == 6
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:-7])
    unitcache.COMPUTED.clear()
    spec.write_text(source.replace(*LABELLED))
    api.build(spec)
    # A damaged index: every unit is computed. Damaged data is read only for the files made
    # again (app003's Flux clusters): the units of the apps there are computed for them.
    assert (
        len(unitcache.COMPUTED) == 6
        if damage == unitcache.INDEX
        else (unitcache.COMPUTED["app003"] == 1 and len(unitcache.COMPUTED) > 1)
    )
    assert tree(spec.parent / "output") == _cold(spec, tmp_path / "cold")


HUB = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, FluxOptions, Image,
                      Project)

fleet = Fleet(
    name="hub", repo="https://git.example.com/hub.git", engines=["flux"],
    flux=FluxOptions(mode="hub", hub="hub"),
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="prod")],
    clusters=[Cluster(name="hub", env="prod", server="https://hub.example.com"),
              Cluster(name="spoke", env="prod", server="https://spoke.example.com")],
    projects=[Project(name="p", namespaces=["ns"])],
    apps=[App(name="web", project="p", namespace="ns", path="apps/app/base",
              images=[Image(name="app", tag="{tag}")])],
)
"""


def test_a_flux_hub_is_emitted_whole(tmp_path: Path) -> None:
    """A hub orders its rollout across apps: no units, the compile stored whole."""
    repo = tmp_path / "repo"
    repo.mkdir()
    make_repo(repo, argparse.Namespace(), "")  # the base
    spec = repo / "fleet.py"
    spec.write_text(HUB.replace("{tag}", "1"))
    unitcache.COMPUTED.clear()
    api.build(spec)
    spec.write_text(HUB.replace("{tag}", "2"))
    api.build(spec)
    assert not unitcache.COMPUTED
    assert not (repo / "output" / CACHE_DIR / unitcache.INDEX).exists()
    assert tree(repo / "output") == _cold(spec, tmp_path / "cold")


@pytest.mark.parametrize("edit", [ONE_APP, LABELLED], ids=["image tag", "Flux labels"])
def test_units_a_diff_computed_serve_a_build(tmp_path: Path, edit: tuple[str, str]) -> None:
    """diff wants no fleet map and renders nothing, yet the units it stores are whole: a build
    then reads them and writes what a cold build writes — the fleet map, and for an edit of an
    app's Flux objects the shared files made again (rendered from that unit's objects: a unit
    diff stored keeps no texts of them)."""
    spec, source = _fleet(tmp_path, apps=10)
    api.build(spec)
    git(spec.parent, "init", "-q", "-b", "main")
    commit(spec.parent, "fleet")
    spec.write_text(source.replace(*edit))
    edited = "app007" if edit == ONE_APP else "app003"
    unitcache.COMPUTED.clear()
    fleetgen.diff(spec)
    assert dict(unitcache.COMPUTED) == {edited: 1}
    result = api.build(spec)
    assert dict(unitcache.COMPUTED) == {edited: 1}  # read back
    assert (
        "README.md" if edit == ONE_APP else "flux/clusters/c0000/kustomizations.yaml"
    ) in result.report.written
    assert tree(spec.parent / "output") == _cold(spec, tmp_path / "cold")


def test_texts_of_documents_join_to_what_the_writer_renders() -> None:
    """A shared file made again is joined from its units' texts of their objects: the same
    bytes `writer.render_file` writes from the data; a document written only with its whole
    stream (here a scalar, or text whose kept trailing newlines end it open) has no text."""
    docs = [
        (
            ("", "ConfigMap", "ns", "a"),
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "a", "namespace": "ns"},
                "data": {"k": "no", "n": "012", "t": "x\n"},
            },
        ),
        (
            ("", "ConfigMap", "ns", "b"),
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "b"},
                "data": {"y": "1e3"},
            },
        ),
    ]
    found = unitcache.texts(docs)
    assert found is not None
    assert writer.yaml_bytes("a\ncomment", [text for _, text in found]) == writer.render_file(
        OutputFile("f.yaml", tuple(doc for _, doc in docs), comment="a\ncomment")
    )
    assert unitcache.texts([*docs, (("", "", "", ""), "a scalar")]) is None
    assert unitcache.texts([(("", "", "", ""), {"data": "kept\n\n"})]) is None
