"""The Plan: every placement (app × cluster) with its effective, layered settings.

``resolve`` builds it; emitters only translate it. Layers apply in the order fleet, env, app,
per_env, per_cluster (the names recorded in ``Settings.provenance``); a deeper
layer wins key by key, and a field it does not set keeps the shallower value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fleetgen.model import (
    AppSecret,
    Credentials,
    Engine,
    Fleet,
    Image,
    Layer,
    Patch,
    SyncPolicy,
)


@dataclass(frozen=True, slots=True)
class ImageRef:
    """The effective image override for one image name of the base."""

    name: str
    new_name: str | None = None
    tag: str | None = None
    digest: str | None = None

    @property
    def current_name(self) -> str:
        """The image name as it appears after this override is applied."""
        return self.new_name or self.name

    def deepen(self, image: Image) -> ImageRef:
        """A deeper layer's Image on top: new_name kept unless set; tag and digest go together."""
        pinned = image.tag is not None or image.digest is not None
        return ImageRef(
            name=self.name,
            new_name=image.new_name or self.new_name,
            tag=image.tag if pinned else self.tag,
            digest=image.digest if pinned else self.digest,
        )


@dataclass(frozen=True, slots=True)
class Settings:
    """Effective settings after layering; ``provenance`` maps each value to the layer that set it.

    Provenance keys: ``image/<name>/name`` (new_name), ``image/<name>/version`` (tag and digest,
    set as a unit), ``replicas/<workload>``, ``config/<configmap>/<key>``,
    ``label/<key>``, ``annotation/<key>``, ``sync/<field>``, ``patch/<index>``.
    """

    images: Mapping[str, ImageRef] = field(default_factory=dict)
    replicas: Mapping[str, int] = field(default_factory=dict)
    config: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    patches: tuple[Patch, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    sync: SyncPolicy = field(default_factory=SyncPolicy)
    provenance: Mapping[str, str] = field(default_factory=dict)

    def apply(self, layer_name: str, layer: Layer | None) -> Settings:
        """These settings with ``layer`` applied on top."""
        if layer is None:
            return self
        provenance = dict(self.provenance)
        images, replicas, config = dict(self.images), dict(self.replicas), _copy_config(self.config)
        patches, labels, annotations = list(self.patches), dict(self.labels), dict(self.annotations)
        for image in layer.images:
            images[image.name] = images.get(image.name, ImageRef(image.name)).deepen(image)
            if image.new_name is not None:
                provenance[f"image/{image.name}/name"] = layer_name
            if image.tag is not None or image.digest is not None:
                provenance[f"image/{image.name}/version"] = layer_name
        _merge(replicas, layer.replicas, "replicas", layer_name, provenance)
        for configmap, values in layer.config.items():
            _merge(config.setdefault(configmap, {}), values, f"config/{configmap}", layer_name,
                   provenance)
        for patch in layer.patches:
            provenance[f"patch/{len(patches)}"] = layer_name
            patches.append(patch)
        _merge(labels, layer.common_labels, "label", layer_name, provenance)
        _merge(annotations, layer.common_annotations, "annotation", layer_name, provenance)
        return Settings(
            images=images, replicas=replicas, config=config, patches=tuple(patches),
            labels=labels, annotations=annotations,
            sync=merge_sync(self.sync, layer.sync, layer_name, provenance), provenance=provenance,
        )


def _copy_config(config: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    return {name: dict(values) for name, values in config.items()}


def _merge(target: dict[str, Any], values: Mapping[str, Any], prefix: str, layer_name: str,
           provenance: dict[str, str]) -> None:
    for key, value in values.items():
        target[key] = value
        provenance[f"{prefix}/{key}"] = layer_name


def merge_sync(base: SyncPolicy, deeper: SyncPolicy | None, layer_name: str,
               provenance: dict[str, str]) -> SyncPolicy:
    """``base`` with the fields ``deeper`` explicitly sets."""
    if deeper is None or not deeper.model_fields_set:
        return base
    changes = {name: getattr(deeper, name) for name in deeper.model_fields_set}
    for name in changes:
        provenance[f"sync/{name}"] = layer_name
    return base.model_copy(update=changes)


@dataclass(frozen=True, slots=True)
class SecretPlan:
    """An AppSecret with its remote keys' ``{cluster}``/``{env}`` placeholders filled."""

    secret: AppSecret
    data: Mapping[str, tuple[str, str | None]]  # secret key -> (remote key, property)


@dataclass(frozen=True, slots=True)
class EnvOverlay:
    """``overlays/<app>/<env>/``: the base with the fleet, env, app and per_env layers."""

    app: str
    env: str
    path: str
    base: str  # repo-relative path of the user's base
    namespace: str
    settings: Settings
    base_configmaps: frozenset[str]
    secrets: tuple[SecretPlan, ...] = ()
    # (kind, name) -> hash of the fleetgen-set config its pod template reads (``confighash``)
    config_hashes: Mapping[tuple[str, str], str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ClusterOverlay:
    """``overlays/<app>/clusters/<cluster>/``: the env overlay plus the per_cluster layer."""

    app: str
    cluster: str
    env_overlay: EnvOverlay
    path: str
    layer: Layer | None
    settings: Settings  # fully effective, per_cluster included
    secrets: tuple[SecretPlan, ...] = ()
    config_hashes: Mapping[tuple[str, str], str] = field(default_factory=dict)  # only changed ones


@dataclass(frozen=True, slots=True)
class Placement:
    """One app on one cluster."""

    app: str
    cluster: str
    env: str
    overlay: str  # output-relative overlay path the engines point at
    settings: Settings
    engine: Engine  # the one engine that reconciles it
    wave: int | None = None  # 1-based rollout step, None without a rollout


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything emitters need; built by ``resolve``."""

    fleet: Fleet
    placements: Sequence[Placement]
    env_overlays: Sequence[EnvOverlay]
    cluster_overlays: Sequence[ClusterOverlay]
    waves: Mapping[str, tuple[tuple[str, ...], ...]]  # env -> steps -> cluster names
    credentials: Mapping[str, Credentials | None]  # cluster -> filled-in credentials

    def on(self, engine: Engine) -> Plan:
        """This Plan with only the placements ``engine`` reconciles (what its emitter gets)."""
        return replace(self, placements=tuple(p for p in self.placements if p.engine == engine))
