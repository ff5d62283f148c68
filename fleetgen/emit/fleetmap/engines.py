"""How each engine the fleet uses starts reading the output (its one-time bootstrap), and the
oldest controller release the output needs with what a newer one unlocks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fleetgen.emit.common import NEWER_FIELDS, argocd_bootstrap, flux_bootstrap
from fleetgen.emit.flux.dependencies import gated
from fleetgen.model import ArgoOptions, Fleet, FluxOptions
from fleetgen.model.fields import release
from fleetgen.resolver.plan import Plan
from fleetgen.util.layout import argocd_directory


@dataclass(frozen=True, slots=True)
class BootstrapStep:
    """How one engine starts reading the output: once, on ``where``."""

    engine: str  # as users name it: Argo CD, Flux
    where: str
    command: str
    then: str  # what it then does by itself


def _argocd_steps(fleet: Fleet) -> list[BootstrapStep]:
    """The start of each Argo CD instance (the fleet's alone unless an environment has its own;
    the fleet's then only while it serves an environment)."""
    instances = fleet.argocd_instances
    return [
        BootstrapStep(
            "Argo CD" if len(instances) == 1 else f"Argo CD ({', '.join(instance.envs)})",
            "on the cluster Argo CD runs on"
            if len(instances) == 1
            else f"on the cluster the Argo CD of {', '.join(instance.envs)} runs on",
            argocd_bootstrap(fleet, instance),
            f"its root Application then syncs `{fleet.output_dir}/{instance.directory}/` from "
            f"`{fleet.revision}`: AppProjects, cluster registrations, ApplicationSets",
        )
        for instance in instances
        if instance.envs or len(instances) == 1
    ]


def bootstrap_steps(plan: Plan, on: Mapping[str, set[str]]) -> list[BootstrapStep]:
    """Each engine's one-time start, for the engines the fleet uses; ``on``:
    `clusters_by_engine`."""
    fleet = plan.fleet
    out = fleet.output_dir
    steps = []
    if "argocd" in fleet.engines:
        steps.extend(_argocd_steps(fleet))
    if "flux" in fleet.engines and fleet.flux.mode == "hub":
        steps.append(
            BootstrapStep(
                "Flux",
                f"on the hub {fleet.flux.hub} only, with kubectl pointing at it",
                flux_bootstrap(fleet, str(fleet.flux.hub)),
                f"the hub's Flux then reconciles every spoke from "
                f"`{out}/flux/clusters/{fleet.flux.hub}/spokes/`{_no_wait(plan)}",
            )
        )
    elif "flux" in fleet.engines:
        placed = ", ".join(c.name for c in fleet.clusters if c.name in on.get("flux", ()))
        steps.append(
            BootstrapStep(
                "Flux",
                f"on each cluster it runs apps on ({placed or 'none yet'}), with kubectl "
                "pointing at it",
                flux_bootstrap(fleet, "<cluster>"),
                f"each cluster's Flux then applies `{out}/flux/clusters/<cluster>/`, where "
                "bootstrap commits its `flux-system/`: until it is there the cluster's root "
                "Kustomization fails (path not found) and applies and deletes nothing, so a "
                "removal on that cluster completes only once it is bootstrapped "
                "(`fleetgen validate` names each folder without it)" + _no_wait(plan),
            )
        )
    return steps


def _no_wait(plan: Plan) -> str:
    """Why bootstrap's Kustomization must keep from ``wait``, where Flux runs a chart app's gate
    (`fleetgen.emit.flux.dependencies`): the gate waits for it."""
    on_flux = {(p.app, p.cluster) for p in plan.placements if p.engine == "flux"}
    if not gated(plan) & on_flux:
        return ""
    return (
        f"; keep its Kustomization `{plan.fleet.flux.namespace}` without `wait`, as bootstrap "
        "writes it: the gate `<app>.ready` of a chart app other apps depend on waits for it to "
        "be Ready, and with `wait` it would wait for the gate it applies — neither would ever "
        "be Ready and those apps would never apply"
    )


@dataclass(frozen=True, slots=True)
class Floor:
    """The oldest release of one engine the output needs, and what a higher one unlocks."""

    engine: str  # as users name it: Argo CD, Flux
    option: str  # the spec setting, e.g. ArgoOptions(min_version="3.3")
    version: str
    unlocks: tuple[tuple[str, str, bool], ...]  # (release, what, in use)


def floors(plan: Plan) -> list[Floor]:
    """The controller versions the output needs, for the engines the fleet uses: an environment's
    own Argo CD instance too where its floor is not the fleet's (each instance's output uses the
    fields its own floor allows)."""
    fleet = plan.fleet
    found = []
    if "argocd" in fleet.engines:
        for instance in fleet.argocd_instances:
            options = instance.options
            if instance.directory == argocd_directory(None):
                found.append(_floor("argocd", "Argo CD", options, _min_version(options)))
            elif options.min_version != fleet.argocd.min_version:
                (env,) = instance.envs
                option = f'Environment(name="{env}", argocd={_min_version(options)})'
                found.append(_floor("argocd", f"Argo CD of {env}", options, option))
    if "flux" in fleet.engines:
        found.append(_floor("flux", "Flux", fleet.flux, _min_version(fleet.flux)))
    return found


def _min_version(options: ArgoOptions | FluxOptions) -> str:
    return f'{type(options).__name__}(min_version="{options.min_version}")'


def _floor(engine: str, label: str, options: ArgoOptions | FluxOptions, option: str) -> Floor:
    current = release(options.min_version)
    unlocks = tuple(
        (since, what, current >= release(since)) for since, what in NEWER_FIELDS[engine]
    )
    return Floor(label, option, options.min_version, unlocks)
