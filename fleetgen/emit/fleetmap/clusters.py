"""What the fleet map says of each cluster: the engines that place apps on it (folded from every
app's rows), its labels, how the engines reach it, and what an external registration must
carry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import get_args

from fleetgen.emit.common import cluster_labels
from fleetgen.emit.fleetmap.rows import AppRows
from fleetgen.model import AwsAuth, Credentials, Engine, ExternalSecretRef
from fleetgen.model.fields import VAR_PREFIX
from fleetgen.resolver.plan import Plan
from fleetgen.util.templating import md_cell


def clusters_by_engine(plan: Plan, rows: Mapping[str, AppRows]) -> dict[str, set[str]]:
    """engine -> the clusters it places something on; ``rows``: as `emit_rows` takes them."""
    masks = dict.fromkeys(get_args(Engine), 0)
    for row in rows.values():
        for engine, mask in row["clusters"].items():
            masks[engine] |= mask
    return {engine: set(cluster_names(plan, mask)) for engine, mask in masks.items()}


def cluster_names(plan: Plan, mask: int) -> list[str]:
    """The clusters of an `AppRows` cluster mask, in spec order."""
    bits = bin(mask)[:1:-1]  # bit 0 first
    return [
        cluster.name for cluster, bit in zip(plan.fleet.clusters, bits, strict=False) if bit == "1"
    ]  # bits stop at the highest set one


def cluster_engines(plan: Plan, on: Mapping[str, set[str]]) -> dict[str, str]:
    """cluster -> the engines of the placements on it, joined (``—`` for none); ``on``:
    `clusters_by_engine`."""
    return {
        c.name: ", ".join(sorted(engine for engine, names in on.items() if c.name in names)) or "—"
        for c in plan.fleet.clusters
    }


def label_cells(plan: Plan) -> dict[str, str]:
    """cluster -> its labels as one table cell, ``key=value, …`` by key ignoring case (as Jinja's
    ``dictsort``, which the template used; a Python loop is much faster than one in Jinja)."""
    return {
        c.name: ", ".join(
            f"{md_cell(key)}={md_cell(value)}"
            for key, value in sorted(c.labels.items(), key=lambda item: item[0].lower())
        )
        for c in plan.fleet.clusters
    }


def credential_kinds(plan: Plan, on: Mapping[str, set[str]]) -> dict[str, str]:
    """cluster -> how the engines reach it: the kind of its credentials when an engine that
    connects from outside (Argo CD, a Flux hub) places apps on it (`Plan.reached`), else how
    Flux runs there; ``on``: `clusters_by_engine`."""
    kinds = {}
    for cluster in plan.fleet.clusters:
        credentials = plan.credentials.get(cluster.name)
        if cluster.name in plan.reached:
            kinds[cluster.name] = credential_kind(credentials)
        else:
            kinds[cluster.name] = (
                "in-cluster (Flux pulls)"
                if any(cluster.name in names for names in on.values())
                else "—"
            )
    return kinds


def credential_kind(credentials: Credentials | None) -> str:
    """A credentials object as a table cell: its kind and where it lives (never a value)."""
    if credentials is None:
        return "none"
    if isinstance(credentials, ExternalSecretRef):
        return f"external secret ({credentials.store_kind} {credentials.store})"
    if isinstance(credentials, AwsAuth):
        return "AWS IAM role"
    return f"exec ({credentials.command} {' '.join(credentials.args)})".rstrip()


def external_rows(
    plan: Plan, on: Mapping[str, set[str]], rows: Mapping[str, AppRows]
) -> list[tuple[str, str, str, str]]:
    """(cluster, server, labels, annotations) of each external registration with an Argo CD
    placement: what the tool that owns its cluster Secret must set, since the ApplicationSets
    select by the labels and read the cluster vars of their apps that select clusters at run
    time from the annotations (with the values fleet.py gives); ``on``: `clusters_by_engine`."""
    placed = on.get("argocd", set())
    found = []
    for bit, cluster in enumerate(plan.fleet.clusters):
        if cluster.registration != "external" or cluster.name not in placed:
            continue
        read = sorted(
            {
                name
                for row in rows.values()
                if row["clusters"].get("argocd", 0) >> bit & 1
                for name in row["runtime_vars"]
            }
        )
        labels = cluster_labels(plan, cluster).items()
        found.append(
            (
                cluster.name,
                cluster.server.rstrip("/"),
                ", ".join(f"{key}={value}" for key, value in labels),
                ", ".join(f"{VAR_PREFIX}{name}={cluster.vars[name]}" for name in read),
            )
        )
    return sorted(found)
