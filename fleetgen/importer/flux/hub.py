"""Flux hub and spoke: one cluster's Flux (the hub) applying to others through ``kubeConfig``.

kustomize-controller reconciles a Kustomization with ``spec.kubeConfig`` on the cluster its
kubeconfig reaches: ``KustomizationReconciler.reconcile`` builds its client with
``runtimeClient.WithKubeConfig(obj.Spec.KubeConfig, ..., obj.GetNamespace(), ...)`` (the Secret or
ConfigMap read in the Kustomization's own namespace) and ``Impersonator.GetClient``, which also
impersonates ``serviceAccountName`` there; without either it applies as itself
(``getClientAndPoller``). helm-controller does the same for a HelmRelease. So a namespace holding
a kubeconfig Secret on the hub stands for one spoke: import makes it a cluster named after the
namespace, and the fleet ``FluxOptions(mode="hub", hub=...)``, whose output does the same
(`fleetgen.emit.flux.hub`: a spoke's Kustomizations and releases in a namespace named after it
on the hub, with ``kubeConfig``).

A spoke's credentials: an ExternalSecret of the repository that makes the kubeconfig Secret
becomes ``ExternalSecretRef(store, key)`` (fleetgen reads the entry's ``kubeconfig`` property);
a Secret made outside the repository, or kept in it (SOPS), cannot: the fleet reads it through
``default_credentials`` from a store the user fills in (a finding). The spoke's API server is in
its kubeconfig, never in the repository: a placeholder (a finding)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from fleetgen.emit.flux.hub import KUBECONFIG_PROPERTY
from fleetgen.importer.draft import STORE, STORE_KEY, ClusterDraft, Draft, env_name
from fleetgen.importer.findings import unmapped
from fleetgen.importer.flux.common import Walk
from fleetgen.importer.repo import Doc, at, mapping, mappings
from fleetgen.model.fields import to_dns_label
from fleetgen.util.templating import Call

EXTERNAL_SECRETS = "external-secrets.io"
_SERVER = "set Cluster(server=...) to its API server (a placeholder now)"
# What import reads of the ExternalSecret of a kubeconfig (fleetgen's refreshes every 1h).
_EXTERNAL_MAPPED: dict[str, tuple[str, ...]] = {
    "secretStoreRef": (),
    "target": ("name", "creationPolicy"),
    "data": (),
}


def cluster_of(walk: Walk, doc: Doc) -> str | None:
    """The cluster a Kustomization or HelmRelease applies to: the walk's own, or the spoke its
    ``kubeConfig`` reaches (registered the first time); None (a finding) when fleetgen's hub
    cannot reach it that way."""
    kube = mapping(doc.spec.get("kubeConfig"))
    if not kube:
        return walk.cluster
    hub = walk.draft.flux.kwargs["hub"] if walk.draft.flux is not None else None
    why = None
    if hub not in (None, walk.cluster):
        why = f"the hub is {hub!r}, and fleetgen's fleet has one hub"
    elif doc.namespace in ("", walk.namespace):
        why = "fleetgen's hub keeps each spoke's objects in a namespace of its own, not Flux's"
    if why:
        walk.draft.findings.append(
            doc.finding(
                f"{doc.kind} {doc.name!r}: kubeConfig not mapped ({why})",
                "add the apps of that cluster by hand",
                ("spec", "kubeConfig"),
            )
        )
        return None
    walk.draft.flux = Call("FluxOptions", {"mode": "hub", "hub": walk.cluster})
    return _spoke(walk, doc, kube)


def is_kubeconfig(walk: Walk, doc: Doc) -> bool:
    """Whether ``doc`` (applied on the hub) is what makes a spoke's kubeconfig Secret, which
    fleetgen writes itself (an ExternalSecret) or reads from the store."""
    target = at(doc.spec, "target", "name") if doc.kind == "ExternalSecret" else None
    made = (doc.namespace, str(target or doc.name))
    return doc.kind in ("ExternalSecret", "Secret") and made in walk.spokes.values()


def other_clusters(draft: Draft, folders: Mapping[str, Doc]) -> None:
    """The clusters of a folder of their own beside a hub, which fleetgen's hub drives as
    spokes: reached with the store's credentials at a placeholder server, a finding each."""
    if draft.flux is None:
        return
    hub = draft.flux.kwargs["hub"]
    for index, cluster in enumerate(draft.clusters):
        folder = next((f for f, doc in folders.items() if doc is cluster.origin), None)
        if folder is None or cluster.name == hub:
            continue
        draft.clusters[index] = replace(cluster, server=f"https://{cluster.name}.invalid")
        draft.from_store()
        draft.findings.append(
            cluster.origin.finding(
                f"cluster {cluster.name!r} runs its own Flux (its folder {folder}) beside the "
                f"hub {hub!r}",
                "in hub mode fleetgen's hub applies to every cluster: put its kubeconfig in the "
                f"store {STORE!r} under {STORE_KEY.format(cluster=cluster.name)!r}, property "
                f"{KUBECONFIG_PROPERTY!r}, and {_SERVER}; or import its folder on its own",
            )
        )


