"""The Kustomizations of the Flux output: one per placement (a chart app's source and HelmRelease
in its place), and their ``spec.ignore`` rules. Sources, Namespaces and the tenants' file are
in `sources`, `namespaces` and `tenants` (re-exported here).

Both layouts (`fleetgen.emit.flux` per cluster, `fleetgen.emit.flux.hub` hub and spokes) place the
same Kustomizations; a `Home` says where a cluster's Kustomizations live and how they reach it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from fleetgen.emit.common import FLUX_IGNORE_SINCE, KUSTOMIZATION as KUSTOMIZE_CONFIG
from fleetgen.emit.flux import dependencies
from fleetgen.emit.flux.charts import chart_objects
from fleetgen.emit.flux.kustomization import (
    GATE_DIR,
    KUSTOMIZE_API,
    Home,
    Ref,
    cluster_dir,
    flux_dir,
    kustomization,
    releases_dir,
)
from fleetgen.emit.flux.namespaces import (
    NamespaceFiles,
    app_namespaces,
    created,
    namespace,
)
from fleetgen.emit.flux.sources import (
    SOURCE_API,
    SOURCE_INTERVAL,
    git_repository,
    remote_source,
    source_file,
    source_ref,
)
from fleetgen.emit.flux.tenants import account_names, tenant_file
from fleetgen.model import App, Fleet, IgnoreDifference
from fleetgen.model.fields import release
from fleetgen.resolver.plan import Placement, Plan
from fleetgen.resolver.timing import FLUX_DEFAULT, flux_timing
from fleetgen.write.output import CLUSTER_LABEL, ENV_LABEL, LABEL_PREFIX, OutputFile, Wrapped

IGNORE_SINCE = release(FLUX_IGNORE_SINCE)  # the Flux release whose Kustomization has spec.ignore
ARGO_DOMAIN = "argoproj.io"  # metadata keys under it are Argo CD's alone

Order = tuple[str, str, str, str]  # what `fleetgen.manifests.k8s.identity` orders by, but its scope


def kustomization_files(
    plan: Plan,
    homes: Mapping[str, Home],
    extra_deps: Mapping[tuple[str, str], Sequence[Ref]],
    leading: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    gating: bool = False,
) -> list[OutputFile]:
    """One file per Home: its ``leading`` objects, then the Kustomization of each placement on
    its clusters, sorted by (namespace, name); and the file of each wrapped HelmRelease
    (`fleetgen.emit.flux.dependencies`), and the empty directory gates apply where a gate of a
    chart app, or another (``gating``: a hub's rollout gates), applies it.

    ``extra_deps`` maps (app, cluster) to Kustomizations it waits for besides its app's
    ``depends_on`` (which `check` has confirmed are placed on the same cluster).
    """
    comments = {home.file: home.comment for home in homes.values()}
    leading = leading or {}
    gates = dependencies.gated(plan)
    docs, wrapped = kustomization_docs(plan, homes, extra_deps, gates)
    files = [
        kustomization_file(path, found, comments[path], leading.get(path, ()))
        for path, found in sorted(docs.items())
    ]
    for path, (as_, found) in sorted(wrapped.items()):
        listing = {**KUSTOMIZE_CONFIG, "resources": [path.rpartition("/")[2]]}
        files += [
            replace(kustomization_file(path, found, _RELEASE_COMMENT), wrapped=as_),
            OutputFile(f"{path.rpartition('/')[0]}/kustomization.yaml", (listing,), wrapped=as_),
        ]
    if gates or gating:
        files.append(gate_file())
    return files


_RELEASE_COMMENT = (
    "A chart app that depends on Kustomize apps: its HelmRelease, applied by the Kustomization\n"
    "<app>.release once they are Ready (flux/clusters/<cluster>/ holds it)."
)


def gate_file() -> OutputFile:
    """The empty kustomization gate Kustomizations apply (`GATE_DIR`)."""
    return OutputFile(
        f"{GATE_DIR}/kustomization.yaml",
        ({**KUSTOMIZE_CONFIG, "resources": []},),
        comment="Applies nothing: what gate Kustomizations (rollout waves, chart apps) build.",
    )


def kustomization_file(
    path: str,
    found: Iterable[tuple[Order, dict[str, Any]]],
    comment: str,
    leading: Sequence[dict[str, Any]] = (),
) -> OutputFile:
    """The file of a Home: ``leading`` objects, then the documents ``found`` in their order
    (a stable sort: documents of one order keep theirs)."""
    return OutputFile(
        path, (*leading, *(doc for _, doc in sorted(found, key=itemgetter(0)))), comment=comment
    )


Found = list[tuple[Order, dict[str, Any]]]


def kustomization_docs(
    plan: Plan,
    homes: Mapping[str, Home],
    extra_deps: Mapping[tuple[str, str], Sequence[Ref]],
    gates: Collection[tuple[str, str]],
) -> tuple[dict[str, Found], dict[str, tuple[Wrapped, Found]]]:
    """Home file -> the objects of each placement there (Kustomization; source, HelmRelease...,
    and the gate of each (chart app, cluster) in ``gates``), with their order, in Plan order
    (`kustomization_files`); and the file of each wrapped HelmRelease -> how it would lie
    unwrapped, and its objects."""
    fleet = plan.fleet
    accounts = {project.name: project.service_account for project in fleet.projects}
    ignore = supports_ignore(fleet)
    plain = {p.app for p in plan.placements if p.remote is not None and p.remote.source is None}
    parts = {
        app.name: _AppParts.of(app, accounts.get(app.project), ignore, app.name in plain)
        for app in fleet.apps
    }
    apps = {app.name: app for app in fleet.apps}
    charts = dependencies.chart_apps(fleet)
    wraps = dependencies.wrapped(fleet)
    kustomizations = _Kustomizations(fleet)
    overlays = flux_dir(plan)
    docs: dict[str, Found] = defaultdict(list)
    wrapped: dict[str, tuple[Wrapped, Found]] = {}
    for placement in plan.placements:
        home = homes[placement.cluster]
        app, app_ = parts[placement.app], apps[placement.app]
        found = docs[home.file]
        if placement.chart is not None:
            same, other = dependencies.release_deps(app_, charts, home.namespace)
            objects = _ordered(
                _chart_objects(fleet, app_, accounts.get(app_.project), placement, home, same)
            )
            gated = (placement.app, placement.cluster) in gates
            if gated:
                gate = dependencies.gate(plan, placement, home, placement.app in wraps)
                found += _ordered([gate])
            if placement.app not in wraps:
                found += objects
                continue
            found += _ordered([dependencies.wrapper(plan, placement, home, other)])
            path = dependencies.release_file(home, placement.app)
            unwrapped = dependencies.gate(plan, placement, home, False) if gated else None
            wrapped[path] = (dependencies.wrapped_as(placement, home, unwrapped), objects)
            continue
        deps = dependencies.kustomization_deps(app_, charts, home.namespace)
        deps += extra_deps.get((placement.app, placement.cluster), ())
        path, source = f"{overlays}/{placement.overlay}", None
        if placement.remote is not None:  # no overlay: the directory, in its source
            path = _remote_path(placement.remote.path)
        if placement.remote is not None and placement.remote.source is not None:
            remote = remote_source(placement.remote.source, placement.app, home.namespace)
            found += _ordered([remote])
            source = {"kind": remote["kind"], "name": placement.app}
        found.append(kustomizations.of(placement, app, home, path, deps, source))
    return dict(docs), wrapped


def _remote_path(path: str) -> str:
    """A directory of another source as Flux paths spell it (``./`` for its root)."""
    return "./" if path == "." else f"./{path}"


def _ordered(docs: Iterable[dict[str, Any]]) -> list[tuple[Order, dict[str, Any]]]:
    """Each document built here (with apiVersion, kind, metadata.namespace and name) with its
    (group, kind, namespace, name), the order of its file."""
    return [
        (
            (
                doc["apiVersion"].rpartition("/")[0],
                doc["kind"],
                doc["metadata"]["namespace"],
                doc["metadata"]["name"],
            ),
            doc,
        )
        for doc in docs
    ]


class _Kustomizations:
    """The Kustomization of each placement, built by `kustomization` once per (app, sync policy,
    shape of Home, dependencies): the other placements sharing those differ only in their path,
    source and cluster and env labels, so theirs are copies of it with these replaced."""

    def __init__(self, fleet: Fleet) -> None:
        self._fleet = fleet
        self._source = source_ref(fleet)
        self._built: dict[tuple[Any, ...], tuple[Order, dict[str, Any]]] = {}

    def of(
        self,
        placement: Placement,
        app: _AppParts,
        home: Home,
        path: str,
        depends_on: Sequence[Ref],
        source: Mapping[str, str] | None,
    ) -> tuple[Order, dict[str, Any]]:
        """The Kustomization of ``placement`` in ``home`` (``source``: as `kustomization`), with
        its order (`_ordered`)."""
        sync = placement.settings.sync
        # The placements of an app in one environment share one SyncPolicy object, alive as long
        # as the Plan, so its id tells the policies apart (hashing a model costs more, and fails
        # on its list field). Of the Home, its namespace, its dependencies and the keys of its
        # spec shape the object; the values of its spec and its source are set per placement.
        key = (
            placement.app,
            placement.cascade_delete,
            id(sync),
            home.namespace,
            home.depends_on,
            tuple(home.spec),
            tuple(depends_on),
        )
        built = self._built.get(key)
        if built is None:
            self._built[key] = built = _ordered(
                [
                    kustomization(
                        self._fleet,
                        placement.app,
                        home,
                        path,
                        prune=sync.prune,
                        cascade=placement.cascade_delete,
                        labels=_labels(placement, app.labels),
                        annotations=app.annotations,
                        depends_on=depends_on,
                        extra={**_sync(self._fleet, placement), **app.spec},
                        source=source,
                    )
                ]
            )[0]
            return built
        order, first = built
        metadata = first["metadata"]
        labels = {**metadata["labels"], CLUSTER_LABEL: placement.cluster, ENV_LABEL: placement.env}
        spec = {
            **first["spec"],
            "sourceRef": dict(source or home.source or self._source),
            "path": path,
            **home.spec,
        }
        return order, {**first, "metadata": {**metadata, "labels": labels}, "spec": spec}


def _chart_objects(
    fleet: Fleet,
    app: App,
    account: str | None,
    placement: Placement,
    home: Home,
    deps: Sequence[Ref],
) -> list[dict[str, Any]]:
    """A chart app's source and HelmRelease, labelled and placed like a Kustomization (without
    Argo CD's ``argoproj.io/`` metadata, as `flux_metadata` says), ``account`` its project's
    ServiceAccount."""
    labels, annotations = flux_metadata(app.labels), flux_metadata(app.annotations)
    metadata: dict[str, Any] = {
        "name": app.name,
        "namespace": home.namespace,
        "labels": dict(sorted(_labels(placement, labels).items())),
    }
    if annotations:
        metadata["annotations"] = dict(sorted(annotations.items()))
    spec = dict(home.spec)
    if account:
        spec["serviceAccountName"] = account
    return chart_objects(
        fleet,
        app,
        placement,
        home.namespace,
        metadata,
        spec,
        home.source or source_ref(fleet),
        ignore_rules(app.ignore_differences),
        deps,
    )


@dataclass(frozen=True, slots=True)
class _AppParts:
    """What every Kustomization of one app shares, computed once per app."""

    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    spec: Mapping[str, Any]

    @classmethod
    def of(cls, app: App, service_account: str | None, ignore: bool, plain: bool) -> _AppParts:
        """``plain``: the app reads a plain directory, whose objects its namespace reaches
        through ``targetNamespace`` (the generated kustomization's ``namespace``: fluxcd/pkg
        kustomize ``Generator.GenerateManifest``), as Argo CD's destination namespace does."""
        rules = ignore_rules(app.ignore_differences) if ignore else []
        spec: dict[str, Any] = {"ignore": rules} if rules else {}
        if service_account:  # tenant impersonation, an account in the Flux namespace
            spec["serviceAccountName"] = service_account
        if plain and app.namespace is not None:
            spec["targetNamespace"] = app.namespace
        return cls(flux_metadata(app.labels), flux_metadata(app.annotations), spec)


def flux_metadata(values: Mapping[str, str]) -> dict[str, str]:
    """``values`` without the keys under ``argoproj.io/`` (e.g. Argo CD notification
    subscriptions, ``notifications.argoproj.io/subscribe...``), which mean nothing to Flux."""
    return {key: value for key, value in values.items() if not _argo_only(key)}


def _argo_only(key: str) -> bool:
    prefix, slash, _ = key.rpartition("/")
    return bool(slash) and (prefix == ARGO_DOMAIN or prefix.endswith("." + ARGO_DOMAIN))


def _labels(placement: Placement, app_labels: Mapping[str, str]) -> dict[str, str]:
    own = {"app": placement.app, "cluster": placement.cluster, "env": placement.env}
    return {**app_labels, **{LABEL_PREFIX + key: value for key, value in own.items()}}


def _sync(fleet: Fleet, placement: Placement) -> dict[str, Any]:
    """interval, timeout, retryInterval and wait (`flux_timing`: each unless Flux's own
    default applies) and suspend, from the effective sync policy.

    A Kustomization that waits always gets a timeout (`fleetgen.resolver.plan.WAIT_TIMEOUT` unless
    the policy sets one): without it kustomize-controller's ``Kustomization.GetTimeout`` gives the
    health check max(interval - 30s, 30s), so a 1m interval fails any rollout slower than 30
    seconds.
    A failed one is retried after ``retryInterval`` (``GetRetryInterval``: else the interval)."""
    spec: dict[str, Any] = {
        _FIELDS[name]: value.value
        for name, value in flux_timing(fleet, placement).items()
        if value.source != FLUX_DEFAULT
    }
    if not placement.settings.sync.automated:
        spec["suspend"] = True
    return spec


_FIELDS = {  # SyncPolicy timing field -> Kustomization spec field
    "interval": "interval",
    "timeout": "timeout",
    "retry_interval": "retryInterval",
    "wait": "wait",
}


def supports_ignore(fleet: Fleet) -> bool:
    """Whether every supported Flux knows ``Kustomization.spec.ignore`` (kustomize-controller
    v1.9, Flux 2.9: ``api/v1/kustomization_types.go`` ``KustomizationSpec.Ignore``; Flux 2.7's
    CRD has no such field, and the API server would prune it)."""
    return release(fleet.flux.min_version) >= IGNORE_SINCE


def ignore_rules(ignores: Iterable[IgnoreDifference]) -> list[dict[str, Any]]:
    """``spec.ignore`` rules for the JSON pointers of ``ignores``.

    Flux matches ``target.name``/``namespace`` as regular expressions: exact names are anchored
    and escaped. An empty ``group`` (the core group to Argo CD) is left out: Flux then matches
    the kind in any group.
    """
    rules = []
    for ignore in ignores:
        if not ignore.json_pointers:
            continue
        target = {
            "group": ignore.group,
            "kind": ignore.kind,
            "name": _exact(ignore.name),
            "namespace": _exact(ignore.namespace),
        }
        rules.append(
            {
                "paths": list(ignore.json_pointers),
                "target": {key: value for key, value in target.items() if value},
            }
        )
    return rules


_REGEX_SYNTAX = re.compile(r"([\\.+*?()|\[\]{}^$])")


def _exact(name: str | None) -> str | None:
    """A regular expression (Go RE2) matching exactly ``name``."""
    return None if name is None else "^" + _REGEX_SYNTAX.sub(r"\\\1", name) + "$"


def unmirrored(ignore: IgnoreDifference) -> list[str]:
    """The parts of ``ignore`` that Flux's ``spec.ignore`` (JSON pointers only) cannot express."""
    return [
        what
        for what, values in (
            ("jq_path_expressions", ignore.jq_path_expressions),
            ("managed_fields_managers", ignore.managed_fields_managers),
        )
        if values
    ]


__all__ = [
    "ARGO_DOMAIN",
    "GATE_DIR",
    "IGNORE_SINCE",
    "KUSTOMIZE_API",
    "SOURCE_API",
    "SOURCE_INTERVAL",
    "Home",
    "NamespaceFiles",
    "Order",
    "Ref",
    "account_names",
    "app_namespaces",
    "cluster_dir",
    "created",
    "flux_dir",
    "flux_metadata",
    "gate_file",
    "git_repository",
    "ignore_rules",
    "kustomization",
    "kustomization_docs",
    "kustomization_file",
    "kustomization_files",
    "namespace",
    "releases_dir",
    "remote_source",
    "source_file",
    "source_ref",
    "supports_ignore",
    "tenant_file",
    "unmirrored",
]
