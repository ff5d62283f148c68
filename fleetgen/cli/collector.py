"""The cyclic garbage collector of the console command: off while the command runs, and what the
process holds left to the permanent generation as it ends. The library never touches it: a
program that embeds fleetgen keeps its collector as it set it.

Starting a command imports pydantic and builds the spec classes (hundreds of thousands of
long-lived objects), and a compile of a large fleet creates millions of containers that live
until it ends and hold no reference cycles; with the collector on, it walks them again every few
thousand allocations. Measured on the 1,000 × 100 benchmark fleet (`benchmarks/run.py`): a cold
build 5.7 s of CPU with it on, 3.2 s off. At exit the interpreter's last collection walks every
tracked object still alive to find cycles whose memory the end of the process frees anyway;
`gc.freeze` moves them to the permanent generation, which collections skip (≈ 0.06 s of the
example's 0.58 s no-op build, `benchmarks/startup.py`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def command() -> Iterator[None]:
    """The collector off while the block (the whole command) runs; at its end, however it ends,
    every object alive frozen, so the exit collection skips them. For the console entry only: the
    process ends right after."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
