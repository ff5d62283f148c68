"""The cyclic garbage collector, paused while a command builds and holds large acyclic data.

A compile of a large fleet creates millions of containers that live until it ends and hold no
reference cycles; with the collector on, every few thousand allocations it walks them again
(a full collection each time the heap grows by a quarter). Measured on the 1,000 × 100 benchmark
fleet (`benchmarks/run.py`): a cold build 5.7 s of CPU with it on, 3.2 s paused. The collector is
switched back on afterwards (and collects then, as usual, whatever cycles were left).
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
            gc.enable()


def pausing(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run with the collector `paused`."""
    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return function(*args, **kwargs)
    return wrapper
