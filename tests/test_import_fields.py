"""Nothing import reads is lost without a word: a mutation walk over the golden repositories.

For every golden case whose repository holds engine objects, every object of the engines' kinds
(every Flux and Argo CD API group, and Argo CD's cluster Secrets) and every leaf field and list
item of it: the repository is imported once as it is and once with that one field changed
(`tests.fieldwalk`). The field is **mapped** when fleet.py or the findings differ, **named**
when the unchanged import has a finding at that object (in its lines, or its file without a
line) whose text names the field's key path or an ancestor of it (``spec.interval``,
``postBuild.substitute``, a key in quotes); anything else is lost, and listed. `ALLOWED` holds
the few fields that legitimately change nothing, with the reason each.

Import runs in this process without its faithfulness check (`fleetgen.importer.run.unchecked`),
with kustomize's builds memoised by what they read (`tests.fieldwalk.memoised`).
"""

from __future__ import annotations

import re
import resource
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from fleetgen.errors import UsageError
from fleetgen.importer.argocd.clusters import is_cluster_secret
from fleetgen.importer.findings import Finding
from fleetgen.importer.repo import Doc, read_repo
from fleetgen.importer.run import ImportRequest, unchecked
from fleetgen.rules import secrets as scanrules
from fleetgen.tools import kustomize
from tests.fieldwalk import Memo, Mutation, mutations

IMPORTS = Path(__file__).parent / "imports"
_ENGINE_GROUPS = ("fluxcd.io", "argoproj.io")  # every API group of Flux's and Argo CD's kinds
# Fields that change nothing by design: (kind, dotted path pattern) -> why.
ALLOWED: dict[tuple[str, str], str] = {
    ("*", r"apiVersion"): "the importer reads every version of a kind alike",
    ("Kustomization", r"metadata\.name"): "one import follows makes no app to name; what "
    "depends on it is mapped",
    ("Secret", r"type"): "Argo CD reads a cluster Secret whatever its type",
    ("Secret", r"metadata\.name"): "a cluster is named by the Secret's name key",
    ("ApplicationSet", r"metadata\.name"): "its apps are named by its template; fleetgen "
    "names its own ApplicationSets",
    ("Alert", r"metadata\.name"): "fleetgen names its own Alerts (<channel>.<events>)",
    (
        "Secret",
        r"(data|stringData)\.(?!(name|server|config|project|namespaces|clusterResources)$).*",
    ): ("a key Argo CD does not read of a cluster Secret (util/db secretToCluster)"),
    ("*", r"metadata\.(creationTimestamp|uid|resourceVersion|generation|managedFields)\b.*"): (
        "written by the API server, which ignores what a manifest says; no engine reads it"
    ),
    ("*", r"status\b.*"): "written by the object's controller, which ignores what a manifest "
    "says; no engine reads it from Git",
    ("ApplicationSet", r"spec\.goTemplateOptions\[\d+\]"): "missingkey= changes only how a key "
    "no parameter set has renders, which import names in either case (an option Go does not know "
    "is a finding: tests.test_import_argocd_fields)",
}
_BUILD = Memo(kustomize.build)


def _walked(doc: Doc) -> bool:
    """Whether the walk mutates ``doc``: an object of the engines' kinds."""
    group = doc.group.split("/")[0]
    return group.endswith(_ENGINE_GROUPS) or is_cluster_secret(doc)


def _engine_cases() -> list[Path]:
    """The golden cases whose repository holds engine objects (not the overlays-only ones)."""
    cases = sorted(p for p in IMPORTS.iterdir() if (p / "repo").is_dir())
    return [case for case in cases if any(map(_walked, read_repo(case / "repo").docs))]


Outcome = tuple[str, tuple[Finding, ...]] | str  # fleet.py's code and findings, or a refusal


def _import(repo: Path) -> Outcome:
    """fleet.py's code (below its findings) and the findings, or why import refused."""
    try:
        done = unchecked(ImportRequest(repo))
    except UsageError as error:
        return str(error)
    code = done.text[done.text.index("from fleetgen import (") :]
    return code, tuple(sorted(set(done.findings)))


def _unlined(outcome: Outcome) -> Outcome:
    """``outcome`` with its findings' lines left out (a removed list item moves them)."""
    if isinstance(outcome, str):
        return outcome
    return outcome[0], tuple(sorted({Finding(f.file, 0, f.what, f.todo) for f in outcome[1]}))


def _keys(path: tuple[str | int, ...]) -> list[str]:
    return [part for part in path if isinstance(part, str)]


