"""An Argo CD Application's source as an app's: a chart of a repository (at its version, exact or a
range: `fleetgen.importer.sources.chart_version`), a folder of this
repository (a chart kept here, a kustomize or plain folder, with the options mapped) or a folder
of another Git repository. A chart's value files are `valuefiles`'."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fleetgen.importer.argocd.common import LocalRead, Path, Reader
from fleetgen.importer.argocd.thisrepo import read_here
from fleetgen.importer.argocd.valuefiles import VALUE_FILES_KEYS
from fleetgen.importer.draft import ChartRef, Instance
from fleetgen.importer.findings import BY_HAND
from fleetgen.importer.repo import Doc, Unreadable, mapping, namespaces_of, relative_path, strings
from fleetgen.importer.sources import carries_credentials, chart_version
from fleetgen.manifests.k8s import image_name
from fleetgen.manifests.yamlio import load_all
from fleetgen.util.templating import Call


def set_source(
    reader: Reader, origin: Doc, instance: Instance, source: Mapping[str, Any], where: Path
) -> bool:
    """The instance's source (written at ``where``): a chart, a folder of this repository
    (kustomize, plain or a chart) or another Git repository; False (a finding) when it cannot
    be one."""
    url = str(source.get("repoURL", ""))
    if carries_credentials(url):
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: its source URL carries credentials",
                "not copied, nor the app: give the engines the credentials, not the URL, "
                "and add the app by hand",
            )
        )
        return False
    path = relative_path(str(source.get("path") or "."))
    if source.get("chart"):
        return _chart(reader, origin, instance, source)
    if path is not None and (reader.repo.root / path).is_dir():
        revision = str(source.get("targetRevision") or "")
        who = f"{instance.name}: its source"
        read_here(reader, LocalRead(origin, who, where, url, revision))
        _local(reader, origin, instance, source, path)
    elif url.startswith("https://"):
        instance.source, instance.path = _git(url, source.get("targetRevision")), path
        instance.namespace = None
    else:
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: source {url!r} not mapped",
                "add it by hand (fleetgen reads other sources over https://)",
            )
        )
        return False
    return True


def _chart(reader: Reader, origin: Doc, instance: Instance, source: Mapping[str, Any]) -> bool:
    """A chart of a repository (an OCI one when its URL has no scheme) at its
    ``targetRevision`` as Argo CD reads it (`chart_version`); False (a finding) when the spec
    cannot write that."""
    version = chart_version(str(source.get("targetRevision") or ""), "argocd")
    if version.what:
        top = ("spec", "template", "spec") if origin.kind == "ApplicationSet" else ("spec",)
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: {version.what}", version.todo, (*top, "source", "targetRevision")
            )
        )
    if version.written is None:
        return False
    url = str(source.get("repoURL", ""))
    helm = mapping(source.get("helm"))
    repo = url if "://" in url else f"oci://{url}"
    release = _release(helm, instance.name)
    instance.chart = ChartRef(repo.rstrip("/"), str(source["chart"]), release_name=release)
    instance.chart_version = version.written
    _values(reader, origin, instance, helm)
    _release_namespace(reader, origin, instance)
    return True


def _release_namespace(reader: Reader, origin: Doc, instance: Instance) -> None:
    """A chart without a destination namespace: Argo CD runs ``helm template`` without
    ``--namespace`` (util/helm ``Cmd.template``), so the release and what the chart leaves
    unplaced go to Helm's ``default`` — which fleetgen writes, with a finding."""
    if instance.namespace is not None:
        return
    instance.namespace = "default"
    instance.uses.add("default")
    reader.draft.findings.append(
        origin.finding(
            f"{instance.name}: a chart without a destination namespace, which Helm renders in "
            "'default'",
            "namespace='default' is written: give the app the namespace it belongs in",
        )
    )


def _local(
    reader: Reader, origin: Doc, instance: Instance, source: Mapping[str, Any], path: str
) -> None:
    """A folder of this repository: a chart kept here, else a kustomize or plain folder."""
    helm = mapping(source.get("helm"))
    if (reader.repo.root / path / "Chart.yaml").is_file():
        instance.chart = ChartRef(path=path, release_name=_release(helm, instance.name))
        _values(reader, origin, instance, helm)
        _release_namespace(reader, origin, instance)
    else:
        instance.path = path
        if instance.namespace is None:  # the folder's objects say where they go
            instance.uses |= _namespaces(reader, path)
        _kustomize(reader, origin, instance, source)


