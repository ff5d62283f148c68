"""Sources outside the repository as the spec writes them: a Flux GitRepository or
OCIRepository as ``GitSource(...)`` / ``OciSource(...)``, or why it cannot be one; what any
source must be to be copied (no credentials in its URL); a chart's version as the spec writes
what the engine reads (`chart_version`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fleetgen.importer.draft import Engine
from fleetgen.importer.repo import Doc, mapping
from fleetgen.rules import chartversions
from fleetgen.util.templating import Call

RANGE_RULE = "chart-range"
RANGE_WAIVER = Call(
    "Waiver", {"rule": RANGE_RULE, "reason": "imported: the original follows a range"}
)
_ADD = "then add it as App(chart=HelmChart(...))"


def git_source(doc: Doc) -> Call | str:
    """``GitSource(...)`` of a GitRepository, or why not."""
    url = str(doc.spec.get("url", ""))
    if not url.startswith("https://"):
        return "its url is not https://"
    if carries_credentials(url):
        return "its url carries credentials"
    ref = mapping(doc.spec.get("ref"))
    fields: dict[str, Any] = {"url": url}
    if ref.get("branch") and ref["branch"] != "main":
        fields["branch"] = str(ref["branch"])
    revision = ref.get("tag") or ref.get("commit")
    if revision:
        fields["revision"] = str(revision)
    elif ref.get("semver") or ref.get("name"):
        return "it follows a semver range or a ref name: pin a tag or commit"
    secret = mapping(doc.spec.get("secretRef")).get("name")
    if secret:
        fields["secret_ref"] = str(secret)
    return Call("GitSource", fields)


def oci_source(doc: Doc) -> Call | str:
    """``OciSource(...)`` of an OCIRepository, or why not."""
    url = str(doc.spec.get("url", ""))
    ref = mapping(doc.spec.get("ref"))
    if carries_credentials(url):
        return "its url carries credentials"
    if ref.get("digest"):
        return Call("OciSource", {"url": url, "digest": str(ref["digest"])})
    if ref.get("tag"):
        return Call("OciSource", {"url": url, "tag": str(ref["tag"])})
    return "it names no tag or digest"


def carries_credentials(url: str) -> bool:
    """Whether ``url`` has user info (``https://user:token@host/...``): never copied."""
    return "@" in url.partition("://")[2].split("/", 1)[0]


@dataclass(frozen=True, slots=True)
class ChartVersion:
    """A chart version as read: what the spec writes for it (None: nothing it can write, a
    finding), whether that is a range, and what to say of it (``what`` and ``todo`` of a
    finding; empty: nothing)."""

    written: str | None
    range: bool = False
    what: str = ""
    todo: str = ""


def chart_version(version: str, engine: Engine) -> ChartVersion:
    """``version`` as ``engine`` reads it (`fleetgen.rules.chartversions`): an exact version as
    it is; a range as it is, with the note that it follows one (`RANGE_WAIVER`); on Flux, a
    partial version (``1.2``, ``6``) as the range Flux reads it as (source-controller's
    ``getChartVersion`` finds no chart of that exact version, then ``semver.NewConstraint``
    reads ``1.2.x``), while Argo CD reads it as an exact tag (``versions.IsVersion``), which
    the spec cannot write."""
    found = chartversions.kind(version)
    if found == "exact":
        return ChartVersion(version)
    if found == "range":
        return _ranged(version, f"chart version {version!r} is a range: mapped as written")
    written = _as_range(version) if engine == "flux" and found == "partial" else None
    if written is not None:
        return _ranged(
            written,
            f"chart version {version!r} is partial, which Flux reads as the range {written!r}: "
            "mapped as that",
        )
    if found == "partial":
        return ChartVersion(
            None,
            what=f"chart version {version!r} is partial: Argo CD reads it as that exact tag, "
            "Flux as a range; the spec takes neither",
            todo=f"write the exact version or a range such as '1.2.x', {_ADD}",
        )
    return ChartVersion(
        None,
        what=f"chart version {version!r} is neither a version nor a range both engines read",
        todo=f"write an exact version or a range, {_ADD}",
    )


def _ranged(written: str, what: str) -> ChartVersion:
    return ChartVersion(
        written,
        True,
        f"{what}, with a Waiver of {RANGE_RULE}; Argo CD and Flux each resolve it on their own "
        "at sync time, so what runs is not pinned",
        "pin an exact version, and drop the Waiver",
    )


def _as_range(partial: str) -> str | None:
    """The range Flux reads a partial version of one or two numbers as (``1.2`` -> ``1.2.x``,
    ``v6`` -> ``6.x``), None for others."""
    match = re.fullmatch(r"v?([0-9]+)(\.[0-9]+)?", partial)
    if match is None:
        return None
    major, minor = int(match.group(1)), match.group(2)
    return f"{major}.{int(minor[1:])}.x" if minor else f"{major}.x"
