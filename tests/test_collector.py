"""The collector paused around a command, and what it finds to walk when switched back on."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from fleetgen import collector


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection the collector starts while the test runs."""
    started: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(record)
    try:
        yield started
    finally:
        gc.callbacks.remove(record)


def test_pausing_leaves_no_young_objects_to_walk(collections: list[int]) -> None:
    """What a paused block kept counts as old afterwards: the next allocations start no
    collection (without `collector._age`, the first one walks all 200,000 lists)."""
    assert gc.isenabled()

    @collector.pausing
    def build() -> list[list[int]]:
        return [[] for _ in range(200_000)]

    kept = build()
    assert gc.isenabled() and gc.get_count()[0] < gc.get_threshold()[0]
    more = [[] for _ in range(100)]
    assert collections == []
    assert len(kept) == 200_000 and len(more) == 100


def test_cycles_made_while_paused_are_still_collected(collections: list[int]) -> None:
    """Aged objects stay collectable: a garbage cycle made in the block goes at the next full
    collection."""

    class Node:
        other: object = None

    @collector.pausing
    def make() -> Node:
        first, second = Node(), Node()
        first.other, second.other = second, first
        return first

    found = weakref.ref(make())
    assert found() is not None  # kept alive by its cycle alone
    gc.collect()
    assert found() is None
    assert 2 in collections


def test_pausing_keeps_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        collector.pausing(lambda: None)()
        assert not gc.isenabled()
    finally:
        gc.enable()
