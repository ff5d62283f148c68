"""What reading an Argo CD repository keeps while the object kinds are read: the draft it fills
in, the clusters as the cluster generator sees them, this repository's URLs as sources name it,
and how YAML list entries become spec calls."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fleetgen.importer.draft import ClusterDraft, Draft
from fleetgen.importer.repo import Repo
from fleetgen.util.templating import Call

ARGO = "argoproj.io"
CLUSTER_PARAMS = ("name", "nameNormalized", "server", "project")


@dataclass(slots=True)
class Cluster:
    """A cluster as the cluster generator sees it: its Secret's name, server and metadata;
    ``listed``: the generator lists it (a Secret registers it, not only a destination)."""

    draft: ClusterDraft
    name: str  # as the Secret writes it (the generator's `name`)
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    listed: bool = True

    def params(self) -> dict[str, str]:
        """The cluster generator's parameters, flat as fasttemplate has them."""
        found = {
            "name": self.name,
            "nameNormalized": re.sub(r"[^-a-z0-9.]", "-", self.name.lower()),
            "server": self.draft.server,
            "project": "",
        }
        found |= {f"metadata.labels.{k}": v for k, v in self.labels.items()}
        found |= {f"metadata.annotations.{k}": v for k, v in self.annotations.items()}
        return found


@dataclass(slots=True)
class Reader:
    """An Argo CD repository being read into ``draft``."""

    repo: Repo
    draft: Draft
    clusters: dict[str, Cluster] = field(default_factory=dict)  # by server
    urls: Counter[str] = field(default_factory=Counter)  # this repository's URLs as sources say
    namespaces_created: list[bool] = field(default_factory=list)
    renamed: bool = False  # the built-in project was renamed (said once)


def spec_call(kind: str, item: Mapping[str, Any], keys: tuple[tuple[str, str], ...]) -> Call:
    """``kind(...)`` of the fields ``item`` sets, named as ``keys`` say."""
    return Call(kind, {name: item[key] for key, name in keys if item.get(key)})
