"""The cyclic garbage collector, paused while a command builds and holds large acyclic data.

A compile of a large fleet creates millions of containers that live until it ends and hold no
reference cycles; with the collector on, every few thousand allocations it walks them again
(a full collection each time the heap grows by a quarter). Measured on the 1,000 × 100 benchmark
fleet (`benchmarks/run.py`): a cold build 5.7 s of CPU with it on, 3.2 s paused. The collector is
switched back on afterwards, what the command kept counting as old (`_age`); full collections
find whatever cycles were left, as usual.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block, back to how it was afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            _age()
            gc.enable()


def _age() -> None:
    """Count every object alive now as old: move it to the oldest generation without walking it.

    While paused, the youngest generation collects everything the block allocated and kept
    (millions of objects after a large build); enabled as they are, the collector would walk
    them all at the next allocation (≈ 0.03 s after a one-app build of the benchmark fleet,
    finding nothing: the data is acyclic). `gc.freeze` moves every object to the permanent
    generation and `gc.unfreeze` merges that into the oldest one, where full collections walk it
    as they walk any long-lived object; garbage cycles among them are collected then.
    """
    gc.freeze()
    gc.unfreeze()


def retire() -> None:
    """Let the process end without walking what it holds: the interpreter's last collection, at
    exit, walks every tracked object still alive (the spec classes, pydantic's schemas, a
    command's data) to find cycles whose memory the end of the process frees anyway. `gc.freeze`
    moves them all to the permanent generation, which collections skip. Measured on the
    example's no-op build (`benchmarks/startup.py`): ≈ 0.06 s of 0.58 s of CPU."""
    gc.freeze()


def pausing(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run with the collector `paused`."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return function(*args, **kwargs)

    return wrapper
