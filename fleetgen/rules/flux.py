"""What Flux reads of fleetgen's output and what fleetgen names in it: the annotation that keeps an
object from being pruned, and the Kustomizations that order a chart app's HelmRelease against
Kustomize apps (`fleetgen.emit.flux.dependencies` writes them; ``explain`` names them)."""

from __future__ import annotations

# kustomize-controller never prunes an object annotated so (``Exclusions``).
PRUNE_DISABLED = {"kustomize.toolkit.fluxcd.io/prune": "disabled"}


def gate_name(app: str) -> str:
    """The gate Kustomization that is Ready when the HelmRelease of ``app`` is."""
    return f"{app}.ready"


def wrapper_name(app: str) -> str:
    """The Kustomization that applies the HelmRelease of ``app``."""
    return f"{app}.release"
