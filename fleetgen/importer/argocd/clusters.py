"""Argo CD's clusters: each cluster Secret a cluster (its labels kept, its credentials never
read: an identity that holds no secret is taken, any other is for the user to put in a store),
and each destination no Secret registers a cluster of its own."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from fleetgen.errors import UsageError
from fleetgen.importer.argocd.common import ENV_KEYS, Cluster, Reader
from fleetgen.importer.draft import STORE, STORE_KEY, ClusterDraft, env_name
from fleetgen.importer.repo import Doc, mapping
from fleetgen.model.clusters import IN_CLUSTER
from fleetgen.model.fields import ca_bundle, to_dns_label
from fleetgen.rules.argocd import SECRET_TYPE
from fleetgen.scaffold.snippets import credentials_call
from fleetgen.util.templating import Call

IN_CLUSTER_NAME = "in-cluster"  # Argo CD's name of the cluster it runs on (KubernetesInClusterName)
# Annotations of a cluster Secret not kept: Argo CD's and kubectl's own.
_NOT_COPIED = ("argocd.argoproj.io/", "kubectl.kubernetes.io/")


def is_cluster_secret(doc: Doc) -> bool:
    """Whether ``doc`` is a Secret registering a cluster with Argo CD."""
    labels = mapping(doc.meta.get("labels"))
    return doc.kind == "Secret" and doc.group == "" and labels.get(SECRET_TYPE) == "cluster"


def register(reader: Reader, doc: Doc) -> None:
    """A cluster Secret: name, server and labels; its credentials a finding."""
    draft = reader.draft
    fields = {key: _secret_value(doc, key) for key in ("name", "server")}
    server, raw = fields["server"], fields["name"] or ""
    if not server:
        draft.findings.append(
            doc.finding("cluster Secret without a server", "add the cluster by hand")
        )
        return
    labels = {str(k): str(v) for k, v in mapping(doc.meta.get("labels")).items()}
    annotations = {str(k): str(v) for k, v in mapping(doc.meta.get("annotations")).items()}
    kept = {k: v for k, v in labels.items() if not k.startswith("argocd.argoproj.io/")}
    notes = {k: v for k, v in annotations.items() if not k.startswith(_NOT_COPIED)}
    name = to_dns_label(raw or doc.name, "cluster")
    named = next((kept[key] for key in ENV_KEYS if kept.get(key)), None)
    env = to_dns_label(named or env_name(name), name)
    credentials, ca_data = _identity(_secret_value(doc, "config"), name)
    cluster = ClusterDraft(
        name,
        env,
        server.rstrip("/"),
        doc,
        tuple(sorted(kept.items())),
        credentials,
        ca_data,
        tuple(sorted(notes.items())),
    )
    reader.clusters[cluster.server] = Cluster(cluster, raw or doc.name, labels, annotations)
    draft.clusters.append(cluster)
    if _secret_value(doc, "project"):
        draft.findings.append(
            doc.finding(
                f"cluster Secret {doc.name!r}: scoped to a project",
                "fleetgen registers clusters for every project: limit the project's "
                "destinations instead (Project(destinations=...))",
            )
        )
    if server.rstrip("/") != IN_CLUSTER and credentials is None:
        draft.findings.append(
            doc.finding(
                f"cluster Secret {doc.name!r}: its credentials are not copied",
                f"put its connection config (Argo CD's cluster config JSON) in the store "
                f"{STORE!r} under {STORE_KEY.format(cluster=name)!r}, as "
                "Fleet(default_credentials=...) says, or set Cluster(credentials=...)",
            )
        )


def destination_cluster(reader: Reader, origin: Doc, destination: Mapping[str, Any]) -> Cluster:
    """The cluster a destination names, found as Argo CD finds it (a cluster of its own when
    no Secret registers it): by its server, else by its name (argo-cd util/argo
    ``GetDestinationServer``), ``in-cluster`` being the cluster Argo CD runs on while no Secret
    takes that name (util/db ``GetClusterServersByName``)."""
    server = _destination_server(reader, origin, destination)
    found = reader.clusters.get(server)
    if found is not None:
        return found
    name = (
        IN_CLUSTER_NAME
        if server == IN_CLUSTER
        else to_dns_label(server.removeprefix("https://").split(".")[0].split(":")[0], "cluster")
    )
    called = str(destination.get("name") or name)
    made = Cluster(ClusterDraft(name, env_name(name), server, origin), called, {}, {}, listed=False)
    reader.clusters[server] = made
    reader.draft.clusters.append(made.draft)
    return made


def _destination_server(reader: Reader, origin: Doc, destination: Mapping[str, Any]) -> str:
    """The API server a destination names: its ``server``; else that of the Secret of its
    ``name``, the in-cluster server for ``in-cluster`` (or no destination), a placeholder (a
    finding) for a name no Secret here has."""
    server = str(destination.get("server") or "").rstrip("/")
    name = str(destination.get("name") or "")
    if server:
        return server
    named = next((c for c in reader.clusters.values() if c.name == name), None)
    if named is not None:
        return named.draft.server
    if name in ("", IN_CLUSTER_NAME):
        return IN_CLUSTER
    reader.draft.findings.append(
        origin.finding(
            f"destination cluster {name!r} has no cluster Secret here", "set its server in fleet.py"
        )
    )
    return f"https://{to_dns_label(name, 'cluster')}.invalid"


def local_cluster(reader: Reader) -> Cluster:
    """The cluster Argo CD runs on as the cluster generator adds it without a Secret
    (applicationset generators/cluster.go ``GenerateParams``: name ``in-cluster``, no
    metadata)."""
    found = reader.clusters.get(IN_CLUSTER)
    if found is not None:
        return found
    draft = ClusterDraft(IN_CLUSTER_NAME, env_name(IN_CLUSTER_NAME), IN_CLUSTER, Doc(".", 0, {}))
    return Cluster(draft, IN_CLUSTER_NAME, {}, {}, listed=False)


def store_credentials(reader: Reader) -> None:
    """``Fleet(default_credentials=...)`` naming the store of the clusters whose credentials were
    not copied, when there are any (another tool's registrations need none)."""
    drafts = [c.draft for c in reader.clusters.values() if not c.external]
    if any(d.server != IN_CLUSTER and d.credentials is None for d in drafts):
        reader.draft.from_store()


def _identity(config: str | None, cluster: str) -> tuple[Call | None, str | None]:
    """(The credentials, the CA) of a cluster config that holds no secret: an IAM role
    (``awsAuthConfig``) or a GCP/Azure workload identity (``execProviderConfig`` running
    ``argocd-k8s-auth``), as ``add cluster --credentials`` takes them. None for any other, or
    one those do not take: its material is never read further."""
    try:
        parsed = json.loads(config or "")
    except ValueError:
        return None, None
    aws, run = (
        mapping(mapping(parsed).get("awsAuthConfig")),
        mapping(parsed.get("execProviderConfig")),
    )
    tls = mapping(parsed.get("tlsClientConfig"))
    material = {"bearerToken", "password", "username"} & set(parsed) or {
        "certData",
        "keyData",
    } & set(tls)
    credentials = None
    if aws.get("roleARN") and not material:
        credentials = f"aws:{aws['roleARN']}:{aws.get('clusterName') or cluster}"
    elif run.get("command") == "argocd-k8s-auth" and run.get("args") in (["gcp"], ["azure"]):
        credentials = None if material or run.get("env") else f"exec:{run['args'][0]}"
    ca = tls.get("caData")
    if credentials is None or not ca:  # fleetgen needs the CA with these (Argo CD verifies)
        return None, None
    try:
        return credentials_call(credentials, cluster), ca_bundle(str(ca))
    except (UsageError, ValueError):
        return None, None


def _secret_value(doc: Doc, key: str) -> str | None:
    """A cluster Secret's ``name``, ``server`` or ``config`` (`_identity` reads only what holds
    no secret in it)."""
    text = mapping(doc.obj.get("stringData")).get(key)
    if text is not None:
        return str(text)
    data = mapping(doc.obj.get("data")).get(key)
    try:
        return base64.b64decode(str(data), validate=True).decode() if data else None
    except (binascii.Error, UnicodeDecodeError):
        return None
