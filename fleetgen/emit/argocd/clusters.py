"""Cluster registrations ``argocd/clusters/<cluster>.yaml``: Argo CD cluster Secrets.

IAM and exec-plugin credentials carry no secret material, so the Secret itself is committed,
with the cluster's CA (``Cluster(ca_data=...)``, which `fleetgen.emit.argocd.check` requires) or
``insecure: true``. An `ExternalSecretRef` becomes an ExternalSecret that builds the same Secret
from the store.

Registrations carry no sync wave: they sync in the root Application's last wave, together with the
ApplicationSets, so an unhealthy one (an ExternalSecret whose store entry is missing) never holds
back the rest of ``argocd/`` (see `fleetgen.emit.argocd.bootstrap.REGISTRATION_NOTE`).
"""

from __future__ import annotations

import json
from typing import Any

from fleetgen.emit.argocd.common import go_text, go_tree, metadata
from fleetgen.emit.common import registration_labels, var_annotations
from fleetgen.inputs.record import cluster_drain
from fleetgen.model import AwsAuth, Cluster, ExecAuth, ExternalSecretRef
from fleetgen.resolver.plan import Plan
from fleetgen.rules.argocd import server_url
from fleetgen.write.output import OutputFile

IN_CLUSTER_NOTE = (
    "No secret material: Argo CD reaches it with its own ServiceAccount. The Secret\n"
    "exists so that ApplicationSet cluster generators can select it by its labels."
)
CONFIG_EXAMPLE = '{"bearerToken": "...", "tlsClientConfig": {"caData": "<base64 PEM>"}}'


def registration(plan: Plan, cluster: Cluster) -> OutputFile:
    """The file registering ``cluster`` with Argo CD, kept while its Applications delete
    (argo-cd ``finalizeApplicationDeletion`` drops the cascade of a cluster it cannot find)."""
    return _registration(plan, cluster).draining_as(cluster_drain(cluster.name))


def _registration(plan: Plan, cluster: Cluster) -> OutputFile:
    credentials = plan.credentials[cluster.name]
    path = f"argocd/clusters/{cluster.name}.yaml"
    what = f"Argo CD registration of cluster {cluster.name} (environment {cluster.env})"
    if credentials is None:
        assert cluster.in_cluster, "resolve requires credentials for other clusters"
        return OutputFile(
            path,
            (_secret(plan, cluster, None),),
            comment=f"{what}: the cluster Argo CD runs on.\n{IN_CLUSTER_NOTE}",
        )
    if isinstance(credentials, ExternalSecretRef):
        return OutputFile(
            path,
            (_external_secret(plan, cluster, credentials),),
            comment=f"{what},\nbuilt by External Secrets. {_store_note(credentials)}",
        )
    insecure = (
        "\ninsecure: Argo CD does not verify this API server's certificate."
        if cluster.insecure
        else ""
    )
    return OutputFile(
        path,
        (_secret(plan, cluster, credentials),),
        comment=f"{what}.\nNo secret material: {_auth_note(credentials)}.{insecure}",
    )


def _secret_name(cluster: Cluster) -> str:
    """Name of the registration Secret (and of the ExternalSecret that makes it)."""
    return f"cluster-{cluster.name}"


def _secret(plan: Plan, cluster: Cluster, credentials: AwsAuth | ExecAuth | None) -> dict[str, Any]:
    """A cluster's registration Secret: name, server, labels, and the ``config`` that reaches it
    with ``credentials`` (no material).

    Without credentials (the cluster Argo CD runs on) there is no ``config``: Argo CD reads a
    cluster Secret without it as an empty config (``db.SecretToCluster`` unmarshals ``config``
    only when present), and for the server https://kubernetes.default.svc without username,
    password or bearer token connects with its own in-cluster ServiceAccount
    (``Cluster.RawRestConfig``).
    """
    data = {"name": cluster.name, "server": server_url(cluster.server)}
    if credentials is not None:
        config = _config(cluster, credentials, plan.ca_data.get(cluster.name))
        data["config"] = json.dumps(config, indent=2, sort_keys=True)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": metadata(
            _secret_name(cluster),
            plan.fleet.argocd.namespace,
            labels=registration_labels(plan, cluster),
            annotations=_annotations(cluster),
        ),
        "type": "Opaque",
        "stringData": data,
    }


