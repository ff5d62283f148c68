"""Flux bootstrap's own objects in a cluster folder (``NAME/flux-system/``): the GitRepository
and Kustomization `flux bootstrap` wrote, which fleetgen leaves to it. Bootstrapped again on
fleetgen's output, it writes them anew as flux2 ``pkg/manifestgen/sync`` ``Generate`` does with
``MakeDefaultOptions`` and the command's flags: the repository and branch (``Fleet(repo=...,
revision=...)``, the command `fleetgen.emit.common.flux_bootstrap` prints), the output's path,
and defaults for the rest. So the branch is the fleet's revision, and every other field that
bootstrap would not write alike, and every other Flux object in that folder, is a finding: a
``wait`` with its own reason (fleetgen's gates wait for that Kustomization)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from fleetgen.importer.draft import Draft
from fleetgen.importer.findings import Finding
from fleetgen.importer.flux.common import ROOT
from fleetgen.importer.repo import Doc, Repo
from fleetgen.resolver.timing import seconds

_MAPPED = None  # a field fleet.py carries (repo, revision) or the cluster folder (path)
# What bootstrap writes, by kind: each field's path and value, and the flag that sets it.
_WRITTEN: dict[str, dict[tuple[str, ...], tuple[Any, str]]] = {
    "GitRepository": {
        ("url",): (_MAPPED, "--url"),
        ("ref", "branch"): (_MAPPED, "--branch"),
        ("interval",): ("1m", "--interval"),
        ("secretRef", "name"): (ROOT, "--secret-name"),
    },
    "Kustomization": {
        ("path",): (_MAPPED, "--path"),
        ("interval",): ("10m", ""),
        ("prune",): (True, ""),
        ("sourceRef", "kind"): ("GitRepository", ""),
        ("sourceRef", "name"): (ROOT, ""),
    },
}
_TODO = (
    "fleetgen's output is applied by the objects flux bootstrap writes anew: pass {flag} to "
    "flux bootstrap, or patch them in its flux-system/kustomization.yaml"
)

# A root that waits: fleetgen's gates (`fleetgen.emit.flux.dependencies`) dependsOn it.
_WAITING = (
    "Kustomization {name!r} (flux bootstrap's): spec.wait true: the gate Kustomization of a "
    "chart app that other apps depend on waits for this one to be Ready, and this one, waiting "
    "for all it applies, for the gate: neither is ever Ready and those apps never apply"
)
_NO_WAIT = (
    "drop the wait from its flux-system/kustomization.yaml (flux bootstrap writes none): "
    "each app's Kustomization waits for what it applies"
)


def bootstrap(repo: Repo, draft: Draft, folders: Mapping[str, Doc]) -> None:
    """The fleet's revision (the branch of the first cluster's bootstrap GitRepository, when
    not ``main``), and a finding for each field of bootstrap's objects it would not write alike
    and for each other Flux object of their folders."""
    docs = [d for f in folders for d in repo.under(f"{f}/{ROOT}") if d.group.endswith("fluxcd.io")]
    branches = [str(d.spec["ref"]["branch"]) for d in docs if _branch(d)]
    if branches and branches[0] != "main":
        draft.revision = branches[0]
    for doc in docs:
        if doc.name == ROOT and doc.kind in _WRITTEN:
            draft.findings += _fields(doc, draft)
        else:
            draft.findings.append(
                doc.finding(
                    f"Flux {doc.kind} {doc.name!r} not mapped (in flux bootstrap's folder "
                    f"{ROOT}/, which fleetgen leaves to it)",
                    "move it into the cluster folder and rerun import",
                )
            )


def _branch(doc: Doc) -> bool:
    """Whether ``doc`` is bootstrap's GitRepository, reading a branch."""
    ref = doc.spec.get("ref")
    return doc.kind == "GitRepository" and isinstance(ref, Mapping) and "branch" in ref


def _fields(doc: Doc, draft: Draft) -> list[Finding]:
    """Findings for the fields of a bootstrap object bootstrap would not write alike."""
    written = _WRITTEN[doc.kind]
    found = []
    if doc.namespace not in ("", ROOT):
        found.append(
            doc.finding(
                f"{doc.kind} {doc.name!r} (flux bootstrap's): Flux runs in namespace "
                f"{doc.namespace!r}",
                f"set Fleet(flux=FluxOptions(namespace={doc.namespace!r}))",
                ("metadata", "namespace"),
            )
        )
    for path, value in _leaves(doc.spec):
        expected, flag = written.get(path, (None, "the flag for it"))
        if doc.kind == "Kustomization" and path == ("wait",) and value is True:
            found.append(doc.finding(_WAITING.format(name=doc.name), _NO_WAIT, ("spec", "wait")))
            continue
        if path not in written or (expected is not None and not _alike(value, expected)):
            said = f"spec.{'.'.join(path)} {value!r} is not what flux bootstrap writes"
        elif path == ("url",) and value != draft.repo:
            said = f"spec.url reads another repository than the fleet's ({draft.repo})"
        elif path == ("ref", "branch") and value != (draft.revision or "main"):
            said = f"spec.ref.branch {value!r} is another branch than the fleet's revision"
        else:
            continue
        todo = _TODO.format(flag=flag or "nothing (it writes this always)")
        what = f"{doc.kind} {doc.name!r} (flux bootstrap's): {said}"
        found.append(doc.finding(what, todo, ("spec", *path)))
    return found


def _alike(value: Any, expected: Any) -> bool:
    """Whether ``value`` is what bootstrap writes (durations as spans of time)."""
    if isinstance(expected, str) and expected[:1].isdigit():
        return seconds(str(value)) == seconds(expected)
    return bool(value == expected) and type(value) is type(expected)


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, value) of each leaf of a spec (a list is a leaf)."""
    if isinstance(value, Mapping) and value:
        for key, item in value.items():
            yield from _leaves(item, (*path, str(key)))
    else:
        yield path, value
