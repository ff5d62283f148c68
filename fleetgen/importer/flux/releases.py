"""Flux HelmReleases as chart apps: the chart (of a HelmRepository, an OCIRepository or a folder
of this repository) at its version (exact, or a range: `fleetgen.importer.sources.chart_version`),
the values helm-controller merges, the release's name, sync settings, retries and tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import yaml

from fleetgen.importer.draft import ChartRef, Instance
from fleetgen.importer.findings import unmapped
from fleetgen.importer.flux.common import SOURCE, Applied, Walk, dependencies
from fleetgen.importer.flux.generators import artifact_chart
from fleetgen.importer.flux.hub import cluster_of
from fleetgen.importer.flux.kustomizations import ks_sync
from fleetgen.importer.flux.sources import chart_fields
from fleetgen.importer.flux.tenancy import tenant
from fleetgen.importer.repo import Doc, at, mapping, mappings, relative_path
from fleetgen.importer.sources import carries_credentials, chart_version
from fleetgen.manifests.yamlio import load_all
from fleetgen.model.fields import to_dns_label
from fleetgen.resolver.values import merge_values
from fleetgen.rules import chartversions

# The fields import maps (at the top of a spec, and below: their parts it reads).
_RELEASE_MAPPED = {
    "chart": (),
    "chartRef": (),
    "interval": (),
    "timeout": (),
    "values": (),
    "valuesFrom": (),
    "releaseName": (),
    "targetNamespace": (),
    "install": ("remediation", "disableWait"),
    "upgrade": ("remediation",),
    "test": ("enable",),
    "dependsOn": (),
    "serviceAccountName": (),
    "suspend": (),
    "kubeConfig": (),  # a hub's spoke: `hub.cluster_of`
    "storageNamespace": (),  # `_storage`
}
_RELEASE_TODO = {
    "install": "fleetgen's releases install CRDs (Create) and retry as HelmChart(install_retries) "
    "says: set what else matters by hand",
    "upgrade": "fleetgen's releases replace CRDs (CreateReplace) and retry as "
    "HelmChart(upgrade_retries) says: set what else matters by hand",
    "valuesFrom": "copy the values into values= (a ConfigMap's) or keep secret ones in the "
    "chart's existingSecret settings",
    "postRenderers": "set images= / patches= on the app (post-rendered on Flux)",
    "driftDetection": "fleetgen's HelmReleases correct drift (mode: enabled), but for the app's "
    "ignore_differences: list there what may differ",
}


def release(walk: Walk, item: Applied) -> Instance | None:
    """A HelmRelease's chart app, None (a finding) when its chart cannot be said."""
    doc, spec = item.doc, item.doc.spec
    cluster = cluster_of(walk, doc)
    if cluster is None:
        return None
    if at(spec, "chartRef", "kind") == "ExternalArtifact":
        walk.draft.findings.append(artifact_chart(walk, doc))
        return None
    chart = _release_chart(walk, doc)
    if isinstance(chart, str):
        walk.draft.findings.append(
            doc.finding(
                f"HelmRelease {doc.name!r}: chart not mapped ({chart})",
                "add it by hand as App(chart=HelmChart(...))",
                ("spec", "chart"),
            )
        )
        return None
    version = _version(walk, doc, chart)
    if chart.ref.path is None and version is None:
        return None
    name = to_dns_label(doc.name, "app")
    target = spec.get("targetNamespace") or doc.namespace or None
    sync = release_sync(spec)
    # what deleting it does: its Kustomization's pruning (flux-system's: prune)
    sync["prune"] = ks_sync(item.parent.spec)["prune"] if item.parent is not None else True
    from_source, found = chart_fields(doc, chart.source)
    walk.draft.findings += found
    options = (*_chart_options(spec), *from_source)
    _storage(walk, doc, str(target or ""))
    instance = Instance(
        name,
        cluster,
        doc,
        namespace=str(target) if target else None,
        chart=ChartRef(
            chart.ref.repo, chart.ref.name, chart.ref.path, _release_name(doc, name), options
        ),
        values=dict(_values(walk, doc)),
        chart_version=version,
        sync=sync,
    )
    instance.uses = {str(target)} if target else set()
    instance.depends_on = [*dependencies(doc), *walk.inherited(item.parent)]
    walk.draft.findings += unmapped(doc, _RELEASE_MAPPED, _RELEASE_TODO)
    tenant(walk, instance, doc)
    return instance


