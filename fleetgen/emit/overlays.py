"""Kustomize overlays, engine-neutral: ``overlays/<app>/<env>/`` and ``.../clusters/<cluster>/``.

Both engines point at these directories, so Argo CD and Flux deploy the same rendered manifests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.emit.common import KUSTOMIZATION, kustomize_images, patch_entry
from fleetgen.errors import Problem, at
from fleetgen.inputs.landing import Landing, relative
from fleetgen.manifests.yamlio import configmap_literal, dump
from fleetgen.model import App, Fleet, Layer, Patch
from fleetgen.resolver.confighash import ANNOTATION as CONFIG_HASH
from fleetgen.resolver.overrides import layers_of
from fleetgen.resolver.plan import ClusterOverlay, EnvOverlay, ImageRef, Plan, SecretPlan
from fleetgen.util.calls import keyword_line
from fleetgen.write.output import OutputFile

SECRETS_FILE = "secrets.yaml"


def check(plan: Plan) -> list[Problem]:
    """Overlays express every Plan: nothing to report."""
    return []


def warnings(plan: Plan) -> list[Problem]:
    """A ConfigMap ``config=`` sets that no pod of the app reads, where it runs pods
    (`Plan.configmaps_read`): the overlay's generator makes it and nothing uses it; one per
    ConfigMap at each ``config=`` line that sets it. (What the fleet's and environments'
    common metadata does not reach, chart apps, is the fleet map's to say, once.)"""
    found = (
        _unread(app, layer, configmap, plan.fleet)
        for app in plan.fleet.apps
        if (read := plan.configmaps_read.get(app.name)) is not None
        for layer in layers_of(app)
        for configmap in sorted(set(layer.config) - read)
    )
    return list(dict.fromkeys(found))  # layers a comprehension writes share their line


def _unread(app: App, layer: Layer, configmap: str, fleet: Fleet) -> Problem:
    problem = at(
        layer,
        f"app {app.name!r}: config for ConfigMap {configmap!r}, which no pod of the app reads (no "
        "envFrom, env valueFrom configMapKeyRef, volume or projected volume names it), so "
        "kustomize creates it and nothing uses it: reference it in a pod template of the base, "
        "or remove it from config=",
        fleet,
    )
    line = keyword_line(problem.file, problem.line, type(layer).__name__, "config")
    return replace(problem, line=line)


def emit(plan: Plan) -> list[OutputFile]:
    """One kustomization per env overlay and per cluster overlay, plus their ExternalSecrets."""
    files: list[OutputFile] = []
    for env_overlay in plan.env_overlays:
        files.extend(_env_overlay(env_overlay, plan.landing))
    for cluster_overlay in plan.cluster_overlays:
        files.extend(_cluster_overlay(cluster_overlay, plan.landing))
    return files


def _env_overlay(overlay: EnvOverlay, landing: Landing) -> list[OutputFile]:
    settings = overlay.settings
    doc: dict[str, Any] = {
        **KUSTOMIZATION,
        **_namespace(overlay.namespace),
        **_name_prefix(settings.name_prefix),
        # From where the file lands (`build --out` included), so the overlay builds there.
        "resources": [] if overlay.base is None else [landing.to(overlay.base, overlay.path)],
    }
    _add(doc, settings.resources, settings.components, overlay.path, landing)
    doc.update(_metadata(settings.labels, settings.annotations))
    doc.update(_images(settings.images.values(), {}))
    doc.update(_replicas(settings.replicas))
    doc.update(_config(settings.config, overlay.base_configmaps))
    doc.update(_patches(settings.patches, overlay.config_hashes))
    return _with_secrets(
        overlay.path,
        doc,
        overlay.secrets,
        f"{overlay.app} in {overlay.env}: app, env and per_env layers",
    )


def _cluster_overlay(overlay: ClusterOverlay, landing: Landing) -> list[OutputFile]:
    env_overlay, layers = overlay.env_overlay, [layer for _, layer in overlay.layers]
    above, here = env_overlay.settings, overlay.settings  # what the env overlay added already
    doc: dict[str, Any] = {
        **KUSTOMIZATION,
        **_namespace(here.filled_namespace()),  # the env overlay's, or a per_label/per_cluster one
        # resolve refuses a prefix here that differs from the env overlay's (kustomize would
        # prepend it to that one): a prefix here is the first one
        **_name_prefix(here.name_prefix if here.name_prefix != above.name_prefix else None),
        "resources": [relative(env_overlay.path, overlay.path)],
    }
    _add(
        doc,
        here.resources[len(above.resources) :],
        here.components[len(above.components) :],
        overlay.path,
        landing,
    )
    doc.update(
        _metadata(
            _union(layer.common_labels for layer in layers),
            _union(layer.common_annotations for layer in layers),
        )
    )
    changed = sorted({image.name for layer in layers for image in layer.images})
    doc.update(
        _images([overlay.settings.images[name] for name in changed], env_overlay.settings.images)
    )
    doc.update(_replicas(_union(layer.replicas for layer in layers)))
    existing = (
        env_overlay.base_configmaps | set(env_overlay.settings.config) | overlay.added_configmaps
    )
    doc.update(_config(overlay.config, existing))
    doc.update(
        _patches([patch for layer in layers for patch in layer.patches], overlay.config_hashes)
    )
    return _with_secrets(overlay.path, doc, overlay.secrets, _cluster_comment(overlay))


def _cluster_comment(overlay: ClusterOverlay) -> str:
    """What a cluster overlay holds: its layers, and the config and namespace its cluster's
    vars fill in."""
    names = ", ".join(name for name, _ in overlay.layers)
    parts = [f"{names} layer{'s' if len(overlay.layers) > 1 else ''}"] if names else []
    filled = [
        what
        for what, found in (
            ("config", any(key.startswith("config/") for key in overlay.settings.resolved)),
            ("namespace", "namespace" in overlay.settings.resolved),
        )
        if found
    ]
    if filled:
        parts.append(f"{' and '.join(filled)} from the cluster's vars")
    return f"{overlay.app} on {overlay.cluster}: {', '.join(parts) or 'per_cluster layer'}"


def _add(
    doc: dict[str, Any],
    resources: Iterable[str],
    components: Iterable[str],
    start: str,
    landing: Landing,
) -> None:
    """The ``Overrides(resources=..., components=...)`` of an overlay's layers (repo paths), from
    where the overlay at ``start`` lands: resources after what it builds on, and its
    ``components``, which kustomize applies to them all before the overlay's own transformers
    (``KustTarget.AccumulateTarget``: resources, then components, then generators and
    transformers)."""
    doc["resources"] += [landing.to(path, start) for path in resources]
    if components:
        doc["components"] = [landing.to(path, start) for path in components]


def _union(mappings: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The mappings merged key by key, later ones winning (layer order)."""
    merged: dict[str, Any] = {}
    for mapping in mappings:
        merged.update(mapping)
    return merged


def _namespace(namespace: str | None) -> dict[str, str]:
    """The overlay's namespace rewrite; none for an app whose manifests say where things go."""
    return {"namespace": namespace} if namespace is not None else {}


def _name_prefix(prefix: str | None) -> dict[str, str]:
    """The overlay's kustomize namePrefix (``PrefixSuffixTransformer``), when it sets one: it
    renames every object of the overlay and the references to them kustomize knows
    (``nameReference``), while replicas, configMapGenerator merges and patch targets of this
    overlay and those built on it keep matching the base's names."""
    return {"namePrefix": prefix} if prefix is not None else {}


def _with_secrets(
    path: str, doc: dict[str, Any], secrets: tuple[SecretPlan, ...], comment: str
) -> list[OutputFile]:
    files = []
    if secrets:
        doc["resources"].append(SECRETS_FILE)
        files.append(
            OutputFile(f"{path}/{SECRETS_FILE}", tuple(_external_secret(s) for s in secrets))
        )
    files.append(OutputFile(f"{path}/kustomization.yaml", (doc,), comment=comment))
    return files


def _metadata(labels: Mapping[str, str], annotations: Mapping[str, str]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if labels:
        doc["labels"] = [
            {
                "pairs": dict(sorted(labels.items())),
                "includeSelectors": False,
                "includeTemplates": True,
            }
        ]
    if annotations:
        doc["commonAnnotations"] = dict(sorted(annotations.items()))
    return doc


def _images(images: Iterable[ImageRef], before: Mapping[str, ImageRef]) -> dict[str, Any]:
    entries = kustomize_images(images, before)
    return {"images": entries} if entries else {}


def _replicas(replicas: Mapping[str, int]) -> dict[str, Any]:
    entries = [{"name": name, "count": count} for name, count in sorted(replicas.items())]
    return {"replicas": entries} if entries else {}


def _config(config: Mapping[str, Mapping[str, str]], existing: Iterable[str]) -> dict[str, Any]:
    existing = set(existing)
    entries = [
        {
            "name": name,
            "behavior": "merge" if name in existing else "create",
            "literals": [configmap_literal(key, value) for key, value in sorted(values.items())],
        }
        for name, values in sorted(config.items())
        if values
    ]
    return {"configMapGenerator": entries} if entries else {}


def _patches(
    patches: Iterable[Patch], config_hashes: Mapping[tuple[str, str], str]
) -> dict[str, Any]:
    """The layers' patches, then one per workload whose config hash this overlay sets (last, so
    that no layer's patch of the pod template's annotations drops it)."""
    entries = [patch_entry(patch) for patch in patches]
    entries += [
        _config_hash_patch(kind, name, value)
        for (kind, name), value in sorted(config_hashes.items())
    ]
    return {"patches": entries} if entries else {}


def _config_hash_patch(kind: str, name: str, value: str) -> dict[str, Any]:
    """A strategic-merge patch that puts ``value`` on the workload's pod template, so a change of
    the config it reads rolls its pods (``fleetgen.resolver.confighash``)."""
    body = {
        "kind": kind,
        "metadata": {"name": name},
        "spec": {"template": {"metadata": {"annotations": {CONFIG_HASH: value}}}},
    }
    return {"target": {"kind": kind, "name": name}, "patch": dump(body)}


def _external_secret(plan: SecretPlan) -> dict[str, Any]:
    secret = plan.secret
    data = []
    for key, (remote, prop) in sorted(plan.data.items()):
        ref = {"key": remote} | ({"property": prop} if prop else {})
        data.append({"secretKey": key, "remoteRef": ref})
    return {
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": {"name": secret.name},
        "spec": {
            "refreshInterval": secret.refresh_interval,
            "secretStoreRef": {"name": secret.store, "kind": secret.store_kind},
            # An explicit template.metadata keeps the ExternalSecret's own (Argo CD tracking)
            # labels off the Secret; with no template.data every fetched key passes through.
            "target": {
                "name": secret.name,
                "creationPolicy": "Owner",
                "deletionPolicy": "Retain",
                "template": {"engineVersion": "v2", "mergePolicy": "Replace", "metadata": {}},
            },
            "data": data,
        },
    }
