"""An app's interface: what of it the whole compile reads beyond the app's own files.

Most edits of an app change only its own files: an image tag, replicas, config values, a patch,
chart values or a chart version, labels or annotations its layers put on its objects, the labels
of its generated objects (`LOCAL`). Everything of the compile that spans apps — the
checks across apps and engines, the warnings, the files made of the whole Plan (registrations,
AppProjects, Namespaces, tenants, the bootstrap), the placements ``diff`` reads — is computed
from the Plan with those fields taken out (`project`), and kept in the cache under the hash of
the apps' interfaces (`fleetgen.wholecache`): a build after such an edit resolves and emits
that app alone and reads the rest back, as a compiler keyed on a module's interface rebuilds
its dependents only when the interface changes.

Taken out means poisoned, not emptied: a field of `LOCAL` in the projected Plan raises
`LocalRead` on any use, so an emitter that starts reading one fails every build, instead of
silently sharing a result across edits that change it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NoReturn

from fleetgen.buildcache import canonical
from fleetgen.model import App
from fleetgen.plan import ChartSource, ClusterOverlay, EnvOverlay, Placement, Plan, Settings

# Fields of a Layer that only its app's own files show (kustomize overlays, Argo CD
# ApplicationSets, Flux objects, its rows of the fleet map); an App (a Layer) adds the labels of
# its generated objects, an Overrides the chart version it pins, a chart its version.
_LAYER = (
    "images",
    "replicas",
    "config",
    "patches",
    "values",
    "common_labels",
    "common_annotations",
)
LOCAL = (*_LAYER, "labels")
LOCAL_LAYER = (*_LAYER, "chart_version")
LOCAL_CHART = ("version",)
LAYERS = ("per_env", "per_label", "per_cluster")
# Provenance keys of the local settings (`Settings`): the others (labels, sync) stay.
LOCAL_PROVENANCE = (
    "image/",
    "replicas/",
    "config/",
    "patch/",
    "values/",
    "chart/",
    "label/",
    "annotation/",
)
LOCAL_SETTINGS = (
    "images",
    "replicas",
    "config",
    "patches",
    "values",
    "chart_version",
    "labels",
    "annotations",
)  # of the effective `Settings`


class LocalRead(AssertionError):
    """Code computing the whole compile read a field of an app's own files (`LOCAL`)."""


class _Local:
    """Stands for a local field in the projected Plan: any use raises `LocalRead`."""

    __slots__ = ("_what",)

    def __init__(self, what: str) -> None:
        object.__setattr__(self, "_what", what)

    def _refuse(self, *_: Any, **__: Any) -> NoReturn:
        raise LocalRead(
            f"{object.__getattribute__(self, '_what')} is local to the app's own "
            "files: the whole compile must not read it (fleetgen.interface)"
        )

    def __getattr__(self, _: str) -> NoReturn:
        self._refuse()

    def __iter__(self) -> Iterator[Any]:
        self._refuse()

    __bool__ = __len__ = __contains__ = __getitem__ = __eq__ = __hash__ = __lt__ = _refuse
    __str__ = __format__ = __add__ = __radd__ = __or__ = __ror__ = _refuse


def _local(what: str) -> Any:
    """A poisoned value standing for ``what``."""
    return _Local(what)


def _poisoned(model: Any, fields: tuple[str, ...], where: str, **update: Any) -> Any:
    return model.model_copy(
        update={**{name: _local(f"{where}.{name}") for name in fields}, **update}
    )


def project_app(app: App) -> App:
    """``app`` with its `LOCAL` fields, its layers' and its chart's version poisoned."""
    projected: App = _local_parts(app, _poisoned)
    return projected


def interface_form(app: App) -> Any:
    """What an app's interface key hashes: ``app`` as `buildcache.canonical` writes a model, but
    its `LOCAL` fields, its layers' and its chart's version left out."""
    return _local_parts(app, _form)


