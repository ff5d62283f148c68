"""Config hashes: what makes a config change restart exactly the pods that read it.

kustomize's ``configMapGenerator`` with ``behavior: merge`` keeps the name of a base ConfigMap
that is a plain resource, so a changed value alone would leave every pod template as it was. Each
workload whose pod template reads a ConfigMap that fleetgen sets values in gets a hash of the
effective data of those ConfigMaps (the base's data with the layers' values merged in) as a pod
template annotation; workloads that read no such ConfigMap get none. `text_hash` also names the
key of a Flux values ConfigMap (`fleetgen.emit.flux.charts`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from fleetgen.inputs.bases import Base

ANNOTATION = "fleetgen.io/config-hash"
HASH_LENGTH = 16  # hex digits of the sha256 kept


def config_hashes(
    base: Base, config: Mapping[str, Mapping[str, str]]
) -> dict[tuple[str, str], str]:
    """(kind, name) of each workload of ``base`` that reads a ConfigMap ``config`` sets values
    in -> the hash of the effective data of those ConfigMaps."""
    if not base.complete:  # renamed or hidden objects: the workloads' names are not known
        return {}
    hashes = {}
    for workload, reads in sorted(base.workloads.items()):
        data = {
            name: {**base.configmap_data.get(name, {}), **config[name]}
            for name in sorted(reads)
            if config.get(name)
        }
        if data:
            hashes[workload] = text_hash(json.dumps(data, sort_keys=True, separators=(",", ":")))
    return hashes


def text_hash(text: str) -> str:
    """The first `HASH_LENGTH` hex digits of the sha256 of ``text``."""
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_LENGTH]
