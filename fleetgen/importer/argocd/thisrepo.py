"""This repository as the sources and git generators that import reads from its files name it.
fleetgen's Applications read one revision of one repository (``Fleet(repo=..., revision=...)``):
the revision most of them read (a branch other than the default ``main`` is the fleet's), at the
URL the Git remote ``origin`` has, else the one most of them name. A source or generator read
from the files here that names another URL, or reads another revision, is a finding: Argo CD
reads it there (repo-server ``GenerateManifest`` at the source's ``targetRevision``)."""

from __future__ import annotations

from collections import Counter

from fleetgen.importer.argocd.common import LocalRead, Reader
from fleetgen.rules.argoproject import normalize_git_url

# What names the repository's default branch, which fleetgen's Fleet(revision="main") reads.
DEFAULT = frozenset({"", "HEAD", "main"})


def read_here(reader: Reader, read: LocalRead) -> None:
    """Note a read of this repository's files (its URL counts towards the fleet's)."""
    reader.local.append(read)
    reader.urls[read.url] += 1


def fleet_revision(reader: Reader) -> None:
    """The fleet's revision: the one most reads name (the first found of a tie), when it is
    not the default branch."""
    counted = Counter("" if r.revision in DEFAULT else r.revision for r in reader.local)
    if counted:
        reader.draft.revision = counted.most_common(1)[0][0] or None


def is_fleet_revision(reader: Reader, revision: str) -> bool:
    """Whether ``revision`` of this repository is the one the fleet reads."""
    fleet = reader.draft.revision
    return revision == fleet if fleet else revision in DEFAULT


def differences(reader: Reader, remote: str | None) -> None:
    """A finding for each read naming another URL than the fleet's repository (the Git
    remote ``remote``, else the URL most reads name) or reading another revision."""
    fleet = remote or reader.draft.repo
    for read in reader.local:
        if fleet and read.url and normalize_git_url(read.url) != normalize_git_url(fleet):
            reader.draft.findings.append(
                read.origin.finding(
                    f"{read.who} names {read.url}, not the fleet's repository ({fleet}), and "
                    "is read from the files here",
                    "check it is this repository under another URL; else add it by hand "
                    "(App(source=GitSource(...)) for another repository)",
                    (*read.where, "repoURL"),
                )
            )
        if not is_fleet_revision(reader, read.revision):
            revision, fleet_at = read.revision or "HEAD", reader.draft.revision or "main"
            reader.draft.findings.append(
                read.origin.finding(
                    f"{read.who} reads this repository at revision {revision!r}, the fleet at "
                    f"{fleet_at!r}: imported from the files here",
                    "fleetgen reads one revision of its repository (Fleet(revision=...)): check "
                    "that revision holds these files, or add it by hand",
                    (*read.where, read.key),
                )
            )
