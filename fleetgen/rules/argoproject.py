"""How Argo CD matches an AppProject's patterns: globs as gobwas/glob matches them for Argo CD,
``!`` deny patterns, normalized Git URLs; ``AppProject.IsSourcePermitted`` and
``isDestinationMatched``. `validate`'s contracts and `diff` read emitted AppProjects with them."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

_SCP = re.compile(r"^[\w.-]+@[\w.-]+:")
GLOB_CHARS = frozenset("*?[{")


def normalize_git_url(url: str) -> str:
    """Argo CD's git.NormalizeGitURL: lower case, scp-style SSH as a path, no ``.git``."""
    url = url.strip().lower()
    if _SCP.match(url):
        url = url.replace(":", "/", 1)
    return url.removesuffix(".git")


def glob_match(pattern: str, value: str, separator: str = "") -> bool:
    """gobwas/glob as Argo CD uses it: ``*`` stops at ``separator``, ``**`` does not."""
    if pattern == "*":
        return True
    if not GLOB_CHARS.intersection(pattern):
        return pattern == value
    return _glob_regex(pattern, separator).fullmatch(value) is not None


@functools.cache
def _glob_regex(pattern: str, separator: str) -> re.Pattern[str]:
    regex, index = "", 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            regex, index = regex + ".*", index + 2
            continue
        if char == "*":
            regex += f"[^{re.escape(separator)}]*" if separator else ".*"
        elif char == "?":
            regex += f"[^{re.escape(separator)}]" if separator else "."
        else:
            regex += re.escape(char)
        index += 1
    return re.compile(regex, re.DOTALL)


def _allowed(pattern: str, value: str, separator: str = "") -> bool:
    """Argo CD's globMatch with negation: ``!p`` matches what ``p`` does not."""
    if pattern.startswith("!"):
        return not glob_match(pattern[1:], value, separator)
    return glob_match(pattern, value, separator)


def source_permitted(project: Mapping[str, Any], repo: str) -> bool:
    """Argo CD's AppProject.IsSourcePermitted."""
    wanted, matched = normalize_git_url(repo), False
    for entry in project.get("sourceRepos") or []:
        deny = entry.startswith("!")
        pattern = ("!" if deny else "") + normalize_git_url(entry.removeprefix("!"))
        if _allowed(pattern, wanted, "/"):
            matched = True
        elif deny:
            return False
    return matched


def destination_permitted(
    project: Mapping[str, Any], name: str, server: str, namespace: str
) -> bool:
    """Argo CD's AppProject.isDestinationMatched."""
    matched = False
    for item in project.get("destinations") or []:
        item_name, item_server = str(item.get("name") or ""), str(item.get("server") or "")
        item_namespace = str(item.get("namespace") or "")
        name_ok = bool(name) and _allowed(item_name, name)
        server_ok = bool(server) and _allowed(item_server, server)
        namespace_ok = _allowed(item_namespace, namespace)
        # Go's precedence, as upstream: a || (b && c)
        denied = (
            (not name_ok and item_name.startswith("!"))
            or ((not server_ok and item_server.startswith("!")) and namespace_ok)
            or (not namespace_ok and item_namespace.startswith("!") and server_ok)
        )
        if (server_ok or name_ok) and namespace_ok:
            matched = True
        elif denied:
            return False
    return matched
