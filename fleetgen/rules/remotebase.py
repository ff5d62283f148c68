"""Remote kustomize bases: the entries of a kustomization's ``resources`` or ``components`` that
kustomize fetches with git (or over http) instead of reading them from the repository, and
whether one is pinned.

An entry is remote as kustomize's loader sees it: ``FileLoader.New`` treats every entry that
``git.NewRepoSpecFromURL`` parses as a repository to clone (a scheme ``https://``, ``http://``,
``ssh://`` or ``file://``, optionally behind ``git::``; an scp-like ``user@host:org/repo``; or
``github.com/...``, ``github.com:...``), and ``IsRemoteFile`` fetches http(s) files. Its ref is
the ``ref`` query parameter, else ``version`` (repospec ``parseQuery``); ``ClonerUsingGitExec``
runs ``git fetch --depth=1 URL REF`` (``HEAD`` without one).

Offline, a branch and a tag look alike, so fleetgen accepts as pinned only what reads as one:
a full 40-hex commit SHA, or a version tag ``v1.2.3`` (``1.2.3``, a pre-release or build suffix
and a ``path/`` prefix such as ``api/v1.2.3`` allowed). Anything else, or no ref, may move.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

_SCHEMES = ("https://", "http://", "ssh://", "file://", "github.com/", "github.com:")
_USER = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*@")  # repospec extractUsername
_COMMIT = re.compile(r"[0-9a-fA-F]{40}")
_SHORT_COMMIT = re.compile(r"[0-9a-f]{7,39}")
_VERSION_TAG = re.compile(
    r"(?:[A-Za-z0-9_.-]+/)*v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
)
PIN_HINT = (
    "pin it with ?ref= a full 40-hex commit SHA or a version tag such as v1.2.3 (a file "
    "fetched over http(s) has no ref: copy it into the base)"
)


def is_remote(entry: str) -> bool:
    """Whether kustomize fetches the ``resources``/``components`` ``entry`` from elsewhere."""
    rest = entry[5:] if entry[:5].lower() == "git::" else entry
    return rest.lower().startswith(_SCHEMES) or _USER.match(rest) is not None


def ref_of(entry: str) -> str:
    """The ref kustomize fetches a remote ``entry`` at: ``ref``, else ``version``; '' for none."""
    query = parse_qs(entry.partition("?")[2])
    return (query.get("ref") or query.get("version") or [""])[0]


def unpinned(entry: str) -> str | None:
    """Why the remote ``entry`` may change under the same text, or None when its ref pins it."""
    ref = ref_of(entry)
    if _COMMIT.fullmatch(ref) or _VERSION_TAG.fullmatch(ref):
        return None
    if not ref:
        return (
            "has no ref, so what kustomize fetches (the repository's HEAD, or the file as it is "
            "then) can change at each build"
        )
    if _SHORT_COMMIT.fullmatch(ref):
        return (
            f"has ref {ref!r}, an abbreviated commit, which `git fetch` cannot fetch by itself "
            "(kustomize fetches URL and ref with git fetch --depth=1)"
        )
    return (
        f"has ref {ref!r}, which may be a branch (fleetgen cannot tell a branch from a tag "
        "offline), so what it fetches can change at each build"
    )
