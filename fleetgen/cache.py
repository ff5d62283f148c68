"""One content-addressed cache under ``<output>/.fleetgen/cache/``, which ignores itself in Git.

A key is the hash of a unit's complete serialized inputs plus the fleetgen version, so an entry
never goes stale: changed inputs make another key. Entries are JSON, written atomically; one that
cannot be read back as written (truncated, edited, another format) counts as a miss and is
rewritten. A cache that cannot be written (read-only checkout) only costs time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from fleetgen.version import VERSION

CACHE_DIR = ".fleetgen/cache"
# In the cache itself, so it holds whichever fleetgen wrote ``.fleetgen/.gitignore``.
_GITIGNORE = b"# fleetgen's content-addressed cache\n*\n"


def key(inputs: Any) -> str:
    """The hash of ``inputs`` (JSON-serializable, serialized canonically) and this fleetgen."""
    text = json.dumps([VERSION, inputs], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Cache:
    """Entries by (namespace, key), each namespace a directory of ``<key>.json`` files."""

    def __init__(self, out_dir: Path) -> None:
        self.directory = out_dir / CACHE_DIR

    def _path(self, namespace: str, entry: str) -> Path:
        return self.directory / namespace / entry[:2] / f"{entry}.json"

    def get(self, namespace: str, entry: str) -> Any | None:
        """The value stored under ``entry``, None when absent or unreadable."""
        try:
            stored = json.loads(self._path(namespace, entry).read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("key") != entry or "value" not in stored:
            return None
        return stored["value"]

    def put(self, namespace: str, entry: str, value: Any) -> None:
        """Store ``value`` (JSON-serializable) under ``entry``; a write failure is ignored."""
        path = self._path(namespace, entry)
        data = json.dumps({"key": entry, "value": value}, separators=(",", ":")).encode()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.is_file():
                ignore.write_bytes(_GITIGNORE)
            with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp",
                                             delete=False) as handle:
                handle.write(data)
            os.replace(handle.name, path)
        except OSError:
            return