def _namespaces(reader: Reader, path: str) -> set[str]:
    """The namespaces a folder's objects are put in and the Namespaces it holds (none known
    when kustomize cannot build it: the faithfulness check says so)."""
    try:
        return namespaces_of(reader.repo.deployed(path))
    except Unreadable:
        return set()


def _kustomize(reader: Reader, origin: Doc, instance: Instance, source: Mapping[str, Any]) -> None:
    """A folder's kustomize options (images mapped, the rest findings); a plain folder
    read without ``recurse`` while it has folders with manifests (fleetgen reads them)."""
    findings = reader.draft.findings
    kustomize = mapping(source.get("kustomize"))
    images = [_image(image) for image in strings(kustomize.get("images"))]
    if images:
        instance.app_fields = (("images", images),)
    for key in sorted(set(kustomize) - {"images"}):
        findings.append(
            origin.finding(
                f"{instance.name}: source.kustomize.{key} not mapped",
                "put it in the folder's kustomization.yaml",
            )
        )
    directory = mapping(source.get("directory"))
    path = str(instance.path)
    prefix = "" if path == "." else f"{path}/"
    nested = [d for d in reader.repo.under(path) if "/" in d.file[len(prefix) :]]
    if not reader.repo.has_kustomization(path) and nested and not directory.get("recurse"):
        findings.append(
            origin.finding(
                f"{instance.name}: a plain folder read without directory.recurse",
                f"fleetgen reads its subfolders too ({nested[0].file}): move them out, or "
                "check they belong to the app",
            )
        )
    for key in sorted(set(directory) - {"recurse"}):
        findings.append(
            origin.finding(
                f"{instance.name}: source.directory.{key} not mapped",
                "fleetgen reads every manifest of a plain folder: move the others out",
            )
        )


def _values(reader: Reader, origin: Doc, instance: Instance, helm: Mapping[str, Any]) -> None:
    """A chart's values: ``valuesObject``, else the ``values`` text (its value files are
    `valuefiles`')."""
    values = helm.get("valuesObject")
    if values is None and isinstance(helm.get("values"), str):
        docs = load_all(helm["values"])
        values = docs[0] if docs else {}
    instance.values = dict(mapping(values))
    for key in sorted(set(helm) - {"valuesObject", "values", *VALUE_FILES_KEYS, "releaseName"}):
        reader.draft.findings.append(
            origin.finding(
                f"{instance.name}: helm.{key} not mapped",
                "write them into values=" if "arameters" in key else BY_HAND,
            )
        )


def _git(url: str, revision: Any) -> Call:
    """``GitSource(...)`` of a repository at ``targetRevision``: a tag or commit pinned, any
    other name a branch."""
    fields: dict[str, Any] = {"url": url}
    text = str(revision or "")
    if re.fullmatch(r"[0-9a-f]{40}|v?\d+(\.\d+)+\S*", text):
        fields["revision"] = text
    elif text not in ("", "HEAD", "main"):
        fields["branch"] = text
    return Call("GitSource", fields)


def _release(helm: Mapping[str, Any], app: str) -> str | None:
    """The release name when it is not the app's name (fleetgen's default)."""
    name = helm.get("releaseName")
    return str(name) if name and name != app else None


def _image(text: str) -> Call:
    """``Image(...)`` of an Argo CD kustomize image override: ``name=new[:tag][@digest]`` or
    ``name[:tag][@digest]``."""
    name, _, new = text.partition("=")
    target = new or name
    fields = {"name": image_name(name)}
    if new and image_name(target) != fields["name"]:
        fields["new_name"] = image_name(target)
    rest = target[len(image_name(target)) :]
    tag, _, digest = rest.removeprefix(":").partition("@")
    fields |= {key: value for key, value in (("tag", tag), ("digest", digest)) if value}
    return Call("Image", fields)
