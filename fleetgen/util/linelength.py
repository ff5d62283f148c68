"""The line length ruff (else black) formats a folder's Python with, which code fleetgen writes
into fleet.py is laid out to (`fleetgen.util.templating.formatted`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

DEFAULT_WIDTH = 88  # ruff's and black's line length when none is configured


def line_length(folder: Path) -> int:
    """The line length ruff (else black) formats ``folder``'s Python with: ``line-length`` of
    the nearest ``.ruff.toml``, ``ruff.toml`` or ``pyproject.toml`` configuring ruff (else black)
    in ``folder`` or above, up to the repository's top (the folder holding ``.git``); else
    `DEFAULT_WIDTH`. An unreadable file counts as none."""
    for directory in (folder.resolve(), *folder.resolve().parents):
        for name in (".ruff.toml", "ruff.toml"):
            if (directory / name).is_file():
                return _length(_toml(directory / name))
        tools = _toml(directory / "pyproject.toml").get("tool")
        for tool in ("ruff", "black"):
            if isinstance(tools, dict) and isinstance(tools.get(tool), dict):
                return _length(tools[tool])
        if (directory / ".git").exists():
            break
    return DEFAULT_WIDTH


def _length(config: dict[str, Any]) -> int:
    found = config.get("line-length")
    return found if isinstance(found, int) and found > 0 else DEFAULT_WIDTH


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
