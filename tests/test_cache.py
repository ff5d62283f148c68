"""The cache stays bounded: least recently used entries are evicted, nothing else is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fleetgen.util import cache
from fleetgen.util.cache import CACHE_DIR, Cache


def _entries(store: Cache) -> dict[str, int]:
    """entry key -> size of every entry file in ``store``."""
    return {
        path.stem: path.stat().st_size
        for path in store.directory.glob("*/*/*")
        if path.suffix == ".bin"
    }


def _aged(store: Cache, keys: list[str]) -> None:
    """Give the entries of ``keys`` mtimes in that order, oldest first, an hour apart."""
    for age, entry in enumerate(reversed(keys), 1):
        for path in store.directory.glob(f"*/*/{entry}.*"):
            os.utime(path, (path.stat().st_atime, path.stat().st_mtime - 3600 * age))


def test_prune_evicts_the_least_recently_used_down_to_three_quarters(tmp_path: Path) -> None:
    store = Cache(tmp_path)
    keys = [f"{n:x}" * 64 for n in range(6)]
    for entry in keys:
        store.put("ns", entry, b"x" * 1000)
    _aged(store, keys)
    assert store.get("ns", keys[0]) == b"x" * 1000  # read: now the most recently used
    size = _entries(store)[keys[0]]
    store.prune(5 * size)
    assert sorted(_entries(store)) == sorted([keys[0], keys[4], keys[5]])
    store.prune(10 * size)  # under the limit: nothing goes
    assert len(_entries(store)) == 3


def test_prune_removes_only_entries_and_stale_temporary_files(tmp_path: Path) -> None:
    store = Cache(tmp_path)
    store.put("ns", "a" * 64, {"value": 1})
    shard = store.directory / "ns" / "aa"
    (shard / "notes.txt").write_text("a user's file")
    stale, fresh = shard / "tmpold.tmp", shard / "tmpnew.tmp"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"half")
    os.utime(stale, (0, 0))
    store.prune(0)
    assert not stale.exists() and not list(shard.glob("*.bin"))
    assert fresh.exists() and (shard / "notes.txt").exists()
    assert (store.directory / ".gitignore").is_file()


def test_the_first_write_of_a_command_prunes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = Cache(tmp_path)
    for n in range(4):
        old.put("ns", f"{n:x}" * 64, b"y" * 4000)
    monkeypatch.setattr(cache, "MAX_BYTES", 9000)
    new = Cache(tmp_path)
    new.put("ns", "f" * 64, b"z" * 10)
    assert sum(_entries(new).values()) <= 9000
    assert "f" * 64 in _entries(new)


def test_the_limit_is_set_in_mebibytes_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert cache.max_bytes() == cache.MAX_BYTES
    monkeypatch.setenv("FLEETGEN_CACHE_MAX_MB", "3")
    assert cache.max_bytes() == 3 * 2**20
    monkeypatch.setenv("FLEETGEN_CACHE_MAX_MB", "lots")
    assert cache.max_bytes() == cache.MAX_BYTES


def test_cache_dir_is_under_the_output() -> None:
    assert Cache(Path("/out")).directory == Path("/out") / CACHE_DIR


def test_values_come_back_as_written_and_damaged_entries_miss(tmp_path: Path) -> None:
    """One codec (marshal behind a checked header): builtin data reads back exactly, with its
    types; an entry truncated, edited or stored under another key is a miss."""
    store = Cache(tmp_path)
    value = {"files": {"a.yaml": "0" * 64}, "rows": (("web", "c1"),), "data": b"\x00", "n": 1.5}
    store.put("ns", "a" * 64, value)
    assert Cache(tmp_path).get("ns", "a" * 64) == value
    assert isinstance(Cache(tmp_path).get("ns", "a" * 64)["rows"], tuple)
    path = next(store.directory.glob("ns/*/*.bin"))
    data = path.read_bytes()
    for damaged in (data[:-1], data[:-3] + bytes([data[-3] ^ 1]) + data[-2:], b""):
        path.write_bytes(damaged)
        assert store.get("ns", "a" * 64) is None
    path.write_bytes(data)
    (path.parent.parent / "bb").mkdir()
    (path.parent.parent / "bb" / f"{'b' * 64}.bin").write_bytes(data)
    assert store.get("ns", "b" * 64) is None
    assert store.get("ns", "c" * 64) is None
