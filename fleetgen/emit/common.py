"""What more than one emitter writes: constants shared by the overlays and the Flux emitter.

Emitters never import from one another; what two of them share lives here.
"""

from __future__ import annotations

KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
