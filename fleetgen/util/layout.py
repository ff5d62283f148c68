"""Where the output's Argo CD instances keep their files: the fleet's instance in ``argocd/``, an
environment's own in ``argocd-<env>/``. A leaf: ``build --check``'s quick path reads it without
loading the spec classes."""

from __future__ import annotations

ARGOCD_DIR = "argocd"  # the output folder of the fleet's Argo CD instance
BOOTSTRAP = "bootstrap.yaml"  # in an instance's folder: what starts it (its root Application)


def argocd_directory(env: str | None) -> str:
    """The output folder of the Argo CD instance of environment ``env`` (None: the fleet's)."""
    return ARGOCD_DIR if env is None else f"{ARGOCD_DIR}-{env}"


def is_argocd_directory(top: str) -> bool:
    """Whether ``top`` (a top-level folder of the output) is an Argo CD instance's."""
    return top == ARGOCD_DIR or top.startswith(f"{ARGOCD_DIR}-")


def argocd_part(path: str) -> str | None:
    """What an output file of an Argo CD instance is (its subfolder: ``applicationsets``,
    ``clusters``, ``projects``; ``bootstrap.yaml``...); None for a file of no instance."""
    top, _, rest = path.partition("/")
    return rest.partition("/")[0] if is_argocd_directory(top) and rest else None
