"""Flux timing: the interval, timeout, retry interval and wait of a placement's Kustomization or
HelmRelease, and a HelmRelease's install and upgrade retries, each with where its value comes
from (a layer, ``FluxOptions``, fleetgen's default, or what Flux does when the object says
nothing); Go durations as Flux reads and writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fleetgen.model import App, Fleet
from fleetgen.resolver.plan import Placement

TIMING_FIELDS = ("interval", "timeout", "retry_interval", "wait")  # SyncPolicy: Flux's alone

# The health-check timeout of a Flux Kustomization that waits, unless SyncPolicy(timeout) says: a
# Deployment's default progress deadline (without one, kustomize-controller's
# ``Kustomization.GetTimeout`` gives max(interval - 30s, 30s), which fails slow rollouts).
WAIT_TIMEOUT = "10m"
HELM_TIMEOUT = "5m"  # helm-controller's when a HelmRelease says none (``GetTimeout``)
FLUX_DEFAULT = "Flux default"  # the source of a value the Flux object leaves to its controller


@dataclass(frozen=True, slots=True)
class Effective:
    """A value in effect and where it comes from: the layer that set it (as
    ``Settings.provenance`` names layers), ``FluxOptions``, ``default`` (fleetgen's), or
    `FLUX_DEFAULT` (the object leaves it out, and its controller uses this)."""

    value: Any
    source: str


def flux_timing(fleet: Fleet, placement: Placement) -> dict[str, Effective]:
    """The `TIMING_FIELDS` of ``placement`` on Flux (a Kustomization, or a chart app's
    HelmRelease): what its object says, or what Flux does where it says nothing. The Flux
    emitter writes every value whose source is not `FLUX_DEFAULT`; ``explain`` shows them all."""
    sync, provenance = placement.settings.sync, placement.settings.provenance

    def layer(name: str) -> str:
        return provenance.get(f"sync/{name}", "default")

    if sync.interval is not None:
        interval = Effective(sync.interval, layer("interval"))
    else:
        options = "FluxOptions" if "interval" in fleet.flux.model_fields_set else "default"
        interval = Effective(fleet.flux.interval, options)
    if sync.timeout is not None:
        timeout = Effective(sync.timeout, layer("timeout"))
    elif placement.chart is not None:
        timeout = Effective(HELM_TIMEOUT, FLUX_DEFAULT)
    elif sync.wait:
        timeout = Effective(WAIT_TIMEOUT, "default")
    else:  # kustomize-controller's Kustomization.GetTimeout
        timeout = Effective(go_duration(max(seconds(interval.value) - 30, 30)), FLUX_DEFAULT)
    if placement.chart is not None:  # helm-controller retries by its remediation settings
        retry_interval = Effective(None, "HelmRelease has none")
    elif sync.retry_interval is not None:
        retry_interval = Effective(sync.retry_interval, layer("retry_interval"))
    elif sync.retry is not None and sync.retry.limit != 0:
        # Flux retries at a fixed period: Argo CD's backoff ceiling is the closest match.
        retry_interval = Effective(sync.retry.backoff_max_duration, f"{layer('retry')}, from retry")
    else:  # kustomize-controller's Kustomization.GetRetryInterval
        retry_interval = Effective(interval.value, FLUX_DEFAULT)
    return {
        "interval": interval,
        "timeout": timeout,
        "retry_interval": retry_interval,
        "wait": Effective(sync.wait, layer("wait")),
    }


def helm_retries(app: App, placement: Placement) -> dict[str, Effective]:
    """Retries of a failed ``install`` and ``upgrade`` of a chart app's HelmRelease (Flux:
    ``remediation.retries``, -1 forever): ``HelmChart(install_retries=..., upgrade_retries=...)``
    (source ``chart``), else the sync policy's ``retry`` limit (the layer that set it), else none
    (helm-controller's default, 0)."""
    retry = placement.settings.sync.retry
    layer = placement.settings.provenance.get("sync/retry", "default")
    found = {}
    for action in ("install", "upgrade"):
        chosen = getattr(app.chart, f"{action}_retries", None)
        if chosen is not None:
            found[action] = Effective(chosen, "chart")
        elif retry is not None and retry.limit != 0:
            found[action] = Effective(retry.limit, f"{layer}, from retry")
        else:
            found[action] = Effective(0, FLUX_DEFAULT)
    return found


_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_GO_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)")


def seconds(duration: str) -> float:
    """A Go duration (``fields.duration``) in seconds."""
    return sum(float(number) * _GO_UNITS[unit] for number, unit in _GO_PART.findall(duration))


def go_duration(total: float) -> str:
    """``total`` seconds as Go's ``Duration.String`` writes them, e.g. ``9m30s``, ``1h0m0s``."""
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.9f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{int(hours)}h{int(minutes)}m{text}"
    return f"{int(minutes)}m{text}" if minutes else text
