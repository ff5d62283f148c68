"""What more than one emitter writes: the kustomization header, fleetgen's own label keys.

Emitters never import from one another; what two of them share lives here.
"""

from __future__ import annotations

from fleetgen.output import LABEL_PREFIX

KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
APP_LABEL = f"{LABEL_PREFIX}app"
CLUSTER_LABEL = f"{LABEL_PREFIX}cluster"
ENV_LABEL = f"{LABEL_PREFIX}env"
WAVE_LABEL = f"{LABEL_PREFIX}wave"
