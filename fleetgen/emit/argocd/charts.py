"""The Helm source of a chart app's Applications (`fleetgen.emit.argocd.appsets` places them).

One ApplicationSet per (app, environment), as for kustomize apps. What every cluster shares is
written into the template; what differs between its generator groups (the chart version, the
merged values) travels in each generator's ``values`` and the template reads it from there.

Values: ``helm.valuesObject`` when the document holds no null and all clusters share it;
otherwise ``helm.values``, the text of a values file. A null must stay a null until Helm reads
it (it removes the chart's default), and the ApplicationSet controller drops nil map entries when
it renders a template (``deeplyReplaceWithFilter``), as server-side apply does inside a CR.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fleetgen.emit.argocd.common import go_text, go_tree, go_values_text
from fleetgen.model import App, ClusterVar, Fleet
from fleetgen.resolver.plan import Placement
from fleetgen.resolver.values import holds_null
from fleetgen.rules.argocd import repo_url

CHART_VERSION = "{{ .values.chartVersion }}"
HELM_VALUES = "{{ .values.helmValues }}"
_VAR = "\u0000ClusterVar"  # a ClusterVar in the JSON of values (no YAML key holds a NUL)


@dataclass(frozen=True, slots=True)
class ChartParts:
    """What may differ between the clusters of one chart app in one environment."""

    revision: str  # the chart version ("" for a chart kept in the repository)
    values: str  # JSON of the merged values (`_values`: a ClusterVar as {_VAR: name})

    @property
    def document(self) -> dict[str, Any]:
        """The merged values, each ClusterVar a ClusterVar again."""
        found: dict[str, Any] = json.loads(self.values, object_hook=_var_hook)
        return found


def _var_hook(entries: dict[str, Any]) -> Any:
    return ClusterVar(entries[_VAR]) if _VAR in entries else entries


def chart_parts(placement: Placement) -> ChartParts:
    """The chart version and merged values of a chart app's placement: with
    ``Selector(runtime=True)``, the values of its template, ClusterVars kept (`go_var` reads
    them when the ApplicationSet runs)."""
    chart = placement.chart
    assert chart is not None
    values = (placement.template or placement.settings).values
    text = json.dumps(values, default=lambda var: {_VAR: var.name})
    return ChartParts(chart.version if chart.repo else "", text)


def chart_generator_values(group: ChartParts, charts: Sequence[ChartParts]) -> dict[str, str]:
    """Generator ``values`` for the parts that differ between the groups of ``charts``."""
    values = {}
    if len({chart.revision for chart in charts}) > 1:
        values["chartVersion"] = go_text(group.revision)
    if len({chart.values for chart in charts}) > 1:
        values["helmValues"] = go_values_text(group.document)
    return values


def chart_source(fleet: Fleet, app: App, charts: Sequence[ChartParts]) -> dict[str, Any]:
    """The template's ``spec.source`` for a chart app whose groups have ``charts``."""
    chart = app.chart
    assert chart is not None
    revisions, documents = {c.revision for c in charts}, {c.values for c in charts}
    helm: dict[str, Any] = {"releaseName": go_text(app.release_name or app.name)}
    if len(documents) > 1:
        helm["values"] = HELM_VALUES
    else:
        values = ChartParts("", documents.pop()).document
        if holds_null(values):
            helm["values"] = go_values_text(values)
        elif values:
            helm["valuesObject"] = go_tree(values)
    if chart.path is not None:
        source = {
            "repoURL": go_text(fleet.repo),
            "targetRevision": go_text(fleet.revision),
            "path": go_text(posixpath.normpath(chart.path)),
        }
    else:
        assert chart.repo is not None and chart.name is not None
        source = {
            "repoURL": go_text(repo_url(chart.repo)),
            "chart": go_text(chart.name),
            "targetRevision": (go_text(revisions.pop()) if len(revisions) == 1 else CHART_VERSION),
        }
    return {**source, "helm": helm}
