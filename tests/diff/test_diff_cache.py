"""diff reads a ref's stored compile (files and placements: `fleetgen.pipeline.incremental`) that a
build,
``build --check`` or an earlier diff left: same report warm and cold, damaged entries ignored."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

import fleetgen
from fleetgen import resolver, validate as validation
from fleetgen.diffs import facts, formats
from fleetgen.diffs.compare import RefSpecError
from fleetgen.pipeline import api, incremental
from fleetgen.resolver.plan import Plan
from fleetgen.tools import renders
from fleetgen.tools.kustomize import Kustomize
from fleetgen.util.cache import CACHE_DIR
from fleetgen.write.journal import RECORD
from tests.diff.test_diff import FLEET, WEB_PROD_TAG, commit, edit, fleet_repo, state
from tests.diff.test_diff_render_charts import CHART_FLEET
from tests.test_validate_charts import ECHO

NEW_TAG = WEB_PROD_TAG.replace('"1.0"', '"1.1"')


def compiled_dir(repo: Path) -> Path:
    return repo / "output" / CACHE_DIR / incremental.STORED


LOOKUPS: Counter[str] = Counter()  # stored-compile lookups by outcome, while `counted` runs


@pytest.fixture(autouse=True)
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count the stored-compile lookups (`incremental.Memo.stored`, the real one) by outcome."""
    real = incremental.Memo.stored

    def stored(self: incremental.Memo, without: Collection[str] = ()) -> Any:
        found = real(self, without)
        LOOKUPS["miss" if found is None else "hit"] += 1
        return found

    monkeypatch.setattr(incremental.Memo, "stored", stored)


def diffed(repo: Path) -> tuple[str, str, str, dict[str, int]]:
    """The report of ``fleetgen diff`` in every format, and the stored-compile lookups it made."""
    LOOKUPS.clear()
    report = fleetgen.diff(repo / "fleet.py")
    lookups = dict(LOOKUPS)
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

    resolve = resolver.resolve
    for module in (resolver, facts):  # what the compile's stages and diff's facts call
        monkeypatch.setattr(module, "resolve", counted)
    return plans


@pytest.mark.parametrize("fleet", ["kustomize apps", "with a chart app"])
def test_a_ref_built_or_diffed_before_is_not_resolved_again(
    tmp_path: Path, fleet: str, kustomize: Kustomize, monkeypatch: pytest.MonkeyPatch
) -> None:
    """build and diff store each compile's files and placements under its inputs' key: a ref
    whose compile is stored needs no Plan, unless chart apps (their values are compared from the
    Plans) or --render of them ask for it."""
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
    shutil.rmtree(compiled_dir(repo))
    assert fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize).to_json() == rendered


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
    """Stored files whose stored bytes are equal at both refs are equal
    (`incremental.StoredFiles`), so diff compares them without decoding either."""
    built_before_and_after_the_edit(repo)
    memo = incremental.Memo(repo / "output", fleetgen.load(repo / "fleet.py"))
    stored = memo.stored()
    assert stored is not None and len(stored.files) > 10
    made: list[str] = []
    real = incremental.StoredFiles.__getitem__

    def decoded(self: incremental.StoredFiles, path: str) -> Any:
        made.append(path)
        return real(self, path)

    monkeypatch.setattr(incremental.StoredFiles, "__getitem__", decoded)
    *_, lookups = diffed(repo)
    assert lookups == {"hit": 2}
    changed = {path for path in made if "overlays/web/prod" in path}
    assert changed and set(made) - changed <= {
        RECORD,  # what each side drains (`Side.record`)
        *(path for path in stored.files if path.startswith("argocd/applicationsets/")),
    }


def _counted_builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The overlays kustomize builds from now on (the real builds, counted)."""
    builds: list[Path] = []
    real = renders.build_many

    def counted(paths: list[Path], **options: Any) -> dict[Path, str]:
        builds.extend(paths)
        return real(paths, **options)

    monkeypatch.setattr(renders, "build_many", counted)
    return builds


def test_render_builds_come_from_the_cache_the_second_time(
    repo: Path, kustomize: Kustomize, monkeypatch: pytest.MonkeyPatch
) -> None:
    """diff --render caches each kustomize build, like chart renders, under the head's output
    folder (`fleetgen.tools.renders`): keyed by the hash of every file the overlay's build reads and
    the kustomize version."""
    spec = repo / "fleet.py"
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 2", "replicas: 5")
    builds = _counted_builds(monkeypatch)
    first = fleetgen.diff(spec, render=True, kustomize=kustomize).to_json()
    stored = len(builds)
    assert stored and list((repo / "output" / CACHE_DIR / renders.NAMESPACE).rglob("*.bin"))
    assert fleetgen.diff(spec, render=True, kustomize=kustomize).to_json() == first
    assert len(builds) == stored  # every build read back
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 5", "replicas: 6")
    changed = fleetgen.diff(spec, render=True, kustomize=kustomize).to_json()
    rebuilt = builds[stored:]
    assert rebuilt and all("head" in path.parts for path in rebuilt)  # the base ref's are kept
    assert changed != first and '"new": 6' in json.dumps(changed)


def test_validate_and_diff_share_one_render_cache(
    repo: Path, kustomize: Kustomize, monkeypatch: pytest.MonkeyPatch
) -> None:
    """validate --render of the working tree builds the overlays diff --render needs at its head:
    the same inputs make the same key, so diff builds only the base ref's."""
    spec = repo / "fleet.py"
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 2", "replicas: 5")
    api.build(spec)
    validation.validate(spec, render=True)
    builds = _counted_builds(monkeypatch)
    report = fleetgen.diff(spec, render=True, kustomize=kustomize).to_json()
    assert '"new": 5' in json.dumps(report)
    assert builds and all("base" in path.parts for path in builds)
    shutil.rmtree(repo / "output" / CACHE_DIR / renders.NAMESPACE)
    builds.clear()
    assert fleetgen.diff(spec, render=True, kustomize=kustomize).to_json() == report
    assert any("head" in path.parts for path in builds)
