"""The fleet's ``repo`` for ``init`` without ``--repo``: the Git remote ``origin`` of the folder,
as the https:// URL the engines read it from; and whether that repository exists already
(`has_commits`). Git is read through GitPython, as everywhere in fleetgen.

An scp-style (``git@host:org/repo.git``) or ``ssh://`` remote becomes ``https://host/org/repo.git``;
user info in an https:// remote (a token, a password) is dropped, never written into fleet.py.
Anything else falls back to a placeholder, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import git

_SCP = re.compile(r"(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?!//)(?P<path>[^\s]+)")
_SSH = re.compile(r"ssh://(?:[^@/\s]+@)?(?P<host>[^:/\s]+)(?::\d+)?/(?P<path>[^\s]+)")
_HTTPS = re.compile(r"https://(?:(?P<userinfo>[^@/\s]+)@)?(?P<rest>[^\s@]+)")
# Until the repo is known (init, import): a .invalid host never resolves, and build and validate
# warn about it.
PLACEHOLDER_REPO = "https://placeholder.invalid/{name}.git"
# The API server of the cluster init writes, until the user sets it: as the repo, never resolves.
PLACEHOLDER_SERVER = "https://{cluster}.placeholder.invalid:6443"


@dataclass(frozen=True, slots=True)
class Remote:
    """The repo URL init writes, and what the user should know about it (None: nothing)."""

    url: str | None  # None: no usable remote; init writes a placeholder
    note: str | None


def origin(directory: Path) -> Remote:
    """The https URL of the Git remote ``origin`` of the repository holding ``directory`` (or
    its nearest existing parent: init may create it), or why there is none."""
    try:
        with _repository(directory) as repo:
            url: str = repo.git.remote("get-url", "origin")
    except git.GitCommandNotFound:
        return Remote(None, "git is not available to read the remote 'origin'")
    except git.GitError:  # no repository, or git finds no remote 'origin' in it
        return Remote(None, "the folder has no Git remote 'origin'")
    return https_url(url.strip())


def has_commits(directory: Path) -> bool:
    """Whether the Git repository holding ``directory`` (or its nearest existing parent) has a
    commit: an existing repository, as opposed to one just made with ``git init``."""
    try:
        with _repository(directory) as repo:
            return repo.head.is_valid()
    except git.GitError:
        return False


def _repository(directory: Path) -> git.Repo:
    """The Git repository holding ``directory`` or its nearest existing parent (init may create
    it). Raises git.GitError when there is none."""
    return git.Repo(_existing(directory), search_parent_directories=True)


def _existing(directory: Path) -> Path:
    """``directory``, or its nearest parent that exists (init may create it)."""
    return next((p for p in (directory, *directory.resolve().parents) if p.is_dir()), directory)


def https_url(remote: str) -> Remote:
    """``remote`` as an https:// URL, saying what was converted or dropped."""
    if match := _HTTPS.fullmatch(remote):
        url = f"https://{match['rest']}"
        if match["userinfo"]:
            return Remote(
                url,
                "the remote 'origin' carries credentials in its URL; fleet.py gets it without them",
            )
        return Remote(url, None)
    for pattern in (_SSH, _SCP):
        if (match := pattern.fullmatch(remote)) and not match["path"].startswith("/"):
            url = f"https://{match['host']}/{match['path']}"
            return Remote(
                url,
                f"the remote 'origin' is {_shown(remote)}; the engines read the "
                f"repo as {url} (give --repo ssh://... to use ssh instead)",
            )
    return Remote(
        None,
        f"the remote 'origin' ({_shown(remote)}) is not an https:// or ssh "
        "Git URL the engines can read",
    )


def _shown(remote: str) -> str:
    """``remote`` without the user info of a URL (it may hold a token)."""
    return re.sub(r"(?<=://)[^@/\s]+@", "", remote)
