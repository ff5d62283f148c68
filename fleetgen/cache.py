"""One content-addressed cache under ``<output>/.fleetgen/cache/``, which ignores itself in Git.

A key is the hash of a unit's complete serialized inputs plus the code that computes it (the
fleetgen version and the content of every file fleetgen ships: a changed emitter in a development
checkout, whose version did not move, must not reuse what the old one wrote), so an entry never
goes stale: changed inputs or code make another key. Entries are JSON, or bytes behind a header that
names their key and their SHA-256, written atomically; one that cannot be read back as written
(truncated, edited, another format) counts as a miss and is rewritten. A cache that cannot be
written (read-only checkout) only costs time.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from fleetgen.version import VERSION

CACHE_DIR = ".fleetgen/cache"
_MAGIC = b"fleetgen-cache-bytes\n"
# In the cache itself, so it holds whichever fleetgen wrote ``.fleetgen/.gitignore``.
_GITIGNORE = b"# fleetgen's content-addressed cache\n*\n"


def tree_digest(roots: list[Path]) -> str:
    """The hash of every file's path and bytes under ``roots`` (compiled bytecode aside)."""
    digest = hashlib.sha256()
    for number, root in enumerate(roots):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(f"\0{number}/{path.relative_to(root).as_posix()}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def code_identity() -> str:
    """This fleetgen: its version and every file of its code, schemas and templates."""
    roots = [Path(str(resources.files(package))) for package in ("fleetgen", "fleetgen.templates")]
    return f"{VERSION}:{tree_digest(roots)}"


def key(inputs: Any) -> str:
    """The hash of ``inputs`` (JSON-serializable, serialized canonically) and this fleetgen."""
    text = json.dumps([code_identity(), inputs], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Cache:
    """Entries by (namespace, key), each namespace a directory of ``<key>.json`` files."""

    def __init__(self, out_dir: Path) -> None:
        self.directory = out_dir / CACHE_DIR

    def _path(self, namespace: str, entry: str, suffix: str = "json") -> Path:
        return self.directory / namespace / entry[:2] / f"{entry}.{suffix}"

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
        data = json.dumps({"key": entry, "value": value}, separators=(",", ":")).encode()
        self._write(self._path(namespace, entry), data)

    def get_bytes(self, namespace: str, entry: str) -> bytes | None:
        """The bytes stored under ``entry``, None when absent, damaged or foreign."""
        try:
            stored = self._path(namespace, entry, "bin").read_bytes()
        except OSError:
            return None
        header = _header(entry, stored[len(_MAGIC) + len(entry) + 66:])
        if not stored.startswith(header):
            return None
        return stored[len(header):]

    def put_bytes(self, namespace: str, entry: str, data: bytes) -> None:
        """Store ``data`` under ``entry``; a write failure is ignored."""
        self._write(self._path(namespace, entry, "bin"), _header(entry, data) + data)

    def _write(self, path: Path, data: bytes) -> None:
        """Write ``data`` to ``path`` atomically (a reader sees the old file or the new one)."""
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


def _header(entry: str, payload: bytes) -> bytes:
    """What precedes ``payload`` stored under ``entry``: the format, the key and the payload's
    SHA-256, so that a truncated, edited or misplaced entry never reads as valid."""
    return b"%s%s\n%s\n" % (_MAGIC, entry.encode(), hashlib.sha256(payload).hexdigest().encode())
