"""diff reads a ref's compiled files from the cache a build, ``build --check`` or an earlier diff
left (`fleetgen.unitcache`: a compile stored as the units its files are made of): same report
warm and cold, damaged entries ignored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import fleetgen
from fleetgen import api, buildcache, placements, unitcache, wholecache
from fleetgen.cache import CACHE_DIR
from fleetgen.diff import blast, compare, formats, render
from fleetgen.diff.compare import RefSpecError
from fleetgen.kustomize import Kustomize
from fleetgen.plan import Plan
from tests.diff.test_diff import FLEET, WEB_PROD_TAG, commit, edit, fleet_repo, state
from tests.diff.test_diff_render_charts import CHART_FLEET
from tests.test_validate_charts import ECHO

NEW_TAG = WEB_PROD_TAG.replace('"1.0"', '"1.1"')


def compiled_dir(repo: Path) -> Path:
    return repo / "output" / CACHE_DIR / unitcache.ENTRIES


def diffed(repo: Path) -> tuple[str, str, str, dict[str, int]]:
    """The report of ``fleetgen diff`` in every format, and the cache lookups it made."""
    buildcache.LOOKUPS.clear()
    report = fleetgen.diff(repo / "fleet.py")
    lookups = dict(buildcache.LOOKUPS)
    return formats.to_json(report), formats.text(report), formats.markdown(report), lookups


def built_before_and_after_the_edit(repo: Path) -> None:
    """A build of the committed spec, then of the edited one (as a user works)."""
    api.build(repo / "fleet.py")
    edit(repo / "fleet.py", WEB_PROD_TAG, NEW_TAG)
    api.build(repo / "fleet.py")


def test_after_builds_diff_compiles_nothing_and_reports_as_cold(repo: Path) -> None:
    built_before_and_after_the_edit(repo)
    before = state(repo)
    *warm, lookups = diffed(repo)
    assert lookups == {"hit": 2}  # base (the commit) and head (the working tree)
    assert '"newTag"' not in warm[0] and "1.1" in warm[1]
    shutil.rmtree(compiled_dir(repo))
    *cold, lookups = diffed(repo)
    assert lookups == {"miss": 2}
    assert cold == warm
    *again, lookups = diffed(repo)  # the cold diff stored both refs
    assert lookups == {"hit": 2} and again == warm
    assert state(repo) == before  # what diff stored ignores itself in Git


def resolves(monkeypatch: pytest.MonkeyPatch) -> list[Plan]:
    """The Plans diff resolves from now on (the real resolve, counted)."""
    plans: list[Plan] = []

    def counted(*args: Any) -> Plan:
        plans.append(resolve(*args))
        return plans[-1]

    resolve = compare.resolve
    for module in (compare, blast):
        monkeypatch.setattr(module, "resolve", counted)
    return plans


@pytest.mark.parametrize("fleet", ["kustomize apps", "with a chart app"])
def test_a_ref_built_or_diffed_before_is_not_resolved_again(
    tmp_path: Path, fleet: str, kustomize: Kustomize, monkeypatch: pytest.MonkeyPatch
) -> None:
    """build and diff store each compile's placements under its key (`fleetgen.placements`):
    a ref whose files and placements are stored needs no Plan, unless chart apps (their values
    are compared from the Plans) or --render of them ask for it."""
    charted = fleet == "with a chart app"
    repo = fleet_repo(
        tmp_path / "fleet-repo",
        CHART_FLEET if charted else FLEET,
        {"charts/echo": ECHO} if charted else None,
    )
    built_before_and_after_the_edit(repo)
    plans = resolves(monkeypatch)
    *first, _ = diffed(repo)
    assert len(plans) == (2 if charted else 0)  # the builds stored files and placements
    *again, lookups = diffed(repo)
    assert again == first and lookups == {"hit": 2}
    assert len(plans) == (4 if charted else 0)
    rendered = fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize).to_json()
    shutil.rmtree(repo / "output" / CACHE_DIR / placements.NAMESPACE)
    assert fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize).to_json() == rendered


def test_a_damaged_placements_entry_is_a_miss(repo: Path) -> None:
    built_before_and_after_the_edit(repo)
    *expected, _ = diffed(repo)
    entries = sorted((repo / "output" / CACHE_DIR / placements.NAMESPACE).rglob("*.bin"))
    assert len(entries) == 2
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:-10])
    *found, _ = diffed(repo)
    assert found == expected


def test_check_stores_what_diff_reads(repo: Path) -> None:
    api.build(repo / "fleet.py")
    edit(repo / "fleet.py", WEB_PROD_TAG, NEW_TAG)
    assert api.check(repo / "fleet.py").findings  # stale output/, but the compile is stored
    *_, lookups = diffed(repo)
    assert lookups == {"hit": 2}


def test_only_the_side_never_seen_is_compiled(repo: Path) -> None:
    api.build(repo / "fleet.py")
    edit(repo / "fleet.py", WEB_PROD_TAG, NEW_TAG)
    *_, lookups = diffed(repo)
    assert lookups == {"hit": 1, "miss": 1}


def test_a_ref_never_compiled_whose_interfaces_were_is_not_resolved(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The working tree built after a tag edit, the commit never: diff makes the commit's
    compile of the units stored and the whole part kept under the same interfaces
    (`wholecache`), resolving the edited app alone, and reports what a diff with no cache at
    all reports."""
    edit(repo / "fleet.py", WEB_PROD_TAG, NEW_TAG)
    api.build(repo / "fleet.py")
    plans = resolves(monkeypatch)
    wholecache.LOOKUPS.clear()
    with monkeypatch.context() as patched:
        patched.setattr(api, "resolve", lambda *_: pytest.fail("resolved a whole fleet"))
        *warm, lookups = diffed(repo)
    assert lookups == {"hit": 1, "miss": 1} and wholecache.LOOKUPS == {"hit": 1}
    assert plans == []
    shutil.rmtree(repo / "output" / CACHE_DIR)
    *cold, _ = diffed(repo)
    assert cold == warm


