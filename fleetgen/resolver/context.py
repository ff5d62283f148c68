"""The state of one resolve (`_Context`: the fleet, its indexes by name, the settings an
environment's apps share, the problems found so far) and the small checks every part reports
through."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from fleetgen.errors import Problem, at
from fleetgen.inputs.bases import Base
from fleetgen.inputs.workspace import Workspace
from fleetgen.model import App, Engine, Environment, Fleet, Layer, Spec, SyncPolicy
from fleetgen.model.apps import layer_inputs, overrides_of
from fleetgen.model.fields import repo_path
from fleetgen.resolver.layering import layered
from fleetgen.resolver.plan import Settings
from fleetgen.write.output import LABEL_PREFIX

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
PLACEHOLDERS = ("cluster", "env")  # what remote keys of credentials and AppSecrets may use
Engines = dict[str, dict[str, Engine]]  # app -> cluster -> the engine of that placement
NO_BASE = Base(path="")  # the base of an app whose layers add all it deploys (`App.layered_only`)


class _Context:
    """The fleet, indexes by name, the settings every app of an environment starts from, and the
    problems found so far."""

    def __init__(self, fleet: Fleet, workspace: Workspace) -> None:
        self.fleet = fleet
        self.workspace = workspace
        self.problems: list[Problem] = []
        self.envs = {env.name: env for env in fleet.environments}
        self.clusters = {
            cluster.name: cluster for cluster in sorted(fleet.clusters, key=lambda c: c.name)
        }
        self.projects = {project.name: project for project in fleet.projects}
        self.apps = {app.name: app for app in sorted(fleet.apps, key=lambda a: a.name)}
        # the clusters an app may be placed on, in name order
        self.placeable = [c for c in self.clusters.values() if c.env in self.envs]
        self._shared: dict[tuple[str, bool], Settings] = {}
        self.scanned: set[int] = set()  # id() of each spec object the secret scan reported

    def shared_settings(self, env: Environment, chart: bool) -> Settings:
        """The fleet and ``env`` layers, which every app in ``env`` shares; an app without
        overlay (``chart``: a chart, another source, a plain directory) takes no fleet or env
        common metadata (nothing would apply it to its objects)."""
        key = (env.name, chart)
        if key not in self._shared:
            fleet = self.fleet
            fleet_layer = Layer(
                common_labels={} if chart else fleet.common_labels,
                common_annotations={} if chart else fleet.common_annotations,
                sync=fleet.sync,
            )
            env_layer = Layer(
                common_labels={} if chart else env.common_labels,
                common_annotations={} if chart else env.common_annotations,
                sync=env.sync,
            )
            layers = [("fleet", fleet_layer), ("env", env_layer)]
            self._shared[key] = layered(Settings(sync=SyncPolicy()), layers)
        return self._shared[key]

    def plain(self, app: App) -> bool:
        """Whether ``app`` reads a plain directory of this repository (a path without a
        kustomization, `fleetgen.inputs.bases.Base.plain`)."""
        if app.base_path is None:
            return False
        base = self.workspace.bases.get(repo_path(app.base_path))
        return base is not None and base.plain

    def base(self, app: App) -> Base:
        """The inventory of a kustomize ``app``'s base (`NO_BASE` for an app without one), once
        its checks have found it in the workspace."""
        return NO_BASE if app.base_path is None else self.workspace.bases[repo_path(app.base_path)]

    def overlaid(self, app: App) -> bool:
        """Whether ``app``'s layers are written into overlays: a kustomize app, not a chart, an
        app from another source or a plain directory, which the engines read as they are."""
        return app.kustomize and not self.plain(app)

    def cluster_kinds(self, app: App) -> frozenset[tuple[str, str]]:
        """(group, kind) of the cluster-scoped objects the local base of a kustomize ``app``
        and what its layers add ship (workspace inventory); none for a chart or an app from
        another source."""
        if not app.kustomize:
            return frozenset()
        base = self.workspace.bases.get(repo_path(app.base_path)) if app.base_path else None
        found = [*([base] if base is not None else []), *self.layer_bases(app)]
        return frozenset().union(*(item.cluster_kinds for item in found))

    def configmaps_read(self, app: App) -> frozenset[str] | None:
        """The ConfigMaps an overlaid ``app``'s pods may read: those the pod specs of its base
        and of what its layers add read (workspace inventory), and every string its layers'
        patches hold (a patch may add a reference); None where they run no pod (its ConfigMaps
        are for others to read) or fleetgen cannot see all of it (a remote base or component, a
        name prefix, a resource outside the repository)."""
        added = self.layer_bases(app)
        found = [*([self.base(app)] if app.base_path is not None else []), *added]
        if (
            len(added) < len(layer_inputs(app))
            or not all(base.kustomization is not None and base.complete for base in found)
            or not any(base.pods for base in found)
        ):
            return None
        patched = {text for layer in (app, *overrides_of(app)) for text in _strings(layer.patches)}
        return frozenset().union(patched, *(base.configmaps_read for base in found))

    def layer_bases(self, app: App) -> list[Base]:
        """The inventory of what the layers of a kustomize ``app`` add to its overlays
        (`fleetgen.model.apps.layer_inputs`), as far as it is in the repository."""
        if not app.kustomize:
            return []
        bases = self.workspace.bases
        return [bases[path] for path in layer_inputs(app) if path in bases]

    def report(self, where: Spec, message: str) -> None:
        self.problems.append(at(where, message, self.fleet))


def _strings(value: Any) -> Iterator[str]:
    """Every string in ``value`` (spec objects, lists and dicts of them), keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Spec):
        yield from _strings(value.model_dump())
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from (*_strings(key), *_strings(item))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _duplicates(names: Iterable[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def _check_reserved_labels(ctx: _Context, where: Spec, labels: Iterable[str], what: str) -> None:
    for key in labels:
        if key.startswith(LABEL_PREFIX):
            ctx.report(
                where,
                f"{what}: label {key!r} uses the prefix "
                f"{LABEL_PREFIX!r}, which fleetgen sets itself",
            )


def _check_placeholders(ctx: _Context, where: Spec, text: str, what: str) -> None:
    for name in _PLACEHOLDER.findall(text):
        if name not in PLACEHOLDERS:
            known = ", ".join("{" + known + "}" for known in PLACEHOLDERS)
            ctx.report(
                where, f"{what}: unknown placeholder {{{name}}} in {text!r} (known: {known})"
            )


def _fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with its ``{cluster}``/``{env}`` placeholders replaced from ``values``."""
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), text)
