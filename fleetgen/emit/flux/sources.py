"""The Flux sources: the fleet's GitRepository (``FluxOptions.source``), the one every
Kustomization reads (`source_ref`), and the GitRepository or OCIRepository of a remote app."""

from __future__ import annotations

from typing import Any

from fleetgen.model import ExternalSecretRef, Fleet, OciSource, RemoteSource
from fleetgen.write.output import OutputFile

SOURCE_API = "source.toolkit.fluxcd.io/v1"
SOURCE_INTERVAL = "1m"  # what `flux bootstrap` gives its own GitRepository


def bootstrap_source(fleet: Fleet) -> dict[str, str]:
    """The GitRepository ``flux bootstrap`` creates and its root Kustomization reads: the fleet's
    repository at its revision (`fleetgen.emit.common.flux_bootstrap`), named after its
    namespace (flux2 ``sync.Options{Name: namespace}``)."""
    namespace_ = fleet.flux.namespace
    return {"kind": "GitRepository", "name": namespace_, "namespace": namespace_}


def source_ref(fleet: Fleet) -> dict[str, str]:
    """The GitRepository every Kustomization reads: bootstrap's, or the fleet's own when
    ``FluxOptions.source`` is set."""
    if fleet.flux.source is None:
        return bootstrap_source(fleet)
    return {"kind": "GitRepository", "name": fleet.name, "namespace": fleet.flux.namespace}


def external_secret(
    name: str,
    namespace_: str,
    ref: ExternalSecretRef,
    key: tuple[str, str | None],
    labels: dict[str, str],
) -> dict[str, Any]:
    """The ExternalSecret making Secret ``name`` in ``namespace_`` from store entry ``ref``:
    ``key`` is (Secret key, the entry's property or None for the whole entry); ``labels`` go on
    the Secret. An explicit ``template.metadata`` keeps the ExternalSecret's own labels (Flux's
    inventory labels) off the Secret."""
    secret_key, property_ = key
    remote = {"key": ref.key, **({"property": property_} if property_ is not None else {})}
    return {
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": {"name": name, "namespace": namespace_},
        "spec": {
            "refreshInterval": "1h",
            "secretStoreRef": {"name": ref.store, "kind": ref.store_kind},
            "target": {
                "name": name,
                "creationPolicy": "Owner",
                "deletionPolicy": "Retain",
                "template": {
                    "engineVersion": "v2",
                    "mergePolicy": "Replace",
                    "metadata": {"labels": labels} if labels else {},
                },
            },
            "data": [{"secretKey": secret_key, "remoteRef": remote}],
        },
    }


def git_repository(fleet: Fleet) -> dict[str, Any]:
    """The GitRepository of ``FluxOptions.source`` (`source_file` checks that it is set)."""
    source = fleet.flux.source
    assert source is not None
    ref = source_ref(fleet)
    return remote_source(source, ref["name"], ref["namespace"])


def remote_source(source: RemoteSource, name: str, namespace_: str) -> dict[str, Any]:
    """A GitRepository or OCIRepository named ``name`` reading ``source``.

    A Git ``revision`` of 40 hex digits is a commit, any other a tag, else the branch is
    followed. An OCIRepository takes Flux's default layer (the first, extracted).
    """
    spec: dict[str, Any] = {"interval": SOURCE_INTERVAL, "url": source.url}
    if isinstance(source, OciSource):
        spec["ref"] = {"digest": source.digest} if source.digest else {"tag": source.tag}
        kind = "OCIRepository"
    else:
        spec["ref"] = (
            {"commit" if source.commit else "tag": source.revision}
            if source.revision
            else {"branch": source.branch}
        )
        if source.secret_ref:
            spec["secretRef"] = {"name": source.secret_ref}
        kind = "GitRepository"
    return {
        "apiVersion": SOURCE_API,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace_},
        "spec": spec,
    }


def source_file(fleet: Fleet, directory: str) -> list[OutputFile]:
    """``<directory>/source.yaml`` with the GitRepository of ``FluxOptions.source``, if set."""
    if fleet.flux.source is None:
        return []
    return [
        OutputFile(
            f"{directory}/source.yaml",
            (git_repository(fleet),),
            comment="The repository the Kustomizations read (FluxOptions.source).",
        )
    ]