def test_without_an_output_folder_diff_neither_reads_nor_writes_a_cache(repo: Path) -> None:
    edit(repo / "fleet.py", WEB_PROD_TAG, NEW_TAG)
    *_, lookups = diffed(repo)
    assert lookups == {} and not (repo / "output").exists()


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "another key's entry", "garbage"])
def test_a_damaged_or_foreign_entry_is_a_miss(repo: Path, damage: str) -> None:
    built_before_and_after_the_edit(repo)
    *expected, _ = diffed(repo)
    entries = sorted(compiled_dir(repo).rglob("*.bin"))
    assert len(entries) == 2
    first, second = (entry.read_bytes() for entry in entries)
    for entry, data, other in ((entries[0], first, second), (entries[1], second, first)):
        if damage == "flip a byte":
            data = data[:-10] + bytes([data[-10] ^ 1]) + data[-9:]
        elif damage == "truncate":
            data = data[: len(data) // 2]
        elif damage == "another key's entry":
            data = other
        else:
            data = b"\x00" * 64
        entry.write_bytes(data)
    *found, lookups = diffed(repo)
    assert lookups == {"miss": 2}
    assert found == expected
    *_, lookups = diffed(repo)  # the misses rewrote the entries
    assert lookups == {"hit": 2}


def test_a_spec_error_at_the_base_still_names_the_repo_path(repo: Path) -> None:
    """The base ref's spec runs as the working tree's (so its key is a build's), but a problem
    in it names the file as the repository holds it."""
    api.build(repo / "fleet.py")
    edit(
        repo / "fleet.py",
        'namespace="shop", path="apps/api/base"',
        'namespace="shop", path="apps/nowhere"',
    )
    commit(repo, "broken")
    edit(repo / "fleet.py", 'path="apps/nowhere"', 'path="apps/api/base"')
    with pytest.raises(RefSpecError) as raised:
        fleetgen.diff(repo / "fleet.py", base="HEAD")
    assert raised.value.ref == "HEAD"
    assert {problem.file for problem in raised.value.problems} == {"./fleet.py"}  # not absolute


def test_diff_makes_only_the_stored_files_that_differ(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stored files whose source keys are equal at both refs are equal (`fleetgen.unitcache`),
    so diff compares them without making either."""
    built_before_and_after_the_edit(repo)
    stored = unitcache.load(api.Cache(repo / "output"), _head_entry(repo), ())
    assert stored is not None and len(stored) > 10
    made: list[str] = []
    real = unitcache.Files.__getitem__

    def counted(self: unitcache.Files, path: str) -> Any:
        made.append(path)
        return real(self, path)

    monkeypatch.setattr(unitcache.Files, "__getitem__", counted)
    *_, lookups = diffed(repo)
    assert lookups == {"hit": 2}
    changed = {path for path in made if "overlays/web/prod" in path}
    assert changed and set(made) - changed <= {
        path for path in stored if path.startswith("argocd/applicationsets/")
    }


def _head_entry(repo: Path) -> str:
    keys = unitcache.keys(fleetgen.load(repo / "fleet.py"))
    assert keys is not None
    return keys.compile


def test_render_builds_come_from_the_cache_the_second_time(
    repo: Path, kustomize: Kustomize, monkeypatch: pytest.MonkeyPatch
) -> None:
    """diff --render caches each kustomize build, like chart renders, under the head's output
    folder: keyed by the hash of every file of its ref's temporary tree (all the build can
    read), the overlay and the kustomize version."""
    spec = repo / "fleet.py"
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 2", "replicas: 5")
    builds: list[Path] = []
    real = render.build_many

    def counted(paths: list[Path], **options: Any) -> dict[Path, str]:
        builds.extend(paths)
        return real(paths, **options)

    monkeypatch.setattr(render, "build_many", counted)
    first = fleetgen.diff(spec, render=True, kustomize=kustomize).to_json()
    stored = len(builds)
    assert stored and list((repo / "output" / CACHE_DIR / render.NAMESPACE).rglob("*.bin"))
    assert fleetgen.diff(spec, render=True, kustomize=kustomize).to_json() == first
    assert len(builds) == stored  # every build read back
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 5", "replicas: 6")
    changed = fleetgen.diff(spec, render=True, kustomize=kustomize).to_json()
    rebuilt = builds[stored:]
    assert rebuilt and all("head" in path.parts for path in rebuilt)  # the base ref's are kept
    assert changed != first and '"new": 6' in json.dumps(changed)
