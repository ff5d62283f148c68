"""Dependencies across kinds on Flux (the canonical layout: controllers from charts, then what
uses them). A Kustomization's ``dependsOn`` names Kustomizations and a HelmRelease's names
HelmReleases: kustomize-controller's and helm-controller's ``checkDependencies`` each get their
own kind. So, on each cluster:

- a Kustomize app that ``depends_on`` a chart app waits for the gate Kustomization
  ``<chart app>.ready``: it applies nothing (`GATE_DIR`) and health-checks the HelmRelease
  (``healthChecks`` and no ``wait``: with ``wait`` kustomize-controller's ``checkHealth`` checks
  only what the Kustomization applied), so it is Ready once the release is, at the revision it
  reconciled (``checkDependencies`` compares a dependency's applied revision with the source's).
  On a new revision every Kustomization of the source is queued at once
  (``requestsForRevisionChangeOf``), so the gate ``dependsOn`` what applies the HelmRelease —
  the cluster's root Kustomization (`root_ref`) and, for a wrapped one, its wrapper — and
  checks it only once that applied the revision: a changed HelmRelease then has a generation
  helm-controller has not observed, which kstatus (``checkGeneration``) reads as InProgress
  until the upgrade is done. No HelmRelease moves for it. Revisions are compared only between
  Kustomizations of one GitRepository, so the gate reads the source of what applies its
  HelmRelease (`gate`): the wrapper's, or the root's — bootstrap's GitRepository, the
  fleet's repository, which holds `GATE_DIR` beside the cluster folders — even with
  ``FluxOptions.source``. A spoke namespace with a source of its own (``source_per_namespace``,
  no cross-namespace references) cannot: its unwrapped gate waits for the root to be Ready only
  (a build warning, `fleetgen.emit.flux.hub`).
- a chart app that ``depends_on`` a Kustomize app has its HelmRelease, chart source and values
  applied by a Kustomization of its own, ``<chart app>.release``, from
  ``flux/releases/<cluster>/<app>/`` (a hub's spoke: ``flux/releases/<hub>/<spoke>/<app>/``, the
  HelmRelease being an object of the hub) — outside the bootstrap path, which
  kustomize-controller's generated kustomization recurses into — that ``dependsOn`` those
  Kustomize apps and waits for the HelmRelease. Dependencies on other chart apps stay the
  HelmRelease's own. An existing HelmRelease moves there in generations (`fleetgen.settle.moves`):
  never uninstalled.

Gate and wrapper are suspended with the HelmRelease in a manual environment: kustomize-controller's
``Reconcile`` returns before anything while ``suspend`` is set, and helm-controller's, for a
suspended HelmRelease, marks its generation observed without a condition, which kstatus reads as
Current: an active gate would be Ready in front of a release that never installed.

The dotted names cannot clash with an app's (a DNS label).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from fleetgen.emit.flux.charts import HELM_API
from fleetgen.emit.flux.kustomization import (
    GATE_DIR,
    Home,
    Ref,
    flux_dir,
    kustomization,
    root_ref,
)
from fleetgen.emit.flux.sources import bootstrap_source
from fleetgen.inputs.record import release_move
from fleetgen.model import App, Fleet
from fleetgen.resolver.plan import Placement, Plan
from fleetgen.resolver.timing import Effective, flux_timing
from fleetgen.rules.flux import gate_name, wrapper_name
from fleetgen.write.output import APP_LABEL, CLUSTER_LABEL, ENV_LABEL, Wrapped


def chart_apps(fleet: Fleet) -> set[str]:
    """The apps whose placements are HelmReleases on Flux."""
    return {app.name for app in fleet.apps if app.chart is not None}


def wrapped(fleet: Fleet) -> set[str]:
    """Chart apps that depend on a Kustomize app: a Kustomization of their own applies them."""
    charts = chart_apps(fleet)
    known = {app.name for app in fleet.apps}
    return {
        app.name
        for app in fleet.apps
        if app.name in charts and any(d in known and d not in charts for d in app.depends_on)
    }


def gated(plan: Plan) -> set[tuple[str, str]]:
    """(chart app, cluster) where a Kustomize app placed there depends on the chart app: a gate
    Kustomization reports its health there."""
    charts = chart_apps(plan.fleet)
    apps = {app.name: app for app in plan.fleet.apps}
    return {
        (dependency, placement.cluster)
        for placement in plan.placements
        if placement.app not in charts
        for dependency in apps[placement.app].depends_on
        if dependency in charts
    }


def release_dir(home: Home, app: str) -> str:
    """Where the HelmRelease of ``app`` in ``home`` lies when wrapped (output-relative)."""
    return f"{home.releases}/{app}"


def release_file(home: Home, app: str) -> str:
    """The file of the HelmRelease, source and values of ``app`` in ``home`` when wrapped."""
    return f"{release_dir(home, app)}/release.yaml"


def kustomization_deps(app: App, charts: set[str], namespace: str) -> list[Ref]:
    """What the Kustomization of Kustomize app ``app`` waits for: each dependency's
    Kustomization, or a chart app's gate."""
    return [(namespace, gate_name(d) if d in charts else d) for d in app.depends_on]