def release_sync(spec: Mapping[str, Any]) -> dict[str, Any]:
    """SyncPolicy fields of a HelmRelease's spec."""
    sync: dict[str, Any] = {"automated": not spec.get("suspend", False)}
    install = mapping(spec.get("install"))
    sync["wait"] = not install.get("disableWait", False)
    for key in ("interval", "timeout"):
        if spec.get(key):
            sync[key] = str(spec[key])
    return sync


def _storage(walk: Walk, doc: Doc, target: str) -> None:
    """A finding when Helm keeps the release's history elsewhere than fleetgen does, in the
    release's namespace: helm-controller keeps it in ``storageNamespace``, by default the
    HelmRelease's own namespace, and on a changed one finds no release and installs anew."""
    storage = str(doc.spec.get("storageNamespace") or doc.namespace)
    if target and storage != target:
        walk.draft.findings.append(
            doc.finding(
                f"HelmRelease {doc.name!r}: Helm keeps its history in namespace {storage!r}, "
                f"fleetgen's release in {target!r}",
                "helm-controller will install the release anew there: set "
                f"spec.storageNamespace: {target} first and let Flux move it, then import",
                (
                    "spec",
                    "storageNamespace" if "storageNamespace" in doc.spec else "targetNamespace",
                ),
            )
        )


def values_maps(release: Doc) -> list[tuple[str, str, str, str]]:
    """(group, kind, namespace, name) of each ConfigMap a HelmRelease reads values from."""
    return [
        ("", "ConfigMap", release.namespace, str(ref.get("name")))
        for ref in mappings(release.spec.get("valuesFrom"))
        if ref.get("kind") == "ConfigMap"
    ]


def _values(walk: Walk, doc: Doc) -> dict[str, Any]:
    """A HelmRelease's values as helm-controller merges them: each ``valuesFrom`` ConfigMap
    applied beside it, in order (a Secret's, never read, a finding), then ``values``."""
    merged: dict[str, Any] = {}
    for index, ref in enumerate(mappings(doc.spec.get("valuesFrom"))):
        found = walk.configmaps.get((doc.namespace, str(ref.get("name"))))
        text = (
            mapping(found.obj.get("data")).get(str(ref.get("valuesKey") or "values.yaml"))
            if found
            else None
        )
        if ref.get("kind") != "ConfigMap" or not isinstance(text, str) or ref.get("targetPath"):
            walk.draft.findings.append(
                doc.finding(
                    f"HelmRelease {doc.name!r}: valuesFrom {ref.get('kind')} "
                    f"{ref.get('name')!r} not mapped",
                    _RELEASE_TODO["valuesFrom"],
                    ("spec", "valuesFrom", index),
                )
            )
            continue
        try:
            docs = load_all(text)
        except yaml.YAMLError:
            docs = [None]  # not a mapping: the build says so
        merged = merge_values(merged, dict(mapping(docs[0] if docs else {})), "", {})
    return merge_values(merged, dict(mapping(doc.spec.get("values"))), "", {})


