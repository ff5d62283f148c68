"""The committed record, ``<output_dir>/.fleetgen/record.json``: what a build must know of the
builds before it. Output is a function of fleet.py, the bases, this record and fleetgen's
version; the record is read at load (from the spec's own output folder, as Git holds it) and
written with the output, in the same transaction.

- ``charts``: each in-repo chart's version and the digest of its files. A chart whose files
  change while its version stays is a build error (`fleetgen.settle.draining.chart_problems`).
- ``holds``: drain name -> the documents of the output that a removal would still need
  (``path#Kind/namespace/name`` -> digest of the document), recorded in cascade mode only.
- ``draining``: drain name -> what a removal keeps (`Drain`), until the user confirms the
  controllers are done (``build --drained``) or the spec uses the thing again.
- ``moving``: ``release/<cluster>/<app>`` -> the step a HelmRelease's move to a Kustomization of
  its own is at (`fleetgen.settle.moves`); each ``build --drained`` of it takes the next.

`fleetgen.settle.draining` decides what drains; this module only reads and writes the record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fleetgen.errors import Problem, SpecError, UsageError
from fleetgen.inputs.reading import Reader
from fleetgen.model.fields import repo_path
from fleetgen.rules.argocd import TENANTS_PROJECT
from fleetgen.write.journal import RECORD

FORMAT = 1
Items = dict[str, list[Any]]  # list field of a document (e.g. "destinations") -> kept entries
KIND_LISTS = {"clusterResourceWhitelist", "namespaceResourceWhitelist"}  # an AppProject's kinds


@dataclass(frozen=True, slots=True)
class ChartStamp:
    """An in-repo chart as a build saw it."""

    version: str
    digest: str


@dataclass(frozen=True, slots=True)
class Kept:
    """A document a removal keeps, exactly as the last build before the removal wrote it."""

    path: str
    document: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Drain:
    """What one draining thing keeps: whole documents (the thing left the spec), or entries of a
    document's lists (the spec narrowed it), by document reference (`ref`)."""

    documents: tuple[Kept, ...] = ()
    items: Mapping[str, Items] = field(default_factory=dict)

    def summary(self) -> str:
        """What it keeps, in a few words (the fleet map's Draining table, diff's notes)."""
        kept = [
            f"{k.document.get('kind')} {_object_name(k.document.get('metadata') or {})}"
            for k in self.documents
            if (k.document.get("metadata") or {}).get("name")
        ]
        for found, items in sorted(self.items.items()):
            counted = ", ".join(f"{len(entries)} {name}" for name, entries in sorted(items.items()))
            kept.append(
                f"{found.partition('#')[2].split('/')[0]} {found.rpartition('/')[2]}: {counted}"
            )
        return "; ".join(kept)

    def kinds_only(self) -> bool:
        """Whether this keeps nothing but entries of an AppProject's resource kind lists."""
        fields = {name for items in self.items.values() for name in items}
        return not self.documents and bool(fields) and fields <= KIND_LISTS

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self.documents:
            found["documents"] = [{"path": k.path, "document": k.document} for k in self.documents]
        if self.items:
            found["items"] = {ref: dict(items) for ref, items in sorted(self.items.items())}
        return found


