"""How the scaffolded CI and README install fleetgen: from a pinned Git URL, which works before
fleetgen is published on a package index, pinned to what generated output/.

Where this fleetgen was installed from a Git URL (pip records it, PEP 610 ``direct_url.json``),
that URL at that commit; else fleetgen's repository at the release tag ``v<VERSION>``.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

from fleetgen.scaffold.remote import https_url
from fleetgen.version import SOURCE_REPO, VERSION


def requirement() -> str:
    """The pip requirement of this fleetgen, pinned: ``fleetgen @ git+URL@REF``."""
    try:
        recorded = metadata.distribution("fleetgen").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        recorded = None
    return pinned(recorded)


def pinned(direct_url: str | None) -> str:
    """The requirement for an installation whose ``direct_url.json`` is ``direct_url`` (None:
    not recorded): its https Git URL and commit (user info dropped: it may be a token), else
    `SOURCE_REPO` at the release tag."""
    try:
        found: Any = json.loads(direct_url) if direct_url else None
    except ValueError:
        found = None
    vcs = found.get("vcs_info") if isinstance(found, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        url = https_url(str(found.get("url", "")).removeprefix("git+")).url
        if url is not None:
            return f"fleetgen @ git+{url}@{vcs['commit_id']}"
    return f"fleetgen @ git+{SOURCE_REPO}@v{VERSION}"