def release_deps(app: App, charts: set[str], namespace: str) -> tuple[list[Ref], list[Ref]]:
    """What a chart app waits for: the HelmReleases (its HelmRelease's ``dependsOn``) and the
    Kustomizations (its wrapper's)."""
    same = [(namespace, d) for d in app.depends_on if d in charts]
    other = [(namespace, d) for d in app.depends_on if d not in charts]
    return same, other


def gate(plan: Plan, placement: Placement, home: Home, wrapped: bool) -> dict[str, Any]:
    """The gate of chart app ``placement.app`` on its cluster: Ready when its HelmRelease is,
    once the root Kustomization and (``wrapped``) the release's wrapper applied the revision.
    It reads the source of the one that applies the HelmRelease (the wrapper's: ``home``'s; the
    root's: bootstrap's GitRepository, unless ``home`` has a source of its own).

    It lives beside the HelmRelease (a hub's too, without a spoke's kubeConfig: the HelmRelease
    is an object of the hub), reconciled at the release's interval and waiting at most its
    timeout per attempt."""
    fleet = plan.fleet
    timing = flux_timing(fleet, placement)
    check = {
        "apiVersion": HELM_API,
        "kind": "HelmRelease",
        "name": placement.app,
        "namespace": home.namespace,
    }
    appliers = [root_ref(fleet)]
    if wrapped:
        appliers.append((home.namespace, wrapper_name(placement.app)))
    source = None if wrapped or home.source else bootstrap_source(fleet)
    return kustomization(
        fleet,
        gate_name(placement.app),
        replace(home, spec={}, depends_on=()),
        f"{flux_dir(plan)}/{GATE_DIR}",
        prune=True,
        cascade=False,
        labels=_labels(placement),
        depends_on=appliers,
        extra={**_timing(timing), "healthChecks": [check], **_suspend(placement)},
        source=source,  # what applies the HelmRelease reads: its revision is compared
        wait=False,  # with wait, only what it applies (nothing) is checked
    )


def wrapper(
    plan: Plan, placement: Placement, home: Home, depends_on: Iterable[Ref]
) -> dict[str, Any]:
    """The Kustomization that applies the HelmRelease of ``placement`` once ``depends_on`` are
    Ready, and is Ready when the HelmRelease is (``wait``).

    It applies as the controller (the HelmRelease itself impersonates a tenant's account) and,
    on a hub, on the hub. Deleting it deletes the HelmRelease (``deletionPolicy: Delete``), as the
    root Kustomization's prune deletes an unwrapped one: what the release's objects then do is
    the HelmRelease's to say (its keep post-renderer without cascade_delete)."""
    fleet = plan.fleet
    timing = flux_timing(fleet, placement)
    return kustomization(
        fleet,
        wrapper_name(placement.app),
        replace(home, spec={}),
        f"{flux_dir(plan)}/{release_dir(home, placement.app)}",
        prune=True,
        cascade=True,
        labels=_labels(placement),
        depends_on=depends_on,
        extra={**_timing(timing), **_suspend(placement)},
    )


def wrapped_as(placement: Placement, home: Home, gate: dict[str, Any] | None) -> Wrapped:
    """How the wrapped HelmRelease of ``placement`` would have lain unwrapped: in ``home``'s
    file, which now holds its wrapper, with ``gate`` (its unwrapped gate, if it has one) in
    front of it (`fleetgen.settle.moves`)."""
    return Wrapped(
        release_move(placement.cluster, placement.app),
        home.file,
        wrapper_name(placement.app),
        gate,
    )


def _timing(timing: Mapping[str, Effective]) -> dict[str, Any]:
    """The release's interval and timeout, which a gate or wrapper reconciles and waits by."""
    return {"interval": timing["interval"].value, "timeout": timing["timeout"].value}


def _suspend(placement: Placement) -> dict[str, bool]:
    """``suspend`` on a gate or wrapper whose HelmRelease is suspended (a manual sync)."""
    return {"suspend": True} if placement.suspended else {}


def _labels(placement: Placement) -> dict[str, str]:
    return {
        APP_LABEL: placement.app,
        CLUSTER_LABEL: placement.cluster,
        ENV_LABEL: placement.env,
    }