@dataclass(frozen=True, slots=True)
class Record:
    """The committed record, and the drains a build is told are done (``confirmed``: never
    written, but an input of the compile like the rest)."""

    charts: Mapping[str, ChartStamp] = field(default_factory=dict)
    holds: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    draining: Mapping[str, Drain] = field(default_factory=dict)
    confirmed: frozenset[str] = frozenset()
    moving: Mapping[str, str] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        """The record as JSON data (what `to_text` writes, plus ``confirmed``)."""
        found = self._written()
        return {**found, "confirmed": sorted(self.confirmed)} if self.confirmed else found

    def _written(self) -> dict[str, Any]:
        return {
            "fleetgen_record": FORMAT,
            "charts": {
                path: {"version": stamp.version, "digest": stamp.digest}
                for path, stamp in sorted(self.charts.items())
            },
            "holds": {
                name: dict(sorted(docs.items())) for name, docs in sorted(self.holds.items())
            },
            "draining": {name: drain.to_json() for name, drain in sorted(self.draining.items())},
            **({"moving": dict(sorted(self.moving.items()))} if self.moving else {}),
        }

    def confirming(self, names: Sequence[str], every: bool = False) -> Record:
        """This record with the drains ``names`` (or, ``every``, all) confirmed done. A name may
        leave out its kind (``prod-eu-1`` for ``cluster/prod-eu-1``) where that is unambiguous;
        one that names nothing draining is a UsageError."""
        found = set(self.pending) if every else {self._draining_name(name) for name in names}
        return replace(self, confirmed=frozenset(found))

    def _draining_name(self, name: str) -> str:
        matches = [n for n in self.pending if name in (n, n.partition("/")[2])]
        if len(matches) == 1:
            return matches[0]
        listed = ", ".join(sorted(self.pending)) or "nothing drains"
        what = "names more than one draining thing" if matches else "is not draining"
        raise UsageError(f"--drained {name}: {what} (draining: {listed})")

    @property
    def pending(self) -> dict[str, str]:
        """What waits for ``build --drained``: name -> what the output keeps for it, in a few
        words (the fleet map's Draining table, diff's notes)."""
        found = {name: drain.summary() for name, drain in self.draining.items()}
        for name, stage in self.moving.items():
            app = name.rpartition("/")[2]
            found[name] = (
                f"HelmRelease {app} in the cluster's root Kustomization, annotated "
                "kustomize.toolkit.fluxcd.io/prune: disabled (move step 1 of 3)"
                if stage == "marked"
                else f"HelmRelease {app} applied by Kustomization {app}.release, still "
                "annotated prune: disabled (move step 2 of 3)"
            )
        return dict(sorted(found.items()))

    @property
    def empty(self) -> bool:
        """Nothing to remember: the output needs no record file."""
        return not (self.charts or self.holds or self.draining or self.moving)

    def to_text(self) -> str:
        """Deterministic JSON: sorted keys, one entry a line, trailing newline."""
        return json.dumps(self._written(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def cluster_drain(cluster: str) -> str:
    """The drain name of what deleting a cluster's placements needs."""
    return f"cluster/{cluster}"


def project_drain(project: str) -> str:
    """The drain name of what deleting a project's placements needs."""
    return f"project/{project}"


def tenant_drain(project: str, cluster: str) -> str:
    """The drain name of the accounts a tenant project's placements on a cluster are deleted as."""
    return f"tenant/{project}/{cluster}"


def tenants_drain(cluster: str) -> str:
    """The drain name of Application ``<cluster>.tenants`` once no tenant is left on the cluster:
    it prunes the accounts before it goes (`fleetgen.settle.tenants`)."""
    return f"tenants/{cluster}"


def release_move(cluster: str, app: str) -> str:
    """The name of the move of chart app ``app``'s HelmRelease on ``cluster`` to a Kustomization
    of its own (`fleetgen.settle.moves`)."""
    return f"release/{cluster}/{app}"


def done_when(name: str, drain: Drain | None = None) -> str:
    """When the draining thing ``name`` (keeping ``drain``) is done, for the user to check
    before confirming it.

    A project that keeps only resource kinds (no document, destination or account) drains for
    the apps still placed: their sync prunes their objects of the kinds the project drops, which
    it must still permit then (argo-cd ``IsLiveResourcePermitted``); no Application goes."""
    kind, _, what = name.partition("/")
    if kind == "cluster":
        return f"no Application or Flux Kustomization is left for cluster {what}"
    if name == project_drain(TENANTS_PROJECT):
        return (
            "Argo CD pruned the accounts of each tenant that left a cluster where others stay "
            "(<cluster>.tenants synced after its tenant/… drain was confirmed; the entries of a "
            "cluster no tenant is left on go by themselves with its tenants/<cluster>)"
        )
    if kind == "tenants":
        return (
            f"Argo CD synced and pruned Application {what}.tenants (automated sync with prune, "
            f"in every environment): `argocd app get {what}.tenants` lists no ServiceAccount "
            "or RoleBinding (its Namespaces stay: Prune=false)"
        )
    if kind == "project" and drain is not None and drain.kinds_only():
        return (
            f"the apps of project {what} have synced this commit and pruned their objects of "
            "the kinds it keeps"
        )
    if kind == "project":
        return f"no Application of project {what} that was removed is left"
    if kind == "release":
        cluster, _, app = what.partition("/")
        return (
            f"Flux on {cluster} applied this commit (`flux get kustomizations` shows its "
            f"revision), so the next step of HelmRelease {app}'s move cannot prune it"
        )
    if kind == "tenant":
        project, _, cluster = what.partition("/")
        return f"no Application or Kustomization of project {project} is left on {cluster}"
    return "the controllers deleted what it was kept for"


def _object_name(meta: Mapping[str, str]) -> str:
    return "/".join(part for part in (meta.get("namespace"), meta.get("name")) if part)


def ref(path: str, document: Mapping[str, Any]) -> str:
    """A document's reference in the record: ``path#Kind/namespace/name``."""
    meta = document.get("metadata") or {}
    return f"{path}#{document.get('kind')}/{meta.get('namespace', '')}/{meta.get('name')}"


def digest(document: Any) -> str:
    """A document's digest: of its JSON form, keys sorted (what parsing its YAML gives back)."""
    data = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()[:32]


def read_record(read: Reader, output_dir: str) -> Record:
    """The record committed in ``output_dir`` (repo-relative), or an empty one; a record fleetgen
    cannot read is a SpecError naming it."""
    path = f"{repo_path(output_dir)}/{RECORD}"
    data = read(path)
    if data is None:
        return Record()
    try:
        return _parse(json.loads(data))
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        message = (
            f"not a record fleetgen wrote ({error}): restore it from Git (a lost record forgets "
            "what drains and the chart versions built)"
        )
        raise SpecError([Problem(message, path)]) from None


def written(data: bytes | None) -> Record:
    """The record a build wrote (``data``: the record file's bytes, None for none)."""
    return Record() if data is None else _parse(json.loads(data))


def _parse(data: Any) -> Record:
    if not isinstance(data, dict) or data.get("fleetgen_record") != FORMAT:
        raise ValueError(f"format {data.get('fleetgen_record')!r}, expected {FORMAT}")
    charts = {
        _text(path): ChartStamp(_text(stamp["version"]), _text(stamp["digest"]))
        for path, stamp in data["charts"].items()
    }
    holds = {
        _text(name): {_text(key): _text(value) for key, value in docs.items()}
        for name, docs in data["holds"].items()
    }
    draining = {_text(n): _drain(d) for n, d in data["draining"].items()}
    moving = {_text(n): _stage(stage) for n, stage in _mapping(data.get("moving", {})).items()}
    return Record(charts, holds, draining, moving=moving)


def _stage(value: Any) -> str:
    if value not in ("marked", "moved"):
        raise ValueError(f"unknown move stage {value!r:.40}")
    return str(value)


def _drain(data: Mapping[str, Any]) -> Drain:
    documents = tuple(
        Kept(_text(kept["path"]), _mapping(kept["document"])) for kept in data.get("documents", ())
    )
    items = {
        _text(key): {_text(name): list(values) for name, values in _mapping(found).items()}
        for key, found in _mapping(data.get("items", {})).items()
    }
    return Drain(documents, items)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r:.40}")
    return value


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {value!r:.40}")
    return value
