"""What Flux reads of fleetgen's output and what fleetgen names in it: the annotation that keeps an
object from being pruned, the post-renderer that keeps a HelmRelease's objects when it is
uninstalled, and the Kustomizations that order a chart app's HelmRelease against Kustomize apps
(`fleetgen.emit.flux.dependencies` writes them; ``explain`` names them)."""

from __future__ import annotations

from typing import Any

# kustomize-controller never prunes an object annotated so (``Exclusions``).
PRUNE_DISABLED = {"kustomize.toolkit.fluxcd.io/prune": "disabled"}
_KEEP = "helm.sh/resource-policy: keep"  # what helm's uninstall leaves (the keep post-renderer)


def gate_name(app: str) -> str:
    """The gate Kustomization that is Ready when the HelmRelease of ``app`` is."""
    return f"{app}.ready"


def wrapper_name(app: str) -> str:
    """The Kustomization that applies the HelmRelease of ``app``."""
    return f"{app}.release"


def keeps_objects(release: Any) -> bool:
    """Whether a HelmRelease's post-renderer annotates every object ``helm.sh/resource-policy:
    keep``: uninstalling the release (helm-controller on deletion) then leaves them."""
    spec = release.get("spec") if isinstance(release, dict) else None
    for renderer in (spec or {}).get("postRenderers") or ():
        patches = ((renderer or {}).get("kustomize") or {}).get("patches") or ()
        if any(isinstance(p, dict) and _KEEP in str(p.get("patch", "")) for p in patches):
            return True
    return False
