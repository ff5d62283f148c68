"""What the Argo CD emitter modules share: label keys, Go-template escaping, registration labels.

Argo CD (ApplicationSet templates) and External Secrets (``target.template``) render strings as
Go ``text/template``; every literal fleetgen puts there goes through `go_text` or `go_tree`.
"""

from __future__ import annotations

import json
from typing import Any

from fleetgen.emit.common import cluster_labels
from fleetgen.model import Cluster
from fleetgen.plan import Plan

API_VERSION = "argoproj.io/v1alpha1"
SECRET_TYPE = "argocd.argoproj.io/secret-type"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
GENERATE_PATHS = "argocd.argoproj.io/manifest-generate-paths"
# Argo CD deletes an Application's (or waits for an AppProject's) resources before the object.
RESOURCES_FINALIZER = "resources-finalizer.argocd.argoproj.io"
# AppProjects, which ApplicationSets name, sync before them (root app sync wave). Nothing else
# does: an object of an earlier wave that is not healthy stops the root's sync there.
EARLY_WAVE = {SYNC_WAVE: "-1"}


def go_text(text: str) -> str:
    """A Go template that renders exactly ``text``, also when an action follows it.

    Text without ``{{`` is its own template; otherwise (or when it ends in ``{``, which would
    join a following ``{{``) the whole string becomes one action printing a quoted literal. A
    JSON string literal is a valid Go interpreted string literal.
    """
    if "{{" not in text and not text.endswith("{"):
        return text
    return "{{ " + json.dumps(text, ensure_ascii=False) + " }}"


def go_tree(value: Any) -> Any:
    """``value`` with every string, map keys included, escaped by `go_text`."""
    if isinstance(value, str):
        return go_text(value)
    if isinstance(value, dict):
        return {go_text(key): go_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [go_tree(item) for item in value]
    return value


def server_url(cluster: Cluster) -> str:
    """The cluster's API URL as Argo CD's controller keys it (no trailing ``/``)."""
    return cluster.server.rstrip("/")


def registration_labels(plan: Plan, cluster: Cluster) -> dict[str, str]:
    """Labels of a cluster's registration Secret: secret type, the cluster's, fleetgen's."""
    return dict(sorted({SECRET_TYPE: "cluster", **cluster_labels(plan, cluster)}.items()))


def metadata(name: str, namespace: str, **fields: Any) -> dict[str, Any]:
    """ObjectMeta with the non-empty ``fields`` (labels, annotations, finalizers)."""
    return {"name": name, "namespace": namespace} | {k: v for k, v in fields.items() if v}
