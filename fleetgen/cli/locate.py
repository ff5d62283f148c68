"""Where the spec is: ``fleet.py`` in a folder or the nearest parent, as git finds ``.git``."""

from __future__ import annotations

from pathlib import Path

SPEC_NAME = "fleet.py"


def find_spec(start: Path) -> Path | None:
    """The nearest ``fleet.py`` at or above ``start``, not above the top of its Git work tree."""
    for folder in (start, *start.parents):
        if (folder / SPEC_NAME).is_file():
            return folder / SPEC_NAME
        if (folder / ".git").exists():
            return None
    return None
