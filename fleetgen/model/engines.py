"""Engine settings: Argo CD's and Flux's options, and the oldest controller releases the output
supports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator

from fleetgen.model.apps import GitSource
from fleetgen.model.base import Spec
from fleetgen.model.fields import Duration, Name, Version, release_patch

# The oldest controller releases the output supports, compared down to the patch: their
# projects' three newest minors, and for Argo CD the first 3.3 whose RollingSync re-gates an
# Application when its generated spec changes (argo-cd v3.3.7, applicationset_controller.go
# updateApplicationSetApplicationStatus; before it, revision changes only, so a values-only change
# of a Helm-repository chart never synced: RollingSync turns auto-sync off).
ARGOCD_FLOOR, FLUX_FLOOR = "3.3.7", "2.7"


def _at_least(floor: str, project: str, why: str = "") -> Callable[[str], str]:
    """A check that ``value`` is ``floor`` or newer; a release without a patch ('3.3') in the
    floor's minor means the floor, and reads as it."""
    lowest = release_patch(floor)

    def check(value: str) -> str:
        major, minor, patch = release_patch(value)
        if patch is None and (major, minor) == lowest[:2]:
            return floor
        if (major, minor, patch or 0) < (lowest[0], lowest[1], lowest[2] or 0):
            raise ValueError(
                f"{project} {value} is too old: fleetgen's output needs {project} >= {floor}{why}"
            )
        return value

    return check


class ArgoOptions(Spec):
    """Argo CD settings.

    Attributes:
        namespace: The namespace Argo CD runs in.
        min_version: The oldest Argo CD release the output must work on.
    """

    namespace: Name = "argocd"
    min_version: Annotated[
        Version,
        AfterValidator(
            _at_least(
                ARGOCD_FLOOR,
                "Argo CD",
                " (before it, a RollingSync ApplicationSet never syncs a change that moves no Git"
                " revision, such as new Helm values)",
            )
        ),
    ] = ARGOCD_FLOOR


class FluxOptions(Spec):
    """Flux settings.

    An app that `depends_on` a chart app waits for the gate Kustomization `<chart app>.ready`
    on its cluster, Ready once the HelmRelease is, at each revision once what applies the
    HelmRelease applied it: the cluster's root Kustomization (bootstrap's) or the chart app's
    own `<chart app>.release`. Flux compares revisions between Kustomizations of one source only,
    so the gate reads that one's GitRepository: the root's, bootstrap's (the fleet's repository,
    holding `flux/gate/` beside the cluster folders), even with `source`. With
    `source_per_namespace` a spoke's gate reads the spoke's source and checks only that the root
    is Ready: on an upgrade its dependents may apply before the chart is upgraded (a build
    warning; without the option they are held). While a HelmRelease moves into its own
    Kustomization, the root still applies it (the move's first step): its gate then reads as an
    unwrapped one, so a spoke's with `source_per_namespace` checks only the root's Ready in that
    step (the move's note says so). Bootstrap's root Kustomization must not `wait`
    (bootstrap's does not; `fleetgen import` reports one that does): the gates it applies wait
    for it, and it for them, so neither is ever Ready and the dependents never apply.

    Attributes:
        mode: 'per-cluster': each cluster runs Flux; 'hub': the `hub` cluster's Flux applies to
            all, a spoke's apps once the namespaces fleetgen creates there exist (a tenant's chart
            app, which cannot wait for them, is refused until then and retried with backoff).
        hub: The hub cluster (mode 'hub').
        namespace: The namespace Flux runs in.
        interval: How often Flux reconciles each Kustomization.
        source: The repository to read output/ from; None: the one `flux bootstrap` created.
        min_version: The oldest Flux release the output must work on.
        source_per_namespace: Hub mode: a GitRepository of `source` in each spoke namespace, for
            hubs locked down with --no-cross-namespace-refs (its `secret_ref` must exist in each);
            False: every Kustomization reads the one in `namespace`, across namespaces.
    """

    mode: Literal["per-cluster", "hub"] = "per-cluster"
    hub: Name | None = None
    namespace: Name = "flux-system"
    interval: Duration = "10m"
    source: GitSource | None = None
    min_version: Annotated[Version, AfterValidator(_at_least(FLUX_FLOOR, "Flux"))] = FLUX_FLOOR
    source_per_namespace: bool = False  # hub mode: a source in each spoke namespace


@dataclass(frozen=True, slots=True)
class ArgoInstance:
    """One Argo CD instance the output configures: the fleet's (``argocd/``, the environments
    without one of their own) or an environment's own (``argocd-<env>/``). Each reads only its
    folder: its root Application, registrations, AppProjects and ApplicationSets."""

    directory: str  # output-relative
    options: ArgoOptions
    envs: tuple[str, ...]  # the environments whose Argo CD placements it reconciles
