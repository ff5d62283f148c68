"""Flux Kustomizations as apps: of a folder of this repository (used as it is, with the patches
and images the Kustomization adds) or of a folder of another source (a GitRepository or
OCIRepository), with the Kustomization's sync settings and dependencies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import Finding, unmapped
from fleetgen.importer.flux.common import Walk, dependencies, key
from fleetgen.importer.flux.sources import app_source_findings
from fleetgen.importer.flux.substitute import per_cluster
from fleetgen.importer.repo import Doc, mappings, namespaces_of
from fleetgen.importer.sources import git_source, oci_source
from fleetgen.manifests.yamlio import load_all
from fleetgen.model.fields import to_dns_label
from fleetgen.resolver.timing import seconds
from fleetgen.util.templating import Call

# The fields import maps (at the top of a spec, and below: their parts it reads).
_KUSTOMIZATION_MAPPED = {
    "sourceRef": (),
    "path": (),
    "interval": (),
    "timeout": (),
    "retryInterval": (),
    "prune": (),
    "wait": (),
    "suspend": (),
    "dependsOn": (),
    "targetNamespace": (),
    "patches": (),
    "images": (),
    "serviceAccountName": (),
    "kubeConfig": (),  # a hub's spoke: `hub.cluster_of`
    "postBuild": ("substitute",),  # of this repository's folders: `substitute`
}
# The sync settings of flux bootstrap's Kustomization (a timeout and retry default to the interval).
_BOOTSTRAP_SYNC: dict[str, Any] = {
    "interval": "10m",
    "timeout": "10m",
    "retryInterval": "10m",
    "prune": True,
    "wait": False,
    "suspend": False,
}
# Kustomization fields with no fleetgen equivalent: what the finding says to do.
_UNMAPPED = {
    "postBuild": "fleetgen has no variable substitution (import substitutes the values "
    "postBuild.substitute writes into this repository's folders): write the values into the "
    "manifests, or per cluster as a layer's config= / patches=",
    "components": "list them in the folder's kustomization.yaml, or a layer's components=",
    "healthChecks": "fleetgen's Kustomizations wait for what they apply (SyncPolicy(wait=True))",
    "decryption": "fleetgen does not decrypt SOPS: keep the secrets in a store and use "
    "App(secrets=[AppSecret(...)])",
    "commonMetadata": "set common_labels= / common_annotations= on the app",
    "namePrefix": "set Overrides(name_prefix=...) on the app",
    "nameSuffix": "rename in the folder's kustomization.yaml",
}


def unmapped_fields(doc: Doc, remote: bool = False) -> list[Finding]:
    """A finding for each field of a Kustomization that fleetgen does not have (``remote``:
    of another source's manifests, which import does not substitute)."""
    mapped = dict(_KUSTOMIZATION_MAPPED)
    if remote:
        del mapped["postBuild"]
    return unmapped(doc, mapped, _UNMAPPED)


def followed_findings(doc: Doc) -> list[Finding]:
    """The findings of a Kustomization import follows into the Flux objects it applies: its
    fields fleetgen does not have (`unmapped_fields`), and its sync settings where they differ
    from those of flux bootstrap's Kustomization, which applies those objects in fleetgen's
    output (flux2 pkg/manifestgen/sync ``Generate``: every 10m, pruning, not waiting)."""
    differ = [key for key, kept in _BOOTSTRAP_SYNC.items() if not _same(doc.spec, key, kept)]
    if not differ:
        return unmapped_fields(doc)
    named = ", ".join(f"spec.{key}" for key in differ)
    return [
        *unmapped_fields(doc),
        doc.finding(
            f"Kustomization {doc.name!r} (followed into the Flux objects it applies): its "
            f"{named} not kept",
            "fleetgen applies what it holds with flux bootstrap's Kustomization (10m, prune, no "
            "wait), and its apps with their own settings and depends_on: set those by hand if "
            "this timing matters",
            ("spec", differ[0]),
        ),
    ]


def _same(spec: Mapping[str, Any], key: str, kept: Any) -> bool:
    """Whether ``spec`` says nothing of ``key`` or what ``kept`` says (durations as spans)."""
    if key not in spec:
        return True
    value = spec[key]
    if isinstance(kept, str):
        return seconds(str(value)) == seconds(kept)
    return value is kept


def local_app(
    walk: Walk, doc: Doc, path: str, built: list[Doc], deployed: list[Doc], cluster: str
) -> Instance:
    """An app on ``cluster`` of a folder of this repository, whose objects are ``built`` by
    kustomize and ``deployed`` substituted."""
    instance = _app(walk, doc, cluster, unmapped_fields(doc))
    target = doc.spec.get("targetNamespace")
    instance.path, instance.packed = path, walk.packed.get(key(doc))
    instance.namespace = str(target) if target else None
    instance.uses = {str(target)} if target else namespaces_of(deployed)
    instance.app_fields = tuple(_overlay_fields(walk, doc, path))
    if any(before.obj != after.obj for before, after in zip(built, deployed, strict=True)):
        per_cluster(walk, doc, instance, built, deployed)
    return instance


def source_app(
    walk: Walk, doc: Doc, path: str, ref: Mapping[str, Any], cluster: str
) -> Instance | None:
    """An app on ``cluster`` of a folder of another source, None when the source cannot be
    one."""
    source = _source(walk, doc, ref)
    if source is None:
        return None
    instance = _app(walk, doc, cluster, unmapped_fields(doc, remote=True))
    instance.source, instance.path = source, path
    if doc.spec.get("targetNamespace"):
        walk.draft.findings.append(
            doc.finding(
                f"Kustomization {doc.name!r}: targetNamespace of another source's manifests",
                "fleetgen does not rewrite another source's namespaces: set them in its manifests",
                ("spec", "targetNamespace"),
            )
        )
    return instance


def added_fields(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The kustomization fields a Kustomization adds to its folder (kustomize-controller puts
    ``targetNamespace``, ``patches`` and ``images`` into its kustomization.yaml)."""
    added = {"namespace": spec.get("targetNamespace")}
    added |= {key: spec.get(key) for key in ("patches", "images")}
    return {key: value for key, value in added.items() if value}


def ks_sync(spec: Mapping[str, Any]) -> dict[str, Any]:
    """SyncPolicy fields of a Kustomization's spec (Flux's defaults where it says nothing:
    no prune, no wait)."""
    sync: dict[str, Any] = {"automated": not spec.get("suspend", False)}
    sync["prune"] = bool(spec.get("prune", False))
    sync["wait"] = bool(spec.get("wait", False))
    for field, name in (
        ("interval", "interval"),
        ("timeout", "timeout"),
        ("retryInterval", "retry_interval"),
    ):
        if spec.get(field):
            sync[name] = str(spec[field])
    return sync


def _app(walk: Walk, doc: Doc, cluster: str, findings: list[Finding]) -> Instance:
    """The instance of a Kustomization on ``cluster``: its name, sync settings and
    dependencies; ``findings`` for the fields it has that fleetgen does not."""
    walk.draft.findings += findings
    instance = Instance(to_dns_label(doc.name, "app"), cluster, doc, sync=ks_sync(doc.spec))
    instance.depends_on = dependencies(doc)
    return instance


def _overlay_fields(walk: Walk, doc: Doc, path: str) -> list[tuple[str, Any]]:
    """``patches=`` and ``images=`` of a Kustomization (on a plain folder: findings)."""
    spec = doc.spec
    wanted = [key for key in ("patches", "images") if spec.get(key)]
    if not wanted:
        return []
    if not walk.repo.has_kustomization(path):
        for key in wanted:
            walk.draft.findings.append(
                doc.finding(
                    f"Kustomization {doc.name!r}: spec.{key} on a plain folder",
                    "fleetgen applies a plain folder as it is: add a kustomization.yaml "
                    f"to {path} and rerun import, or move the {key} into the manifests",
                    ("spec", key),
                )
            )
        return []
    fields: list[tuple[str, Any]] = []
    found = spec.get("patches")
    listed: list[Any] = found if isinstance(found, list) else []
    patches = [p for p in (_patch(item) for item in listed) if p]
    if patches:
        fields.append(("patches", patches))
    if len(patches) != len(listed):
        walk.draft.findings.append(
            doc.finding(
                f"Kustomization {doc.name!r}: a patch without a target kind",
                "add it to the folder's kustomization.yaml",
                ("spec", "patches"),
            )
        )
    images = [_image(item) for item in mappings(spec.get("images"))]
    if images:
        fields.append(("images", images))
    return fields


def _source(walk: Walk, doc: Doc, ref: Mapping[str, Any]) -> Call | None:
    """``GitSource``/``OciSource`` of a Kustomization's source, None (a finding) if none."""
    kind, name = str(ref.get("kind", "")), str(ref.get("name", ""))
    found = walk.source(kind, name, str(ref.get("namespace") or doc.namespace))
    mapped = {"GitRepository": git_source, "OCIRepository": oci_source}.get(kind)
    made = mapped(found) if found and mapped else None
    if found is None or made is None or isinstance(made, str):
        why = made if isinstance(made, str) else f"{kind} {name!r} not found in the repository"
        walk.draft.findings.append(
            doc.finding(
                f"Kustomization {doc.name!r}: source not mapped ({why})",
                "add the app by hand with App(source=GitSource(...) | OciSource(...))",
                ("spec", "sourceRef"),
            )
        )
        return None
    walk.draft.findings += app_source_findings(found)
    return made


def _patch(item: Any) -> Call | None:
    """``Patch(target=..., patch=...)`` of a Kustomization's patch, None without a target kind."""
    if not isinstance(item, Mapping) or not isinstance(item.get("target"), Mapping):
        return None
    target = {str(k): str(v) for k, v in item["target"].items()}
    if "kind" not in target:
        return None
    body = load_all(str(item.get("patch", "")))
    patch = body[0] if body else {}
    return Call("Patch", {"target": target, "patch": patch})


def _image(item: Mapping[str, Any]) -> Call:
    """``Image(...)`` of a Kustomization's ``images`` entry."""
    keys = (("name", "name"), ("newName", "new_name"), ("newTag", "tag"), ("digest", "digest"))
    return Call("Image", {name: str(item[key]) for key, name in keys if item.get(key)})
