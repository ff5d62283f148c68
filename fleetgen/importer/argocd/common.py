"""What reading an Argo CD repository keeps while the object kinds are read: the draft it fills
in, the clusters as the cluster generator sees them, this repository's URLs and revisions as
sources name it, the Helm value files instances read (settled once those are known), and how YAML
list entries become spec calls."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fleetgen.importer.draft import ClusterDraft, Draft, Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.repo import Doc, Repo, mapping
from fleetgen.model import ArgoOptions
from fleetgen.util.templating import Call

ARGO = "argoproj.io"
ARGO_NAMESPACE = ArgoOptions.model_fields["namespace"].default  # where fleetgen writes Argo CD's
NOTIFICATIONS = "notifications.argoproj.io/"  # Argo CD's notification annotations
# A template expression: ``{{index .metadata.labels "x"}}``, ``{{index .path.segments 1}}`` or
# ``{{.path.basename}}``/``{{name}}``.
EXPR = re.compile(r"\{\{-?\s*(?:index\s+\.([\w.]+)\s+(\"[^\"]+\"|\d+)|\.?([\w.\[\]-]+))\s*-?\}\}")
Path = tuple[str | int, ...]
ENV_KEYS = ("env", "environment")  # the labels that name a cluster's environment


@dataclass(slots=True)
class Cluster:
    """A cluster as the cluster generator sees it: its Secret's name, server and metadata.

    ``listed``: the generator lists it (a Secret registers it, here or, for an ``external``
    one standing for the clusters another tool registers, elsewhere); a destination no Secret
    registers is not listed."""

    draft: ClusterDraft
    name: str  # as the Secret writes it (the generator's `name`)
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    listed: bool = True
    external: bool = False

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


@dataclass(frozen=True, slots=True)
class RefSource:
    """A source whose files an Application's value files name by its ``ref`` (``$values/...``)."""

    where: Path  # the source in the Application's spec (or its template's)
    url: str
    revision: str
    guessed: bool = False  # its URL or revision is an annotation of clusters selected at run time


@dataclass(frozen=True, slots=True)
class ValueFiles:
    """The Helm value files of one instance, in order: (index in ``helm.valueFiles``, the path in
    its repository, the ref source it is read from; None for a chart's own folder here)."""

    instance: Instance
    origin: Doc
    at: Path  # the ``helm.valueFiles`` field
    files: tuple[tuple[int, str, RefSource | None], ...]
    ignore_missing: bool  # helm.ignoreMissingValueFiles


@dataclass(frozen=True, slots=True)
class LocalRead:
    """A source (or git generator) import reads from this repository's files: where it is
    written (``where``: its fields ``repoURL`` and ``key``), who reads it (``who``:
    ``guestbook: its source``), the URL and revision it names (`thisrepo`)."""

    origin: Doc
    who: str
    where: Path
    url: str
    revision: str
    key: str = "targetRevision"


@dataclass(slots=True)
class Reader:
    """An Argo CD repository being read into ``draft``."""

    repo: Repo
    draft: Draft
    clusters: dict[str, Cluster] = field(default_factory=dict)  # by server
    urls: Counter[str] = field(default_factory=Counter)  # this repository's URLs as sources say
    local: list[LocalRead] = field(default_factory=list)  # the reads of its files (`thisrepo`)
    value_files: list[ValueFiles] = field(default_factory=list)  # settled by `valuefiles.settle`
    # each Application (where it is written, its name): whether it creates its namespace
    namespaces_created: list[tuple[Doc, str, bool]] = field(default_factory=list)
    renamed: bool = False  # the built-in project was renamed (said once)
    appprojects: dict[str, Doc] = field(default_factory=dict)  # the AppProjects here, by name
    # ClusterVar -> (what of a cluster it is, the parameter templates read it as)
    reads: dict[str, tuple[str, str]] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)  # the ClusterVars a finding explained
    # the selectors of the ApplicationSet being read that select no cluster here or standing in
    missed: list[str] = field(default_factory=list)


def not_written(doc: Doc) -> list[Finding]:
    """A finding naming the labels, and one the annotations, of an object fleetgen writes its
    own of (an ApplicationSet, an AppProject), which have no field in fleet.py; an AppProject's
    notification subscriptions are its apps' (`subscriptions`)."""
    found = []
    for key in ("labels", "annotations"):
        keys = sorted(map(str, mapping(doc.meta.get(key))))
        if doc.kind == "AppProject":
            keys = [name for name in keys if not name.startswith(NOTIFICATIONS)]
        if keys:
            found.append(
                doc.finding(
                    f"{doc.kind} {doc.name!r}: metadata.{key} not mapped ({', '.join(keys)})",
                    f"fleetgen writes its own {doc.kind}s, without them: nothing to do unless "
                    "a tool reads them",
                    ("metadata", key),
                )
            )
    return found


def spec_call(kind: str, item: Mapping[str, Any], keys: tuple[tuple[str, str], ...]) -> Call:
    """``kind(...)`` of the fields ``item`` sets, named as ``keys`` say."""
    return Call(kind, {name: item[key] for key, name in keys if item.get(key)})


def expr_key(match: re.Match[str]) -> str:
    """The flat parameter a template expression reads (``metadata.labels.x``,
    ``path.segments.1``)."""
    if match[1]:
        return match[1] + "." + match[2].strip('"')
    return str(match[3])


def texts(value: Any, path: Path = ()) -> Iterator[tuple[Path, str]]:
    """(where, text) of every string in ``value``, in document order."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from texts(item, (*path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from texts(item, (*path, index))
    elif isinstance(value, str):
        yield path, value
