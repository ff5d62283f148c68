"""An app's interface (`fleetgen.interface`) and the whole part of a compile kept under it
(`fleetgen.wholecache`): an edit of what only an app's own files show resolves that app alone,
and every build writes what a cold build writes."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from fleetgen import api, unitcache, wholecache
from fleetgen.cache import CACHE_DIR, Cache
from fleetgen.errors import SpecError
from fleetgen.interface import LocalRead, project
from fleetgen.load import load
from fleetgen.placements import Placements
from fleetgen.resolve import resolve
from tests.helpers import tree
from tests.test_units import EDITS
from tests.test_whole_fleets import Drawn, drawn_repo, fleets

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_build import make_repo  # noqa: E402
from run import FLEET, ONE_APP  # noqa: E402

# Edits of one app alone: its image tag (the benchmark's), a config value, its replicas in prod,
# its labels (on its Flux objects and Argo CD Applications: 500 shared files at 1,000 x 100).
LOCAL_EDITS = [
    ONE_APP,
    ('"LOG_LEVEL": "info"', '"LOG_LEVEL": "debug" if a == 7 else "info"'),
    (
        'per_env={"prod": Overrides(replicas={"app": 3}',
        'per_env={"prod": Overrides(replicas={"app": 3 + (a == 10)}',
    ),
    (
        'project=f"team{a % 5}"',
        'project=f"team{a % 5}", **({"labels": {"example.com/owner": "x"}} if a == 3 else {})',
    ),
]
# Edits of an interface: app003's annotations (Argo CD's check reads them), the namespace of
# one app, and a new dependency.
INTERFACE_EDITS = [
    (
        'project=f"team{a % 5}"',
        'project=f"team{a % 5}", **({"annotations": {"example.com/owner": "x"}} if a == 3 else {})',
    ),
    ('namespace=f"ns{a % 20}"', 'namespace=f"ns{(a + (a == 2) * 5) % 20}"'),
    (
        'path="apps/app/base"',
        'path="apps/app/base", **({"depends_on": ["app001"]} if a == 4 else {})',
    ),
]


def _fleet(tmp_path: Path) -> tuple[Path, str]:
    """The benchmark's fleet, 24 clusters x 12 apps, in a Git repository."""
    repo = tmp_path / "repo"
    repo.mkdir()
    source = make_repo(repo, argparse.Namespace(clusters=24, apps=12), FLEET)
    return repo / "fleet.py", source


def _edit(source: str, edit: tuple[str, str]) -> str:
    edited = source.replace(*edit)
    assert edited != source
    return edited


def _rebuilt(spec: Path, text: str) -> api.BuildResult:
    """Build again with ``text`` as the spec, lookups and units computed counted from zero."""
    spec.write_text(text)
    wholecache.LOOKUPS.clear()
    unitcache.COMPUTED.clear()
    return api.build(spec)


def _as_cold(spec: Path, tmp_path: Path) -> api.BuildResult:
    """A cold build of ``spec``, after asserting its tree is the one the build left."""
    cold = api.build(spec, tmp_path / "cold", use_cache=False)
    assert tree(spec.parent / "output") == tree(tmp_path / "cold")
    return cold


def _refusing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a resolve of the whole fleet fail: what runs afterwards resolves apps alone."""

    def refuse(*_: Any) -> None:
        raise AssertionError("resolved the whole fleet")

    monkeypatch.setattr(api, "resolve", refuse)


@pytest.mark.parametrize("edit", LOCAL_EDITS, ids=["tag", "config", "replicas", "labels"])
def test_a_local_edit_resolves_that_app_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str]
) -> None:
    """The build reads the whole part back (`wholecache.output`) and computes the edited app's
    unit alone; its tree, warnings, placements and the placements it keeps for ``diff`` are a cold
    build's."""
    spec, source = _fleet(tmp_path)
    api.build(spec)
    with monkeypatch.context() as patched:
        _refusing(patched)
        warm = _rebuilt(spec, _edit(source, edit))
    assert wholecache.LOOKUPS == {"hit": 1}
    assert len(unitcache.COMPUTED) == 1  # the app edited
    cold = _as_cold(spec, tmp_path)
    assert warm.compiled.warnings == cold.compiled.warnings
    assert warm.compiled.placements == cold.compiled.placements
    assert len(warm.compiled.plan.placements) == cold.compiled.placements  # resolved now
    loaded = load(spec)
    keys = unitcache.keys(loaded)
    assert keys is not None
    kept = Placements.load(Cache(spec.parent / "output"), keys.compile)
    assert kept == Placements.of(project(resolve(loaded.fleet, loaded.workspace)))
    assert api.check(spec).findings == []


@pytest.mark.parametrize("edit", INTERFACE_EDITS, ids=["annotations", "namespace", "depends_on"])
def test_an_interface_edit_resolves_the_whole_fleet(tmp_path: Path, edit: tuple[str, str]) -> None:
    spec, source = _fleet(tmp_path)
    api.build(spec)
    _rebuilt(spec, _edit(source, edit))
    assert wholecache.LOOKUPS == {"miss": 1}
    _as_cold(spec, tmp_path)


