"""Argo CD: cluster Secrets are clusters, AppProjects projects, Applications and the
Applications ApplicationSets generate app instances."""

from __future__ import annotations

from fleetgen.adopt.draft import Draft
from fleetgen.adopt.repo import Repo


def recognise(repo: Repo) -> Draft | None:
    """The fleet of an Argo CD repository, None when it has none of Argo CD's objects."""
    del repo
    return None
