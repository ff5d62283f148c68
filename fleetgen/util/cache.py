"""One content-addressed cache under ``<output>/.fleetgen/cache/``, which ignores itself in Git.

A key is the hash of an entry's complete inputs plus the code that computes it (`key`: the
fleetgen version and the content of every file fleetgen ships, so a changed emitter in a
development checkout, whose version did not move, never reuses what the old one wrote): an entry
never goes stale, changed inputs or code make another key. One codec: a value is builtin data
(dict, list, tuple, str, bytes, int, float, bool, None) written by ``marshal``, compressed with
zlib (level 1: a stored compile of 1,000 clusters x 100 apps is 33 MB of marshal, 1.2 MB
compressed, in 0.1 s), behind a header that names its key and the SHA-256 of its bytes, written
atomically; an entry that cannot be read back as written (truncated, edited, misplaced) counts as
a miss. A cache that cannot be written
(a read-only checkout) only costs time.

The cache is bounded: an entry read is touched (its mtime), and the first write of a command
first evicts the least recently used entries while the cache holds more than ``MAX_BYTES``
(``FLEETGEN_CACHE_MAX_MB`` overrides it), down to three quarters of it. Only files named as
entries are evicted (and a write's temporary file left by a killed run, after an hour); a miss
only costs time, so an entry evicted under another command's feet is computed again there.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import marshal
import os
import re
import time
import zlib
from pathlib import Path
from typing import Any

from fleetgen.version import VERSION

CACHE_DIR = ".fleetgen/cache"
MAX_BYTES = 512 * 2**20
_ENTRY = re.compile(r"[0-9a-f]{64}\.bin")
_STALE_TEMPORARY_S = 3600  # a write's temporary file this old was left by a killed run
_MAGIC = b"fleetgen-cache-3\n"
# In the cache itself, so it holds whichever fleetgen wrote ``.fleetgen/.gitignore``.
_GITIGNORE = b"# fleetgen's content-addressed cache\n*\n"
_WRITES = itertools.count()  # numbers this process's temporary files


def tree_digest(roots: list[Path]) -> str:
    """The hash of every file's path and bytes under ``roots`` (compiled bytecode aside).
    `os.walk`, not `Path.rglob`: it runs on every command (`code_identity`), three times faster."""
    digest = hashlib.sha256()
    for number, root in enumerate(roots):
        for name in sorted(_tree_files(root)):
            digest.update(f"\0{number}/{name}\0".encode())
            with open(os.path.join(root, name), "rb") as file:
                digest.update(file.read())
    return digest.hexdigest()


def _tree_files(root: Path) -> list[str]:
    """The files under ``root`` (through symbolic links to files), as POSIX paths relative to it."""
    found = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
        relative = Path(directory).relative_to(root).as_posix()
        prefix = "" if relative == "." else f"{relative}/"
        found += [prefix + name for name in names if os.path.isfile(os.path.join(directory, name))]
    return found


@functools.cache
def code_identity() -> str:
    """This fleetgen: its version and every file of its package (code, schemas, templates)."""
    return f"{VERSION}:{tree_digest([Path(__file__).parent.parent])}"  # the package as installed


def key(inputs: Any) -> str:
    """The hash of ``inputs`` (JSON-serializable, serialized canonically) and this fleetgen."""
    text = json.dumps([code_identity(), inputs], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Cache:
    """Entries by (namespace, key), each namespace a directory of ``<xx>/<key>.bin`` files."""

    def __init__(self, out_dir: Path) -> None:
        self.directory = out_dir / CACHE_DIR
        self._pruned = False
        self._made: set[Path] = set()  # directories this cache created or found

    def _path(self, namespace: str, entry: str) -> Path:
        return self.directory / namespace / entry[:2] / f"{entry}.bin"

    def get(self, namespace: str, entry: str) -> Any | None:
        """The value stored under ``entry``; None when absent, damaged or foreign."""
        path = self._path(namespace, entry)
        try:
            stored = path.read_bytes()
        except OSError:
            return None
        header = _header(entry, stored[len(_MAGIC) + len(entry) + 66 :])
        if not stored.startswith(header):
            return None
        try:
            value = marshal.loads(zlib.decompress(stored[len(header) :]))
        except (EOFError, ValueError, TypeError, zlib.error):
            return None
        _touch(path)
        return value

    def put(self, namespace: str, entry: str, value: Any) -> None:
        """Store ``value`` (builtin data) under ``entry``; a write failure is ignored."""
        data = zlib.compress(marshal.dumps(value, 4), 1)
        self._write(self._path(namespace, entry), _header(entry, data) + data)

    def _write(self, path: Path, data: bytes) -> None:
        """Write ``data`` to ``path`` atomically: a reader sees the old file or the new one."""
        if not self._pruned:
            self._pruned = True
            self.prune(max_bytes())
        try:
            if path.parent not in self._made:
                path.parent.mkdir(parents=True, exist_ok=True)
                ignore = self.directory / ".gitignore"
                if not ignore.is_file():
                    ignore.write_bytes(_GITIGNORE)
                self._made.add(path.parent)
            temporary = f"{path}.{os.getpid()}.{next(_WRITES)}.tmp"  # this process's alone
            with open(temporary, "xb") as handle:
                handle.write(data)
            os.replace(temporary, path)
        except OSError:
            return

    def prune(self, limit: int) -> None:
        """Evict the least recently used entries while the cache holds more than ``limit``
        bytes, down to three quarters of it, and temporary files left by killed writes."""
        entries, now = [], time.time()
        for path, stat in _files(self.directory):
            if _ENTRY.fullmatch(path.name):
                entries.append((stat.st_mtime, stat.st_size, path))
            elif path.suffix == ".tmp" and now - stat.st_mtime > _STALE_TEMPORARY_S:
                _remove(path)
        total = sum(size for _, size, _ in entries)
        if total <= limit:
            return
        for _, size, path in sorted(entries, key=lambda found: found[0]):
            if total <= limit * 3 // 4:
                break
            if _remove(path):
                total -= size


def max_bytes() -> int:
    """How large the cache may grow: ``FLEETGEN_CACHE_MAX_MB`` (mebibytes), else MAX_BYTES."""
    given = os.environ.get("FLEETGEN_CACHE_MAX_MB", "")
    return int(given) * 2**20 if given.isdigit() else MAX_BYTES


def _files(directory: Path) -> list[tuple[Path, os.stat_result]]:
    """The files two levels below each namespace of ``directory`` (``<ns>/<xx>/<file>``)."""
    found = []
    for shard in directory.glob("*/*"):
        try:
            with os.scandir(shard) as listing:
                found += [
                    (Path(item.path), item.stat(follow_symlinks=False))
                    for item in listing
                    if item.is_file(follow_symlinks=False)
                ]
        except OSError:
            continue
    return found


def _touch(path: Path) -> None:
    """Mark an entry as just used (eviction goes by mtime)."""
    try:
        os.utime(path)
    except OSError:
        return


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True


def _header(entry: str, payload: bytes) -> bytes:
    """What precedes ``payload`` stored under ``entry``: the format, the key and the payload's
    SHA-256, so that a truncated, edited or misplaced entry never reads as valid."""
    return b"%s%s\n%s\n" % (_MAGIC, entry.encode(), hashlib.sha256(payload).hexdigest().encode())