def _spoke(walk: Walk, doc: Doc, kube: Mapping[str, Any]) -> str:
    """The spoke of ``doc``'s namespace, registered with its credentials the first time."""
    name = to_dns_label(doc.namespace, "cluster")
    secret = (doc.namespace, str(at(kube, "secretRef", "name") or ""))
    known = walk.spokes.get(name)
    if known is None:
        walk.spokes[name] = secret
        credentials = _credentials(walk, doc, name, kube)
        walk.draft.clusters.append(
            ClusterDraft(
                name, env_name(name), f"https://{name}.invalid", doc, credentials=credentials
            )
        )
    elif known != secret:
        walk.draft.findings.append(
            doc.finding(
                f"{doc.kind} {doc.name!r}: another kubeConfig than the first of spoke {name!r}",
                "fleetgen reaches a spoke with one kubeconfig: check they reach one cluster",
                ("spec", "kubeConfig"),
            )
        )
    return name


def _credentials(walk: Walk, doc: Doc, spoke: str, kube: Mapping[str, Any]) -> Call | None:
    """``ExternalSecretRef(...)`` of the ExternalSecret that makes the spoke's kubeconfig Secret,
    else None (the store of ``default_credentials``): each with a finding."""
    secret = str(at(kube, "secretRef", "name") or "")
    key = str(at(kube, "secretRef", "key") or "value")
    made = _made_by(walk, doc.namespace, secret)
    if secret and made is not None and made.kind == "ExternalSecret":
        ref = _external_ref(walk, made, key)
        if ref is not None:
            walk.draft.findings.append(
                doc.finding(
                    f"spoke {spoke!r}: its API server is in its kubeconfig",
                    _SERVER,
                    ("spec", "kubeConfig"),
                )
            )
            return ref
    if not secret:
        what = "reached by workload identity (kubeConfig.configMapRef)"
    elif made is None:
        what = f"its kubeconfig Secret {secret!r} is made outside the repository"
    elif made.kind == "ExternalSecret":
        what = f"its kubeconfig Secret {secret!r} is made by an ExternalSecret import cannot read"
    else:
        what = f"its kubeconfig Secret {secret!r} is kept in the repository ({made.file})"
    walk.draft.from_store()
    walk.draft.findings.append(
        doc.finding(
            f"spoke {spoke!r}: {what}",
            f"put its kubeconfig in the store {STORE!r} under "
            f"{STORE_KEY.format(cluster=spoke)!r}, property {KUBECONFIG_PROPERTY!r}, as "
            f"Fleet(default_credentials=...) says, or set Cluster(credentials=...); and "
            f"{_SERVER}",
            ("spec", "kubeConfig"),
        )
    )
    return None


def _made_by(walk: Walk, namespace: str, secret: str) -> Doc | None:
    """The ExternalSecret or Secret of the repository that makes Secret ``secret`` there."""
    for doc in walk.repo.docs:
        if doc.namespace != namespace:
            continue
        if doc.is_(EXTERNAL_SECRETS, "ExternalSecret"):
            if str(at(doc.spec, "target", "name") or doc.name) == secret:
                return doc
        elif doc.kind == "Secret" and doc.group == "" and doc.name == secret:
            return doc
    return None


def _external_ref(walk: Walk, secret: Doc, key: str) -> Call | None:
    """``ExternalSecretRef(store, key)`` of an ExternalSecret whose ``key`` entry reads a store
    entry's ``kubeconfig`` property (None, a finding, for any other)."""
    store = mapping(secret.spec.get("secretStoreRef"))
    entry = next(
        (
            mapping(item.get("remoteRef"))
            for item in mappings(secret.spec.get("data"))
            if item.get("secretKey") == key
        ),
        {},
    )
    if not store.get("name") or not entry.get("key"):
        return None
    spec = {k: v for k, v in secret.spec.items() if (k, v) != ("refreshInterval", "1h")}
    walk.draft.findings += unmapped(secret, _EXTERNAL_MAPPED, {}, spec)
    fields: dict[str, Any] = {"store": str(store["name"]), "key": str(entry["key"])}
    if store.get("kind", "SecretStore") != "ClusterSecretStore":
        fields["store_kind"] = "SecretStore"  # External Secrets' default kind
    if entry.get("property") != KUBECONFIG_PROPERTY:
        walk.draft.findings.append(
            secret.finding(
                f"ExternalSecret {secret.name!r}: the kubeconfig is not the entry's "
                f"{KUBECONFIG_PROPERTY!r} property",
                f"fleetgen's hub reads it from property {KUBECONFIG_PROPERTY!r} of "
                f"{entry['key']!r}: store it there",
                ("spec", "data"),
            )
        )
    return Call("ExternalSecretRef", fields)
