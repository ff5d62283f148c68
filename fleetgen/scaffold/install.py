"""How the workflow and README that ``init`` writes install fleetgen: the way the running one was
installed, as pip (or any installer) recorded it (PEP 610 ``direct_url.json``), so that what
``init`` writes works the day it is written and names no tag or release that does not exist.

No ``direct_url.json``: installed from a package index, so ``fleetgen==VERSION``. A Git URL and
commit (``vcs_info``): ``fleetgen @ git+URL@COMMIT``, the URL as https without user info (it may
be a token). A local folder (``dir_info``, an editable checkout), an archive or anything else: no
requirement CI could use, and a note saying what to set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from fleetgen.scaffold.remote import https_url

WORKFLOW = ".github/workflows/fleet.yaml"
_SET = (
    f"set how CI installs fleetgen in {WORKFLOW} (its install step): "
    '"fleetgen==X.Y.Z" from a package index, or "fleetgen @ git+URL@COMMIT"'
)


@dataclass(frozen=True, slots=True)
class Install:
    """How CI installs the fleetgen that runs ``init``.

    Attributes:
        version: The installed version.
        requirement: What ``pip install`` installs it by; None: nothing CI can reach.
        note: Why there is no requirement, and what to set (None when there is one).
    """

    version: str
    requirement: str | None
    note: str | None = None


def installed() -> Install:
    """How this fleetgen was installed (`from_record`)."""
    found = _distribution()
    if found is None:
        return Install("unknown", None, f"fleetgen is not installed as a package: {_SET}")
    return from_record(found.read_text("direct_url.json"), found.version)


def from_record(direct_url: str | None, version: str) -> Install:
    """The `Install` of fleetgen ``version`` whose ``direct_url.json`` is ``direct_url`` (None:
    none recorded, a package index)."""
    if direct_url is None:
        return Install(version, f"fleetgen=={version}")
    try:
        record: Any = json.loads(direct_url)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        return Install(version, None, f"fleetgen's install record is unreadable: {_SET}")
    vcs, url = record.get("vcs_info"), str(record.get("url", ""))
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        https = https_url(url.removeprefix("git+")).url
        if https is not None:
            return Install(version, f"fleetgen @ git+{https}@{vcs['commit_id']}")
        where = "a Git repository CI cannot reach (no https:// or ssh URL)"
    elif isinstance(record.get("dir_info"), dict) and url.startswith("file://"):
        where = f"the local folder {url.removeprefix('file://')}"
    else:
        where = "an archive or a repository that is not Git"
    return Install(version, None, f"fleetgen {version} was installed from {where}: {_SET}")


def _distribution() -> metadata.Distribution | None:
    """The installed fleetgen: the first one an installer recorded (a source checkout's own
    ``fleetgen.egg-info``, found first when it is the current folder, records none)."""
    found = list(metadata.distributions(name="fleetgen"))
    recorded = [d for d in found if d.read_text("INSTALLER") is not None]
    return next(iter(recorded or found), None)