def test_interface_keys_leave_out_local_fields(tmp_path: Path) -> None:
    spec, source = _fleet(tmp_path)

    def keys_of(text: str) -> unitcache.Keys:
        spec.write_text(text)
        found = unitcache.keys(load(spec))
        assert found is not None
        return found

    before = keys_of(source)
    for edit in LOCAL_EDITS:
        after = keys_of(_edit(source, edit))
        changed = {app for app in before.apps if after.apps[app] != before.apps[app]}
        assert changed and after.interfaces == before.interfaces
    for edit in INTERFACE_EDITS:
        after = keys_of(_edit(source, edit))
        assert after.interfaces != before.interfaces


@pytest.mark.parametrize(
    "broken",
    [
        ('tag=TAGS.get(a, "1.0")', 'tag="not a tag" if a == 7 else TAGS.get(a, "1.0")'),
        (
            '"LOG_LEVEL": "info"',
            '"LOG_LEVEL": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789" if a == 7 else "info"',
        ),
    ],
    ids=["tag", "secret"],
)
def test_a_local_edit_that_breaks_the_app_is_reported_as_a_cold_build_reports_it(
    tmp_path: Path, broken: tuple[str, str]
) -> None:
    spec, source = _fleet(tmp_path)
    api.build(spec)
    before = tree(spec.parent / "output")
    spec.write_text(_edit(source, broken))
    with pytest.raises(SpecError) as warm:
        api.build(spec)
    with pytest.raises(SpecError) as cold:
        api.build(spec, tmp_path / "cold", use_cache=False)
    assert warm.value.problems == cold.value.problems
    assert tree(spec.parent / "output") == before


def test_a_damaged_whole_entry_is_a_miss(tmp_path: Path) -> None:
    spec, source = _fleet(tmp_path)
    api.build(spec)
    for entry in (spec.parent / "output" / CACHE_DIR / wholecache.WHOLE).rglob("*.bin"):
        entry.write_bytes(entry.read_bytes()[:-10] + b"0123456789")
    _rebuilt(spec, _edit(source, ONE_APP))
    assert wholecache.LOOKUPS == {"miss": 1}
    _as_cold(spec, tmp_path)


def test_a_local_edit_over_damaged_unit_data_computes_those_units_again(tmp_path: Path) -> None:
    """Files of unchanged apps that must be made again (removed from the tree here) read their
    units' data; damaged, each of those units is resolved alone and computed again."""
    spec, source = _fleet(tmp_path)
    api.build(spec)
    out = spec.parent / "output"
    for entry in (out / CACHE_DIR / unitcache.DATA).rglob("*.bin"):
        entry.write_bytes(entry.read_bytes()[:-7])
    for path in (
        out / "flux" / "clusters" / "c0000" / "kustomizations.yaml",
        out / "argocd" / "applicationsets" / "app003.yaml",
    ):
        path.unlink()
    _rebuilt(spec, _edit(source, ONE_APP))
    assert wholecache.LOOKUPS == {"hit": 1} and len(unitcache.COMPUTED) > 2
    _as_cold(spec, tmp_path)


USES: list[Callable[[Any], Any]] = [
    list,
    len,
    bool,
    str,
    hash,
    lambda value: value == {},
    lambda value: value.items(),
    lambda value: value["key"],
    lambda value: "key" in value,
    lambda value: (*value,),
]


def test_the_projected_plan_refuses_every_use_of_local_data(tmp_path: Path) -> None:
    """What the whole compile reads (`interface.project`): an app's images, replicas, config,
    patches, values and labels, its layers', its chart's version and each overlay's config
    hashes raise `LocalRead` however they are used; the rest reads as in the Plan."""
    spec, _ = _fleet(tmp_path)
    loaded = load(spec)
    plan = resolve(loaded.fleet, loaded.workspace)
    projected = project(plan)
    app = projected.fleet.apps[0]
    placement = projected.placements[0]
    local = [
        app.images,
        app.replicas,
        app.config,
        app.patches,
        app.values,
        app.labels,
        app.common_labels,
        placement.settings.labels,
        placement.settings.annotations,
        app.per_env["prod"].replicas,
        app.per_cluster[next(iter(app.per_cluster))].config,
        placement.settings.images,
        placement.settings.config,
        placement.settings.values,
        placement.settings.chart_version,
        projected.env_overlays[0].config_hashes,
        projected.cluster_overlays[0].config_hashes,
    ]
    for value in local:
        for use in USES:
            with pytest.raises(LocalRead):
                use(value)
    original = plan.placements[0]
    assert (placement.app, placement.cluster, placement.overlay, placement.engine) == (
        original.app,
        original.cluster,
        original.overlay,
        original.engine,
    )
    assert placement.settings.sync == original.settings.sync
    assert app.name == plan.fleet.apps[0].name and set(app.per_env) == {"prod"}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=fleets(), edit=st.sampled_from(EDITS))
def test_edits_of_several_apps_write_what_a_cold_build_writes(
    drawn: Drawn, edit: tuple[str, str], tmp_path: Path
) -> None:
    """Whole fleets (both engines, charts, layers, rollouts, hubs), one edit made to every app
    it matches: built again from the first build's units and whole part (several apps resolved
    alone, where the edit is local) — the tree a cold build writes."""
    pattern, replacement = edit
    edited = re.sub(pattern, replacement, drawn.source)
    assume(edited != drawn.source)
    spec = drawn_repo(tmp_path, drawn.source)
    api.build(spec)
    _rebuilt(spec, edited)
    event(f"whole part {dict(wholecache.LOOKUPS)}, units computed {len(unitcache.COMPUTED)}")
    assert api.check(spec).findings == []
    _as_cold(spec, tmp_path)