def _local_parts(app: App, change: Callable[..., Any]) -> Any:
    """``change(model, local fields, where, **parts)`` of ``app``: of its layers and its chart
    first, which it then takes as those parts (`_poisoned`, `_form`)."""
    layers = {
        kind: {
            key: change(layer, LOCAL_LAYER, f"App.{kind}[{key!r}]")
            for key, layer in getattr(app, kind).items()
        }
        for kind in LAYERS
    }
    chart = None if app.chart is None else change(app.chart, LOCAL_CHART, "HelmChart")
    return change(app, LOCAL, "App", chart=chart, **layers)


def _form(model: Any, left_out: tuple[str, ...], _: str, **forms: Any) -> Any:
    """``model``'s class, each field but those ``left_out`` (``forms`` gives some written
    already), the fields it was given explicitly and its private attributes (its line in
    ``fleet.py``)."""
    return (
        type(model).__qualname__,
        [
            (name, forms[name] if name in forms else canonical(getattr(model, name)))
            for name in type(model).model_fields
            if name not in left_out
        ],
        sorted(model.model_fields_set.difference(left_out)),
        canonical(model.__pydantic_private__ or {}),
    )


def _settings(settings: Settings) -> Settings:
    return dataclasses.replace(
        settings,
        **{name: _local(f"Settings.{name}") for name in LOCAL_SETTINGS},
        provenance={
            key: layer
            for key, layer in settings.provenance.items()
            if not key.startswith(LOCAL_PROVENANCE)
        },
    )


class _Projector:
    """Projects the records of one Plan, each shared object once (placements on one overlay
    share its Settings)."""

    def __init__(self) -> None:
        self._settings: dict[int, Settings] = {}
        self._env_overlays: dict[int, EnvOverlay] = {}

    def settings(self, settings: Settings) -> Settings:
        found = self._settings.get(id(settings))
        if found is None:
            found = self._settings[id(settings)] = _settings(settings)
        return found

    def env_overlay(self, overlay: EnvOverlay) -> EnvOverlay:
        found = self._env_overlays.get(id(overlay))
        if found is None:
            found = self._env_overlays[id(overlay)] = dataclasses.replace(
                overlay,
                settings=self.settings(overlay.settings),
                base_configmaps=_local("EnvOverlay.base_configmaps"),
                config_hashes=_local("EnvOverlay.config_hashes"),
            )
        return found

    def cluster_overlay(self, overlay: ClusterOverlay) -> ClusterOverlay:
        return dataclasses.replace(
            overlay,
            env_overlay=self.env_overlay(overlay.env_overlay),
            layers=tuple(
                (name, _poisoned(layer, LOCAL_LAYER, f"layer {name}"))
                for name, layer in overlay.layers
            ),
            settings=self.settings(overlay.settings),
            config_hashes=_local("ClusterOverlay.config_hashes"),
        )

    def placements(self, placements: Iterable[Placement]) -> tuple[Placement, ...]:
        """Each of ``placements`` with its settings and chart projected (the hottest loop here:
        100,000 placements in a large fleet, most sharing their overlay's settings)."""
        memo, settings, chart = self._settings, self.settings, self.chart
        return tuple(
            Placement(
                p.app,
                p.cluster,
                p.env,
                p.overlay,
                memo.get(id(p.settings)) or settings(p.settings),
                p.engine,
                p.wave,
                p.chart and chart(p.chart),
                p.remote,
            )
            for p in placements
        )

    def chart(self, chart: ChartSource) -> ChartSource:
        return dataclasses.replace(chart, version=_local("ChartSource.version"))


def project(plan: Plan) -> Plan:
    """``plan`` as the whole compile may read it: every app's `LOCAL` data poisoned."""
    projector = _Projector()
    fleet = plan.fleet.model_copy(update={"apps": [project_app(app) for app in plan.fleet.apps]})
    return dataclasses.replace(
        plan,
        fleet=fleet,
        placements=projector.placements(plan.placements),
        env_overlays=tuple(projector.env_overlay(o) for o in plan.env_overlays),
        cluster_overlays=tuple(projector.cluster_overlay(o) for o in plan.cluster_overlays),
    )