def _named(doc: Doc, end: int, mutation: Mutation, findings: tuple[Finding, ...]) -> bool:
    """Whether a finding at ``doc`` names the mutated field or an ancestor (two or more keys
    of its path: ``spec.interval``, ``postBuild.substitute``; the first key below ``spec``; a
    key in quotes), or says the whole object (its app, its apps) is not mapped."""
    keys = _keys(mutation.path)
    names = []
    for stop in range(1, len(keys) + 1):
        names += [".".join(keys[start:stop]) for start in range(stop - 1)]
        names.append(f"'{keys[stop - 1]}'")
    if len(keys) > 1 and keys[0] == "spec":
        names.append(keys[1])
    words = "|".join(rf"(?<![\w.]){re.escape(name)}(?![\w.])" for name in names if name)
    pattern = re.compile(rf"{words}|^(Flux )?{re.escape(f'{doc.kind} {doc.name!r}')} not mapped")
    return any(
        f.file == doc.file
        and (f.line == 0 or doc.line <= f.line <= end)
        and (pattern.search(f.what) or _DROPPED.search(f.todo))
        for f in findings
    )


# What a finding says to do when import leaves out a whole app or ApplicationSet.
_DROPPED = re.compile(r"add (the app|its apps) by hand|then add it as App\(")


def _secret(doc: Doc, end: int, mutation: Mutation, findings: tuple[Finding, ...]) -> bool:
    """Whether the field holds secret material (`fleetgen.rules.secrets`), which import never
    copies (a changed one changes nothing), and a finding at ``doc`` says it left some out."""
    keys = _keys(mutation.path)
    value = _at(doc.obj, mutation.path)
    if mutation.removal or not keys or not scanrules.walk({keys[-1]: value}):
        return False
    return any(
        f.file == doc.file and doc.line <= f.line <= end and "secret material" in f.what
        for f in findings
    )


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _allowed(doc: Doc, mutation: Mutation) -> bool:
    return any(
        kind in ("*", doc.kind) and re.fullmatch(path, mutation.dotted) for kind, path in ALLOWED
    )


@pytest.mark.parametrize("case", _engine_cases(), ids=lambda p: p.name)
def test_every_field_import_reads_is_mapped_or_named(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each field of each engine object either changes the import or is named in a finding
    at its object."""
    repo = tmp_path / case.name
    shutil.copytree(case / "repo", repo)
    monkeypatch.setattr(kustomize, "build", _BUILD)
    started, children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    base = _import(repo)
    assert not isinstance(base, str), base
    lost, counts = [], {"imports": 0, "replaced": 0}
    for doc in filter(_walked, read_repo(repo).docs):
        file = repo / doc.file
        text = file.read_text(encoding="utf-8")
        assert doc.node is not None
        end = doc.node.end_mark.line + 1
        for mutation in mutations(text, doc.node, doc.obj):
            if _allowed(doc, mutation) or _named(doc, end, mutation, base[1]):
                continue
            if _secret(doc, end, mutation, base[1]):
                continue
            counts["imports"] += 1
            verdict = _verdict(repo, file, text, mutation, base)
            if verdict == "replaced":
                counts["replaced"] += 1
            elif verdict == "lost":
                where = f"{doc.file}:{mutation.line}: {doc.kind} {doc.name!r}"
                lost.append(
                    f"{where}: {mutation.dotted} ({'removed' if mutation.removal else 'changed'})"
                )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    kustomize_s = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    print(
        f"{case.name}: {counts['imports']} imports ({counts['replaced']} of fields kustomize "
        f"replaces), {time.process_time() - started:.1f} s CPU + {kustomize_s:.1f} s kustomize"
    )
    assert not lost, f"{case.name}: neither mapped nor named:\n" + "\n".join(lost)


def _verdict(repo: Path, file: Path, text: str, mutation: Mutation, base: Outcome) -> str:
    """What the import of ``repo`` with ``mutation`` made of it: ``mapped`` (the outcome
    differs), ``replaced`` (kustomize builds the object with another value before import
    reads it) or ``lost``."""
    file.write_text(mutation.apply(text), encoding="utf-8")
    _BUILD.forget()
    try:
        changed = _import(repo)
    finally:
        file.write_text(text, encoding="utf-8")
    if mutation.removal:
        return "lost" if _unlined(changed) == _unlined(base) else "mapped"
    if changed != base:
        return "mapped"
    built, value = _BUILD.outputs(file), mutation.value
    if value and built and all(value not in output for output in built):
        return "replaced"
    return "lost"
