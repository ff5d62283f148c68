"""How the scaffolded CI, pre-commit config and README install fleetgen: from a pinned Git URL,
which works before fleetgen is published on a package index, pinned to what generated output/.

Where this fleetgen was installed from a Git URL (pip records it, PEP 610 ``direct_url.json``),
that URL at that commit; else fleetgen's repository at the release tag ``v<VERSION>``.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

from fleetgen.scaffold.remote import https_url
from fleetgen.version import SOURCE_REPO, VERSION

# fleetgen's GitHub Action (its repository's action.yml) at this release, which the scaffolded
# workflow uses; it installs `requirement`, wherever fleetgen came from.
ACTION = f"fleetgen/fleetgen@v{VERSION}"


def requirement() -> str:
    """The pip requirement of this fleetgen, pinned: ``fleetgen @ git+URL@REF``."""
    return pinned(_recorded())


def hooks() -> tuple[str, str]:
    """The repository and rev a ``.pre-commit-config.yaml`` uses fleetgen's hooks by (its
    ``.pre-commit-hooks.yaml``): this fleetgen's source, as `source` finds it."""
    return source(_recorded())


def pinned(direct_url: str | None) -> str:
    """The requirement for an installation whose ``direct_url.json`` is ``direct_url`` (None:
    not recorded): ``fleetgen @ git+URL@REF`` of its `source`."""
    url, ref = source(direct_url)
    return f"fleetgen @ git+{url}@{ref}"


def source(direct_url: str | None) -> tuple[str, str]:
    """(https Git URL, ref) of an installation whose ``direct_url.json`` is ``direct_url``: the
    URL it came from and its commit (user info dropped: it may be a token), else `SOURCE_REPO`
    at the release tag."""
    try:
        found: Any = json.loads(direct_url) if direct_url else None
    except ValueError:
        found = None
    vcs = found.get("vcs_info") if isinstance(found, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        url = https_url(str(found.get("url", "")).removeprefix("git+")).url
        if url is not None:
            return url, str(vcs["commit_id"])
    return SOURCE_REPO, f"v{VERSION}"


def _recorded() -> str | None:
    """This fleetgen's ``direct_url.json``, if pip recorded one."""
    try:
        return metadata.distribution("fleetgen").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
