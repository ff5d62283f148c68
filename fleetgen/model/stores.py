"""References to secret stores: where credentials live, read by External Secrets Operator."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fleetgen.model.base import Spec
from fleetgen.model.fields import ObjectName


class ExternalSecretRef(Spec):
    """Credentials kept in a secret store, pulled by External Secrets Operator.

    For a cluster, the store entry ``key`` holds Argo CD's cluster config JSON (in ``property``
    when set, else the whole entry); a Flux hub reads the spoke's kubeconfig from the entry's
    ``kubeconfig`` property. In Fleet.default_credentials, ``key`` may use ``{cluster}``, ``{env}``.
    For a notification channel (`Slack`, `Teams`, `Webhook`, `GitHubStatus`), the entry (its
    ``property`` when set) holds the channel's address or token, which Flux reads.

    Attributes:
        store: The (Cluster)SecretStore to read from.
        key: The store entry ({cluster}, {env} are filled in for default_credentials).
        store_kind: SecretStore or ClusterSecretStore.
        property: The entry's property holding the cluster config (or the channel's address or
            token); None: the whole entry.
    """

    store: ObjectName
    key: str = Field(min_length=1)
    store_kind: Literal["SecretStore", "ClusterSecretStore"] = "ClusterSecretStore"
    property: str | None = None
