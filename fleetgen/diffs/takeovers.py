"""diff: the tenants' objects that a renamed cluster's ``<new>.tenants`` takes over from
``<old>.tenants`` on the same server (`fleetgen.settle.takeover`): nothing is deleted.

The new Application's sync applies them over the live ones and re-stamps their tracking id
(argo-cd ``SetAppInstance``); the old one, without a resources finalizer, deletes nothing when
it goes (``finalizeApplicationDeletion`` only when ``CascadedDeletion()``). Where it stays for
accounts still draining, it prunes what left its folder only while the tracking id still names
it (gitops-engine ``syncContext`` prunes the live objects the cache attributes to it): between
its sync and the new one's, an account may be deleted and created again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from fleetgen.diffs.blast import Side
from fleetgen.diffs.notes import named
from fleetgen.diffs.objects import file_objects
from fleetgen.diffs.report import Rename
from fleetgen.settle.takeover import servers_of, tenant_folder
from fleetgen.util.layout import argocd_part


def tenant_takeovers(renames: Iterable[Rename], base: Side, head: Side) -> list[str]:
    """A note per cluster whose tenants' objects another name for its server now applies."""
    before, after = _servers(base), _servers(head)
    taken: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rename in renames:
        old = tenant_folder(rename.old.obj.file)
        new = tenant_folder(rename.new.obj.file)
        if old and new and old != new and before.get(old, "") == after.get(new):
            taken[old, new].append(named(rename.old.obj))
    return [
        f"{', '.join(sorted(objects))} on {old}: taken over by {new}.tenants (same server), "
        "nothing deleted: "
        + (
            f"{old}.tenants, kept for what still drains there, no longer applies them and "
            f"prunes them only if it syncs before {new}.tenants adopts them, which then "
            "creates them again"
            if old in after
            else f"{old}.tenants goes without a resources finalizer, deleting nothing, and "
            f"{new}.tenants' sync adopts them"
        )
        for (old, new), objects in sorted(taken.items())
    ]


def _servers(side: Side) -> dict[str, str]:
    """Cluster -> the server of its ``<cluster>.tenants`` Application on ``side``."""
    return servers_of(
        obj.doc
        for path in side.files
        if argocd_part(path) == "tenants.yaml"
        for obj in file_objects(side.files[path])
    )