def _config(
    cluster: Cluster, credentials: AwsAuth | ExecAuth, ca_data: str | None
) -> dict[str, Any]:
    """Argo CD's cluster ``config`` for credentials that hold no material (``ca_data``: the
    cluster's CA bundle, `Plan.ca_data`).

    Argo CD builds the REST config's TLS settings from ``tlsClientConfig`` alone
    (``Cluster.RawRestConfig``): without ``caData`` the API server is verified against the
    system trust store, which a managed cluster's own CA is not in.
    """
    verify = {"caData": ca_data} if ca_data else {"insecure": True} if cluster.insecure else {}
    tls = {"tlsClientConfig": verify} if verify else {}
    if isinstance(credentials, AwsAuth):
        return {
            "awsAuthConfig": {
                "clusterName": credentials.cluster_name,
                "roleARN": credentials.role_arn,
            }
        } | tls
    exec_config: dict[str, Any] = {
        "command": credentials.command,
        "args": credentials.args,
        "apiVersion": credentials.api_version,
    }
    if credentials.env:
        exec_config["env"] = credentials.env
    return {"execProviderConfig": exec_config} | tls


def _external_secret(plan: Plan, cluster: Cluster, ref: ExternalSecretRef) -> dict[str, Any]:
    remote = {"key": ref.key} | ({"property": ref.property} if ref.property else {})
    # template.metadata is explicit, so the ExternalSecret's own metadata (Argo CD tracking
    # annotations) never reaches the Secret. ESO renders it and template.data as Go templates.
    template = {
        "engineVersion": "v2",
        "mergePolicy": "Replace",
        "type": "Opaque",
        "metadata": go_tree(
            {"labels": registration_labels(plan, cluster), "annotations": _annotations(cluster)}
        ),
        "data": {
            "name": go_text(cluster.name),
            "server": go_text(server_url(cluster.server)),
            "config": "{{ .config }}",
        },
    }
    return {
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": metadata(_secret_name(cluster), plan.fleet.argocd.namespace),
        "spec": {
            "refreshInterval": "1h",
            "secretStoreRef": {"name": ref.store, "kind": ref.store_kind},
            "target": {
                "name": _secret_name(cluster),
                "creationPolicy": "Owner",
                "deletionPolicy": "Retain",
                "template": template,
            },
            "data": [{"secretKey": "config", "remoteRef": remote}],
        },
    }


def _annotations(cluster: Cluster) -> dict[str, str]:
    """The registration's annotations: the cluster's own and its vars' (`var_annotations`),
    which an ApplicationSet selecting clusters at run time reads. Changing one costs no resync:
    Argo CD's controller rebuilds a cluster's cache on a change of its config, namespaces or
    cluster resources, not of its annotations (``liveStateCache.handleModEvent``)."""
    return dict(sorted({**cluster.annotations, **var_annotations(cluster)}.items()))


def _store_note(ref: ExternalSecretRef) -> str:
    where = f"property {ref.property!r} of " if ref.property else ""
    return (
        f"Expected in {ref.store_kind} {ref.store}:\n{where}entry {ref.key!r} holds Argo CD's "
        f"cluster config JSON, e.g.\n{CONFIG_EXAMPLE}\n"
        "The Secret's name, server and labels come from fleet.py."
    )


def _auth_note(credentials: AwsAuth | ExecAuth) -> str:
    if isinstance(credentials, AwsAuth):
        return f"Argo CD assumes the IAM role {credentials.role_arn}"
    return f"Argo CD runs {' '.join([credentials.command, *credentials.args])} for a token"
