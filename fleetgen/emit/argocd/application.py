"""The Application an ApplicationSet generates for each cluster it selects: its template, which
reads what differs between clusters from the parameters of their generator
(`fleetgen.emit.argocd.generators`)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from fleetgen.emit.argocd.charts import ChartParts, chart_source
from fleetgen.emit.argocd.common import go_text, go_tree
from fleetgen.emit.argocd.generators import NAME, SERVER
from fleetgen.emit.notices import subscriptions
from fleetgen.model import App, Environment, Fleet, IgnoreDifference
from fleetgen.resolver.plan import Plan
from fleetgen.rules.argocd import GENERATE_PATHS, RESOURCES_FINALIZER
from fleetgen.write.output import APP_LABEL, CLUSTER_LABEL, ENV_LABEL, WAVE_LABEL

WAVE = '{{ index .metadata.labels "' + WAVE_LABEL + '" }}'


def template(
    plan: Plan,
    app: App,
    env: Environment,
    sync: dict[str, Any] | None,
    charts: Sequence[ChartParts],
    cascade: bool,
    destination: str | None,
    source_path: str = "",
) -> dict[str, Any]:
    """The Application template; ``cascade``: its removal deletes the workloads (the
    resources finalizer); ``destination``: a Go template of its destination namespace (the one
    namespace, or `NAMESPACE` when its generators differ; None for App(namespace=None));
    ``source_path``: an app from another source: the directory its Applications read (a Go
    template: the one directory, or `SOURCE_PATH` when its generators differ)."""
    fleet = plan.fleet
    labels = {go_text(k): go_text(v) for k, v in app.labels.items()} | {
        APP_LABEL: go_text(app.name),
        ENV_LABEL: go_text(env.name),
        CLUSTER_LABEL: NAME,
    }
    if env.rollout is not None:
        labels[WAVE_LABEL] = WAVE
    # Notify's subscriptions first: an annotation the app sets itself wins.
    subscribed = subscriptions(plan.notices.get((app.name, env.name)))
    annotations = {go_text(k): go_text(v) for k, v in {**subscribed, **app.annotations}.items()}
    if app.source is None and source_path:  # a plain directory: every file in it
        annotations[GENERATE_PATHS] = "/" + source_path  # a Go template already
    elif app.chart is None and app.source is None:  # (none for another repository's webhooks)
        annotations[GENERATE_PATHS] = "{{ .values.generatePaths }}"
    elif app.chart is not None and app.chart.path is not None:  # refreshed on a chart push
        annotations[GENERATE_PATHS] = go_text("/" + posixpath.normpath(app.chart.path))
    meta: dict[str, Any] = {
        "name": go_text(f"{app.name}-") + NAME,
        "labels": dict(sorted(labels.items())),
        "annotations": dict(sorted(annotations.items())),
    }
    if cascade:
        meta["finalizers"] = [RESOURCES_FINALIZER]
    spec: dict[str, Any] = {
        "project": go_text(app.project),
        "source": chart_source(fleet, app, charts)
        if charts
        else remote_source(app, source_path, fleet)
        or {
            "repoURL": go_text(fleet.repo),
            "targetRevision": go_text(fleet.revision),
            "path": "{{ .values.overlay }}",
        },
        # No namespace for App(namespace=None): Argo CD then leaves objects where the manifests
        # put them (controller NormalizeTargetObjects defaults only to a non-empty one).
        "destination": {
            "server": SERVER,
            **({"namespace": destination} if destination is not None else {}),
        },
    }
    if app.ignore_differences:
        spec["ignoreDifferences"] = go_tree([_ignore(d) for d in app.ignore_differences])
    if sync:
        spec["syncPolicy"] = go_tree(sync)
    return {"metadata": meta, "spec": spec}


def remote_source(app: App, path: str, fleet: Fleet) -> dict[str, Any] | None:
    """The ``spec.source`` of an app without overlay (``path``: the Go template of the directory
    it reads), None for an app with overlays (``path`` empty).

    A Git repository by its https:// URL; an OCI artifact by its ``oci://`` URL, which is how
    Argo CD (>= 3.1) tells an OCI source from Git and Helm (``ApplicationSource.IsOCI``), with
    the tag or digest as ``targetRevision``. A plain directory of this repository as a directory
    source with ``recurse``: reposerver ``findManifests`` then reads every manifest file in every
    folder below it, as kustomize-controller's generated kustomization does
    (`fleetgen.inputs.workspace.ARGO_SUFFIXES`); ``directory`` makes the type explicit
    (``ApplicationSource.ExplicitType``), so no file in it turns it into another kind of app.
    """
    if not path:
        return None
    if app.source is None:
        return {
            "repoURL": go_text(fleet.repo),
            "targetRevision": go_text(fleet.revision),
            "path": path,
            "directory": {"recurse": True},
        }
    return {
        "repoURL": go_text(app.source.url),
        "targetRevision": go_text(app.source.target_revision),
        "path": path,
    }


def _ignore(difference: IgnoreDifference) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "group": difference.group,
        "kind": difference.kind,
        "name": difference.name,
        "namespace": difference.namespace,
        "jsonPointers": difference.json_pointers,
        "jqPathExpressions": difference.jq_path_expressions,
        "managedFieldsManagers": difference.managed_fields_managers,
    }
    return {key: value for key, value in entry.items() if value or key == "group"}
