"""A walkthrough's log a reader can follow: each line stamped with the seconds since its start
(pytest ``-s`` shows it; a failing test's captured output too)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Timeline:
    """Lines printed as they happen, ``[  12.3 s] text``."""

    title: str
    start: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        print(f"\n=== {self.title}", flush=True)

    def say(self, text: str) -> None:
        for number, line in enumerate(text.splitlines()):
            stamp = f"[{time.monotonic() - self.start:7.1f} s]" if number == 0 else " " * 11
            print(f"{stamp} {line}", flush=True)
