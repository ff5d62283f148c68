"""Which kinds are cluster-scoped: Kubernetes' own (a fixed list) and custom kinds by the scope of
their CRD, where fleetgen knows it (well-known ``*.k8s.io`` CRDs such as Gateway API's, the
shipped CRDs, the user's, CRDs rendered by the bases). A kind in none of them has no known scope:
the checks that need it pass it by.

A cluster-scoped object that carries ``metadata.namespace`` is what kustomize's namespace rewrite
leaves on custom kinds it does not know (it knows only the built-in ones).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from fleetgen.manifests.k8s import CLUSTER_SCOPED, CRD_SCOPES, crd_scope
from fleetgen.manifests.yamlio import load_all

GroupKind = tuple[str, str]
Scopes = Mapping[GroupKind, bool]  # (group, kind) -> cluster-scoped

CORE: Scopes = dict.fromkeys(CLUSTER_SCOPED, True)  # the built-in kinds

__all__ = ["CORE", "GroupKind", "Scopes", "crd_scope", "from_docs", "known"]


def from_docs(docs: Iterable[Any]) -> dict[GroupKind, bool]:
    """The scopes of the CRDs among ``docs``."""
    return dict(
        found for doc in docs if isinstance(doc, dict) and (found := crd_scope(doc)) is not None
    )


def known(crd_files: Iterable[Path]) -> dict[GroupKind, bool]:
    """Core kinds, well-known ``*.k8s.io`` custom kinds, the CRDs fleetgen ships, then the
    user's CRD files (later wins)."""
    scopes = {**CORE, **CRD_SCOPES}
    root = resources.files("fleetgen") / "schemas"
    for folder in sorted(root.iterdir(), key=lambda entry: entry.name):
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
            if entry.name.endswith(".json"):
                document = json.loads(entry.read_bytes())
                for key in document["schemas"]:
                    api_version, kind = key.split(" ")
                    scopes[(api_version.rpartition("/")[0], kind)] = document["scope"] == "Cluster"
    for path in crd_files:
        scopes.update(from_docs(load_all(path.read_bytes())))
    return scopes
