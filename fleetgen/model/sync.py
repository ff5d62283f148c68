"""How placements sync and roll out: SyncPolicy with its Retry, and a Rollout's Steps."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pydantic import Field, field_validator

from fleetgen.model.base import Spec
from fleetgen.model.fields import Duration, FluxDuration, Labels

_PERCENT = re.compile(r"[0-9]{1,3}%")
CREATE_NAMESPACE = "CreateNamespace"  # Argo CD's sync option, owned by Fleet.create_namespaces


class Retry(Spec):
    """Sync retry with exponential backoff.

    Attributes:
        limit: Retries after a failed sync (Argo CD: -1 retries forever; 0 none).
        backoff_duration: Wait before the first retry.
        backoff_factor: Each wait is the previous one times this.
        backoff_max_duration: The longest wait; Flux retries at this fixed interval.
    """

    limit: int = Field(default=5, ge=-1)
    backoff_duration: Duration = "5s"
    backoff_factor: int = Field(default=2, ge=1)
    backoff_max_duration: Duration = "3m"


class SyncPolicy(Spec):
    """How an engine syncs: deeper layers override only the fields they set.

    Attributes:
        automated: Sync every merged change by itself (Argo CD: else `automated: {enabled: false}`;
            Flux: else the Kustomization is suspended).
        prune: Delete objects that left the manifests.
        self_heal: Revert changes made on the cluster (Argo CD; Flux always does).
        allow_empty: Argo CD: let an automated sync prune an app down to nothing.
        sync_options: Argo CD sync options such as 'ServerSideApply=true'. Layers add up: a
            deeper layer's options join the fleet's and environment's, and one it names again
            ('ServerSideApply=false') replaces that option's value.
        retry: Retry failed syncs; None: the engine's default.
        interval: Flux: how often it reconciles; None: FluxOptions.interval (Argo CD has none).
        timeout: Flux: how long an apply (with wait, the health check) may take; None: 10m for
            a Kustomization that waits (Flux's own default, its interval less 30s, fails slow
            rollouts), Flux's default otherwise (HelmRelease: 5m).
        retry_interval: Flux Kustomization: how soon a failed reconciliation is retried; None:
            the retry's backoff_max_duration, else the interval.
        wait: Flux: wait for the applied objects to be healthy (Kustomization wait; HelmRelease
            install/upgrade wait), which depends_on relies on.
    """

    automated: bool = False
    prune: bool = False
    self_heal: bool = False
    allow_empty: bool = False
    sync_options: list[str] = []
    retry: Retry | None = None
    interval: FluxDuration | None = None
    timeout: FluxDuration | None = None
    retry_interval: FluxDuration | None = None
    wait: bool = True

    @field_validator("sync_options")
    @classmethod
    def _sync_options(cls, value: list[str]) -> list[str]:
        for option in value:
            if option.partition("=")[0] == CREATE_NAMESPACE:
                raise ValueError(
                    f"sync option {option!r}: remove it; namespace creation is "
                    "one switch for both engines, Fleet(create_namespaces=True) "
                    "(the default) or False for namespaces provisioned elsewhere"
                )
        return value


class Step(Spec):
    """One rollout step: the clusters matching ``match_labels`` (all remaining when empty).

    Attributes:
        match_labels: Cluster labels this step takes; empty: the environment's remaining clusters.
        max_update: How many of the step's clusters update at once: an int or a percentage like
            '25%'.
    """

    match_labels: Labels = {}
    max_update: int | str = "100%"

    @field_validator("max_update")
    @classmethod
    def _max_update(cls, value: int | str) -> int | str:
        if isinstance(value, int):
            if value < 1:
                raise ValueError("max_update must be at least 1")
        elif not _PERCENT.fullmatch(value) or not 1 <= int(value[:-1]) <= 100:
            raise ValueError(f"max_update {value!r} must be an int or a percentage like '25%'")
        return value


class Rollout(Spec):
    """Ordered steps (canary rings first) that an environment's changes roll through.

    Attributes:
        steps: The steps, in order; a step starts when the previous one is healthy.
    """

    steps: list[Step] = Field(min_length=1)

    def waves(
        self, clusters: Iterable[tuple[str, Mapping[str, str]]]
    ) -> tuple[tuple[str, ...], ...]:
        """The clusters each step takes, a tuple per step in order, from ``clusters`` (name,
        labels) in the order given: a cluster goes to the first step whose labels it carries
        (an empty step takes the rest); one no step takes is in none."""
        remaining = list(clusters)
        waves = []
        for step in self.steps:
            wanted = step.match_labels.items()
            taken: list[tuple[str, Mapping[str, str]]] = []
            left: list[tuple[str, Mapping[str, str]]] = []
            for name, labels in remaining:
                (taken if wanted <= labels.items() else left).append((name, labels))
            waves.append(tuple(name for name, _ in taken))
            remaining = left
        return tuple(waves)
