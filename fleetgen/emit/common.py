"""What more than one emitter writes: the kustomization header, fleetgen's own label keys, the
output fields newer than a controller floor.

Emitters never import from one another; what two of them share lives here.
"""

from __future__ import annotations

from fleetgen.output import LABEL_PREFIX

KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
APP_LABEL = f"{LABEL_PREFIX}app"
CLUSTER_LABEL = f"{LABEL_PREFIX}cluster"
ENV_LABEL = f"{LABEL_PREFIX}env"
WAVE_LABEL = f"{LABEL_PREFIX}wave"

# Output fields newer than a supported controller floor, by engine: (release, what fleetgen emits
# from that release on). An emitter uses one only when the engine's min_version reaches the
# release; the fleet map lists them as what a higher floor unlocks.
FLUX_IGNORE_SINCE = "2.9"  # Kustomization spec.ignore (kustomize-controller v1.9)
NEWER_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "argocd": (),
    "flux": ((FLUX_IGNORE_SINCE, "`Kustomization.spec.ignore`: Flux leaves the JSON pointers of "
                                 "`ignore_differences` alone too"),),
}