def _chart_options(spec: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """HelmChart fields of a HelmRelease: remediation retries and Helm tests."""
    options: list[tuple[str, Any]] = []
    for section, key in (("install", "install_retries"), ("upgrade", "upgrade_retries")):
        retries = at(spec, section, "remediation", "retries")
        if isinstance(retries, int):
            options.append((key, retries))
    if at(spec, "test", "enable") is True:
        options.append(("test", True))
    return tuple(options)


def _release_name(doc: Doc, app: str) -> str | None:
    """The release name when Flux's (``releaseName``, else ``[targetNamespace-]name``) is not
    the app's name, which fleetgen uses by default."""
    spec = doc.spec
    target = spec.get("targetNamespace")
    name = str(spec.get("releaseName") or (f"{target}-{doc.name}" if target else doc.name))
    return None if name == app else name


class _Chart(NamedTuple):
    """The chart a HelmRelease installs, its version as Flux reads it (None for a chart kept in
    the repository), where that version is written (an object and the field's path) and the
    source object it comes from (None for a chart kept in the repository)."""

    ref: ChartRef
    version: str | None
    at: Doc
    field: tuple[str, ...] = ()
    source: Doc | None = None


def _version(walk: Walk, release: Doc, chart: _Chart) -> str | None:
    """The version the spec writes for ``chart`` (a finding where it is a range or cannot be
    written: `chart_version`), None where it writes none."""
    if chart.version is None:
        return None
    found = chart_version(chart.version, "flux")
    if found.what:
        walk.draft.findings.append(
            chart.at.finding(f"HelmRelease {release.name!r}: {found.what}", found.todo, chart.field)
        )
    return found.written


def _release_chart(walk: Walk, doc: Doc) -> _Chart | str:
    """The chart a HelmRelease installs and its version, or why it cannot be said."""
    spec = doc.spec
    chart_ref = spec.get("chartRef")
    if isinstance(chart_ref, Mapping):
        return _oci_chart(walk, chart_ref, str(chart_ref.get("namespace") or doc.namespace))
    template = at(spec, "chart", "spec")
    if not isinstance(template, Mapping):
        return "no spec.chart.spec or spec.chartRef"
    ref = mapping(template.get("sourceRef"))
    chart = str(template.get("chart", ""))
    if walk.is_root(ref, doc):
        path = relative_path(chart)
        return (
            _Chart(ChartRef(path=path), None, doc)
            if path
            else "its chart path leaves the repository"
        )
    found = walk.source(
        str(ref.get("kind")), str(ref.get("name")), str(ref.get("namespace") or doc.namespace)
    )
    if found is None or not found.is_(SOURCE, "HelmRepository"):
        return f"sourceRef {ref.get('kind')} {ref.get('name')!r} not found"
    url = str(found.spec.get("url", "")).rstrip("/")
    if carries_credentials(url):
        return "its HelmRepository's url carries credentials"
    if found.spec.get("type", "default") not in ("default", "oci"):
        return f"its HelmRepository's type {found.spec['type']!r} is neither default nor oci"
    if found.spec.get("type") == "oci" and not url.startswith("oci://"):
        url = f"oci://{url}"
    # The HelmChart's version defaults to "*" (its CRD), the newest release.
    version = str(template.get("version") or "*")
    field = ("spec", "chart", "spec", "version")
    return _Chart(ChartRef(url, chart), version, doc, field, found)


def _oci_chart(walk: Walk, chart_ref: Mapping[str, Any], namespace: str) -> _Chart | str:
    """The chart of a ``chartRef`` to an OCIRepository and its version (``ref.semver``, else
    ``ref.tag``, a ``_`` read as ``+`` as source-controller's ``convertOCIToSemVerTag`` does for
    the Helm chart layer), or why it cannot be said."""
    found = walk.source(str(chart_ref.get("kind")), str(chart_ref.get("name")), namespace)
    if found is None or not found.is_(SOURCE, "OCIRepository"):
        return f"chartRef {chart_ref.get('kind')} {chart_ref.get('name')!r} not found"
    url, _, chart = str(found.spec.get("url", "")).rpartition("/")
    if carries_credentials(url):
        return "its OCIRepository's url carries credentials"
    ref = mapping(found.spec.get("ref"))
    if ref.get("semverFilter"):
        return "its OCIRepository filters the tags its semver range sees (semverFilter)"
    if ref.get("semver"):
        semver = str(ref["semver"])
        return _Chart(ChartRef(url, chart), semver, found, ("spec", "ref", "semver"), found)
    tag = str(ref.get("tag") or "")
    if not tag:
        return "its OCIRepository names no tag or semver range"
    plus = tag.replace("_", "+")
    version = plus if chartversions.strict(plus) is not None else tag
    return _Chart(ChartRef(url, chart), version, found, ("spec", "ref", "tag"), found)
