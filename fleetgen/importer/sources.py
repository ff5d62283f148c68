"""Sources outside the repository as the spec writes them: a Flux GitRepository or
OCIRepository as ``GitSource(...)`` / ``OciSource(...)``, or why it cannot be one; what any
source must be to be copied (no credentials in its URL, a chart's version pinned)."""

from __future__ import annotations

from typing import Any

from fleetgen.importer.repo import Doc, mapping
from fleetgen.model.fields import chart_version
from fleetgen.util.templating import Call

PIN = (
    "pin an exact version (both engines must install the same release), then add it as "
    "App(chart=HelmChart(...))"
)


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


def pinned(version: str | None) -> bool:
    """Whether a chart version is exact, as `HelmChart.version` must be."""
    try:
        chart_version(version or "")
    except ValueError:
        return False
    return True
