"""Flux: each cluster folder (the path of a ``flux-system`` Kustomization that bootstrap wrote,
or ``clusters/NAME/``) is a cluster; what its folder applies becomes app instances. A
Kustomization whose folder holds only Flux objects (releases, their sources, further
Kustomizations, a tenant's accounts) is followed into them; any other is an app whose path is
its folder, used as it is. A HelmRelease is a chart app; a Kustomization reading another
repository an app from that source."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from fleetgen.importer.draft import ChartRef, ClusterDraft, Draft, Instance, env_name
from fleetgen.importer.findings import Finding, unmapped
from fleetgen.importer.repo import Doc, Repo, Unreadable, at, mapping, mappings, relative_path
from fleetgen.importer.sources import PIN, carries_credentials, git_source, oci_source, pinned
from fleetgen.manifests.yamlio import load_all
from fleetgen.model.clusters import IN_CLUSTER
from fleetgen.model.fields import to_dns_label
from fleetgen.resolver.values import merge_values
from fleetgen.util.templating import Call

KUSTOMIZE = "kustomize.toolkit.fluxcd.io"
HELM = "helm.toolkit.fluxcd.io"
SOURCE = "source.toolkit.fluxcd.io"
ROOT = "flux-system"
_SOURCES = ("GitRepository", "OCIRepository", "HelmRepository")
_TENANCY = (("", "Namespace"), ("", "ServiceAccount"), ("rbac.authorization.k8s.io", "RoleBinding"))
_AUTOMATION = (
    "fleetgen has no image automation: keep it in a folder of its own added as an app, and "
    "point its updates at fleet.py (Image tags)"
)
_NOTIFICATIONS = "keep it in a folder of its own, added as an app"
_REMOTE = "a remote cluster: import its folder as a cluster, or use FluxOptions(mode='hub')"
# Kustomization fields with no fleetgen equivalent: what the finding says to do.
_UNMAPPED = {
    "postBuild": "fleetgen has no variable substitution: write the values into the manifests, "
    "or per cluster as a layer's config= / patches=",
    "components": "list them in the folder's kustomization.yaml, or a layer's components=",
    "healthChecks": "fleetgen's Kustomizations wait for what they apply (SyncPolicy(wait=True))",
    "kubeConfig": _REMOTE,
    "decryption": "fleetgen does not decrypt SOPS: keep the secrets in a store and use "
    "App(secrets=[AppSecret(...)])",
    "commonMetadata": "set common_labels= / common_annotations= on the app",
    "namePrefix": "set Overrides(name_prefix=...) on the app",
    "nameSuffix": "rename in the folder's kustomization.yaml",
}


def recognise(repo: Repo) -> Draft | None:
    """The fleet of a Flux repository, None when it has no cluster folder."""
    folders = cluster_folders(repo)
    if not folders:
        return None
    draft = Draft("flux")
    for folder, origin in folders.items():
        name = to_dns_label(folder.rsplit("/", 1)[-1], "cluster")
        draft.clusters.append(ClusterDraft(name, env_name(name), IN_CLUSTER, origin))
        _Cluster(repo, draft, name).walk(folder)
    draft.repo = _fleet_repo(repo)
    for instance in draft.instances:  # Flux deletes what a pruning Kustomization applied
        instance.cascade = bool(instance.sync.get("prune"))
    return draft


def cluster_folders(repo: Repo) -> dict[str, Doc]:
    """Cluster folder -> what shows it is one: the ``flux-system`` Kustomization bootstrap wrote
    (its path), or the first Flux object of a ``clusters/NAME/`` folder."""
    found: dict[str, Doc] = {}
    for doc in repo.docs:
        if _is_root(doc) and (folder := relative_path(str(doc.spec.get("path", "")))):
            found.setdefault(folder, doc)
    for doc in repo.docs:
        parts = doc.file.split("/")
        if parts[0] == "clusters" and len(parts) > 2 and _flux(doc):
            folder = "/".join(parts[:2])
            if not any(folder == f or folder.startswith(f + "/") for f in found):
                found[folder] = doc
    return dict(sorted(found.items()))


def _is_root(doc: Doc) -> bool:
    return doc.is_(KUSTOMIZE, "Kustomization") and doc.name == ROOT


def _flux(doc: Doc) -> bool:
    return doc.is_(KUSTOMIZE, "Kustomization") or doc.is_(HELM, "HelmRelease")


def _fleet_repo(repo: Repo) -> str | None:
    roots = (d for d in repo.docs if d.is_(SOURCE, "GitRepository") and d.name == ROOT)
    return next((str(d.spec.get("url")) for d in roots if d.spec.get("url")), None)


@dataclass(slots=True)
class _Applied:
    """An object a cluster applies and the Kustomization that applies it (None: the root)."""

    doc: Doc
    parent: Doc | None


@dataclass(slots=True)
class _Cluster:
    """One cluster folder followed through what it applies."""

    repo: Repo
    draft: Draft
    cluster: str
    sources: dict[tuple[str, str], Doc] = field(default_factory=dict)
    produced: dict[str, list[str]] = field(default_factory=dict)  # Kustomization -> instances
    found: list[Instance | _Applied] = field(default_factory=list)  # in the order applied
    parent_of: dict[str, Doc | None] = field(default_factory=dict)  # followed Kustomizations
    tenancy: list[Doc] = field(default_factory=list)
    configmaps: dict[tuple[str, str], Doc] = field(default_factory=dict)  # releases' values

    def walk(self, folder: str) -> None:
        """Follow ``folder`` and everything it applies into instances."""
        inside = f"{folder}/{ROOT}/"
        self._controller_patches(f"{folder}/{ROOT}")
        docs = [d for d in self._deployed(folder, None) if not d.file.startswith(inside)]
        self._apply(docs, None)
        made = [item if isinstance(item, Instance) else self._release(item) for item in self.found]
        mine = [instance for instance in made if instance is not None]
        self._tenancy(mine)
        for instance in mine:
            instance.depends_on = self._depends(instance, {i.name for i in mine})
        self.draft.instances += mine

    def _controller_patches(self, folder: str) -> None:
        """Patches of Flux's own controllers (bootstrap's kustomization.yaml): Flux's
        installation, which fleetgen leaves to bootstrap."""
        for name in ("kustomization.yaml", "kustomization.yml"):
            doc = self.repo.kustomizations.get(f"{folder}/{name}")
            if doc is not None and doc.obj.get("patches"):
                self.draft.findings.append(
                    doc.finding(
                        "patches of Flux's own controllers (bootstrap's kustomization)",
                        "kept where they are: fleetgen leaves Flux's installation to flux "
                        "bootstrap, which keeps this file",
                        ("patches",),
                    )
                )

    def _deployed(
        self, folder: str, by: Doc | None, added: Mapping[str, Any] | None = None
    ) -> list[Doc]:
        """What ``folder`` deploys (with a Kustomization's ``added`` fields); nothing (a
        finding at ``by``) when kustomize fails."""
        try:
            return self.repo.deployed(folder, added)
        except Unreadable as error:
            where = by or Doc(folder, 0, {})
            self.draft.findings.append(
                where.finding(f"kustomize cannot build {folder} ({error})", "fix it, rerun import")
            )
            return []

    def _apply(self, docs: Iterable[Doc], parent: Doc | None) -> None:
        """Each object ``parent`` (None: the cluster folder) applies, by kind."""
        for doc in docs:
            if doc.is_(KUSTOMIZE, "Kustomization"):
                self._kustomization(doc, parent)
            elif doc.is_(HELM, "HelmRelease"):
                self.found.append(_Applied(doc, parent))
                self._made(to_dns_label(doc.name, "app"), parent)
            elif any(doc.is_(SOURCE, kind) for kind in _SOURCES):
                self.sources.setdefault((doc.kind, doc.name), doc)
            elif _tenancy_kind(doc):
                self.tenancy.append(doc)
            elif doc.kind == "ConfigMap" and doc.group == "" and parent is not None:
                self.configmaps[(doc.namespace, doc.name)] = doc  # values of a release there
            else:
                self.draft.findings.append(_loose(doc))

    def _kustomization(self, doc: Doc, parent: Doc | None) -> None:
        """A Kustomization: followed into its folder, or an app of its folder or source."""
        if doc.name == ROOT:
            return
        ref = mapping(doc.spec.get("sourceRef"))
        path = relative_path(str(doc.spec.get("path", "") or "."))
        if path is None:
            self.draft.findings.append(
                doc.finding(
                    f"Kustomization {doc.name!r}: path leaves the repository",
                    "point it inside the repository",
                    ("spec", "path"),
                )
            )
            return
        if ref.get("kind") == "GitRepository" and ref.get("name") == ROOT:
            added = added_fields(doc.spec)
            deployed = self._deployed(path, doc, added)
            if _only_flux(deployed) and (self.repo.has_kustomization(path) or not added):
                self.draft.findings += unmapped(doc, _KUSTOMIZATION_MAPPED, _UNMAPPED)
                self.parent_of[doc.name] = parent
                self._apply(deployed, doc)
                return
            instance: Instance | None = self._local_app(doc, path, deployed)
        else:
            instance = self._source_app(doc, path, ref)
        if instance is not None:
            self.produced.setdefault(doc.name, []).append(instance.name)
            self._made(instance.name, parent)
            instance.depends_on += self._inherited(parent)
            self._tenant(instance, doc)
            self.found.append(instance)

    def _made(self, name: str, parent: Doc | None) -> None:
        """``name`` is made by each followed Kustomization from ``parent`` up: what depends on
        them depends on it."""
        while parent is not None:
            self.produced.setdefault(parent.name, []).append(name)
            parent = self.parent_of.get(parent.name)

    def _inherited(self, parent: Doc | None) -> list[str]:
        """The dependsOn of each followed Kustomization from ``parent`` up."""
        found: list[str] = []
        while parent is not None:
            found += _names(parent.spec.get("dependsOn"))
            parent = self.parent_of.get(parent.name)
        return found

    def _app(self, doc: Doc) -> Instance:
        """The instance of a Kustomization: its name, sync settings and dependencies, and a
        finding for each field it has that fleetgen does not."""
        spec = doc.spec
        self.draft.findings += unmapped(doc, _KUSTOMIZATION_MAPPED, _UNMAPPED)
        instance = Instance(to_dns_label(doc.name, "app"), self.cluster, doc, sync=ks_sync(spec))
        instance.depends_on = _names(spec.get("dependsOn"))
        return instance

    def _local_app(self, doc: Doc, path: str, deployed: list[Doc]) -> Instance:
        """An app of a folder of this repository, whose objects are ``deployed``."""
        instance = self._app(doc)
        target = doc.spec.get("targetNamespace")
        instance.path = path
        instance.namespace = str(target) if target else None
        instance.uses = {str(target)} if target else _namespaces(deployed)
        instance.app_fields = tuple(self._overlay_fields(doc, path))
        return instance

    def _source_app(self, doc: Doc, path: str, ref: Mapping[str, Any]) -> Instance | None:
        """An app of a folder of another source, None when the source cannot be one."""
        source = self._source(doc, ref)
        if source is None:
            return None
        instance = self._app(doc)
        instance.source, instance.path = source, path
        if doc.spec.get("targetNamespace"):
            self.draft.findings.append(
                doc.finding(
                    f"Kustomization {doc.name!r}: targetNamespace of another source's manifests",
                    "fleetgen does not rewrite another source's namespaces: set them in its "
                    "manifests",
                    ("spec", "targetNamespace"),
                )
            )
        return instance

    def _overlay_fields(self, doc: Doc, path: str) -> list[tuple[str, Any]]:
        """``patches=`` and ``images=`` of a Kustomization (on a plain folder: findings)."""
        spec = doc.spec
        wanted = [key for key in ("patches", "images") if spec.get(key)]
        if not wanted:
            return []
        if not self.repo.has_kustomization(path):
            for key in wanted:
                self.draft.findings.append(
                    doc.finding(
                        f"Kustomization {doc.name!r}: spec.{key} on a plain folder",
                        "fleetgen applies a plain folder as it is: add a kustomization.yaml "
                        f"to {path} and rerun import, or move the {key} into the manifests",
                        ("spec", key),
                    )
                )
            return []
        fields: list[tuple[str, Any]] = []
        found = spec.get("patches")
        listed: list[Any] = found if isinstance(found, list) else []
        patches = [p for p in (_patch(item) for item in listed) if p]
        if patches:
            fields.append(("patches", patches))
        if len(patches) != len(listed):
            self.draft.findings.append(
                doc.finding(
                    f"Kustomization {doc.name!r}: a patch without a target kind",
                    "add it to the folder's kustomization.yaml",
                    ("spec", "patches"),
                )
            )
        images = [_image(item) for item in mappings(spec.get("images"))]
        if images:
            fields.append(("images", images))
        return fields

    def _source(self, doc: Doc, ref: Mapping[str, Any]) -> Call | None:
        """``GitSource``/``OciSource`` of a Kustomization's source, None (a finding) if none."""
        kind, name = str(ref.get("kind", "")), str(ref.get("name", ""))
        found = _find(self.sources, self.repo, kind, name)
        mapped = {"GitRepository": git_source, "OCIRepository": oci_source}.get(kind)
        made = mapped(found) if found and mapped else None
        if made is None or isinstance(made, str):
            why = made if isinstance(made, str) else f"{kind} {name!r} not found in the repository"
            self.draft.findings.append(
                doc.finding(
                    f"Kustomization {doc.name!r}: source not mapped ({why})",
                    "add the app by hand with App(source=GitSource(...) | OciSource(...))",
                    ("spec", "sourceRef"),
                )
            )
            return None
        return made

    def _release(self, item: _Applied) -> Instance | None:
        """A HelmRelease's chart app, None (a finding) when its chart cannot be said."""
        doc, spec = item.doc, item.doc.spec
        chart = _release_chart(doc, self.sources, self.repo)
        if isinstance(chart, str):
            self.draft.findings.append(
                doc.finding(
                    f"HelmRelease {doc.name!r}: chart not mapped ({chart})",
                    "add it by hand as App(chart=HelmChart(...))",
                    ("spec", "chart"),
                )
            )
            return None
        ref, version = chart
        if ref.path is None and not pinned(version):
            self.draft.findings.append(
                doc.finding(
                    f"HelmRelease {doc.name!r}: chart version {version!r} is not pinned",
                    PIN,
                    ("spec", "chart", "spec", "version"),
                )
            )
            return None
        name = to_dns_label(doc.name, "app")
        target = spec.get("targetNamespace") or doc.namespace or None
        sync = release_sync(spec)
        # what deleting it does: its Kustomization's pruning (flux-system's: prune)
        sync["prune"] = ks_sync(item.parent.spec)["prune"] if item.parent is not None else True
        values = self._values(doc)
        release = _release_name(doc, name)
        options = _chart_options(spec)
        instance = Instance(
            name,
            self.cluster,
            doc,
            namespace=str(target) if target else None,
            chart=ChartRef(ref.repo, ref.name, ref.path, release, options),
            values=dict(values),
            chart_version=version,
            sync=sync,
        )
        instance.uses = {str(target)} if target else set()
        instance.depends_on = [*_names(spec.get("dependsOn")), *self._inherited(item.parent)]
        self.draft.findings += unmapped(doc, _RELEASE_MAPPED, _RELEASE_TODO)
        self._tenant(instance, doc)
        return instance

    def _values(self, doc: Doc) -> dict[str, Any]:
        """A HelmRelease's values as helm-controller merges them: each ``valuesFrom`` ConfigMap
        applied beside it, in order (a Secret's, never read, a finding), then ``values``."""
        merged: dict[str, Any] = {}
        for index, ref in enumerate(mappings(doc.spec.get("valuesFrom"))):
            found = self.configmaps.get((doc.namespace, str(ref.get("name"))))
            text = (
                mapping(found.obj.get("data")).get(str(ref.get("valuesKey") or "values.yaml"))
                if found
                else None
            )
            if ref.get("kind") != "ConfigMap" or not isinstance(text, str) or ref.get("targetPath"):
                self.draft.findings.append(
                    doc.finding(
                        f"HelmRelease {doc.name!r}: valuesFrom {ref.get('kind')} "
                        f"{ref.get('name')!r} not mapped",
                        _RELEASE_TODO["valuesFrom"],
                        ("spec", "valuesFrom", index),
                    )
                )
                continue
            try:
                docs = load_all(text)
            except yaml.YAMLError:
                docs = [None]  # not a mapping: the build says so
            merged = merge_values(merged, dict(mapping(docs[0] if docs else {})), "", {})
        return merge_values(merged, dict(mapping(doc.spec.get("values"))), "", {})

    def _tenant(self, instance: Instance, doc: Doc) -> None:
        """An object applied as a ServiceAccount makes its app a tenant's: a project of that
        account (``Project(service_account=...)``)."""
        account = doc.spec.get("serviceAccountName")
        if not account:
            return
        project = to_dns_label(str(account), "tenant")
        instance.project = project
        if instance.namespace is not None and doc.namespace and instance.namespace != doc.namespace:
            self.draft.findings.append(
                doc.finding(
                    f"{doc.kind} {doc.name!r}: a tenant's object outside the namespace "
                    "of its ServiceAccount",
                    "fleetgen runs a tenant's app as the "
                    "account in the app's namespace: check the project's namespaces",
                )
            )
        self.draft.projects.setdefault(project, {"name": project, "service_account": str(account)})
        if instance.namespace is None and doc.namespace:
            instance.uses.add(doc.namespace)

    def _tenancy(self, instances: list[Instance]) -> None:
        """Namespaces, ServiceAccounts and RoleBindings beside Flux objects: a tenant's
        (fleetgen writes those of its projects), or findings."""
        accounts = {p.get("service_account") for p in self.draft.projects.values()}
        for doc in self.tenancy:
            if doc.kind == "Namespace":
                self._namespace(doc, instances)
            elif doc.kind == "ServiceAccount" and doc.name in accounts:
                continue
            elif doc.kind == "RoleBinding" and _binds(doc, accounts):
                role = at(doc.obj, "roleRef", "name")
                if role != "admin":
                    self.draft.findings.append(
                        doc.finding(
                            f"RoleBinding {doc.name!r} grants a tenant ClusterRole {role!r}",
                            "fleetgen binds a tenant's ServiceAccount to ClusterRole admin "
                            "in its project's namespaces: check that is enough",
                        )
                    )
            else:
                self.draft.findings.append(
                    doc.finding(
                        f"{doc.kind} {doc.name!r} not mapped",
                        "move it into an app's folder, or add it by hand",
                    )
                )

    def _namespace(self, doc: Doc, instances: list[Instance]) -> None:
        """A Namespace beside a tenant's objects: its metadata is the project's
        ``namespace_metadata`` (fleetgen creates the Namespace)."""
        meta = {key: dict(mapping(doc.meta.get(key))) for key in ("labels", "annotations")}
        meta = {key: value for key, value in meta.items() if value}
        for instance in instances:
            if doc.name in instance.uses or instance.namespace == doc.name:
                if meta:
                    self.draft.namespace_meta.setdefault(instance.project, {})[doc.name] = meta
                return
        self.draft.findings.append(
            doc.finding(
                f"Namespace {doc.name!r}: no app deploys into it",
                "fleetgen creates the namespaces of its apps: add an app there, or "
                "create it in an app's folder",
            )
        )

    def _depends(self, instance: Instance, names: set[str]) -> list[str]:
        """The instances an instance's dependsOn names (a Kustomization: what it made)."""
        found: list[str] = []
        for name in instance.depends_on:
            label = to_dns_label(name, "app")
            made = self.produced.get(name) or ([label] if label in names else [])
            if not made:
                what = f"dependsOn {name!r}: nothing of that name is applied on {self.cluster!r}"
                self.draft.findings.append(instance.origin.finding(what, "add depends_on by hand"))
            found += [m for m in made if m != instance.name]
        return sorted(set(found))


# The fields import maps (at the top of a spec, and below: their parts it reads).
_KUSTOMIZATION_MAPPED = {
    "sourceRef": (),
    "path": (),
    "interval": (),
    "timeout": (),
    "retryInterval": (),
    "prune": (),
    "wait": (),
    "suspend": (),
    "dependsOn": (),
    "targetNamespace": (),
    "patches": (),
    "images": (),
    "serviceAccountName": (),
}
_RELEASE_MAPPED = {
    "chart": (),
    "chartRef": (),
    "interval": (),
    "timeout": (),
    "values": (),
    "valuesFrom": (),
    "releaseName": (),
    "targetNamespace": (),
    "install": ("remediation", "disableWait"),
    "upgrade": ("remediation",),
    "test": ("enable",),
    "dependsOn": (),
    "serviceAccountName": (),
    "suspend": (),
}
_RELEASE_TODO = {
    "install": "fleetgen's releases install CRDs (Create) and retry as HelmChart(install_retries) "
    "says: set what else matters by hand",
    "upgrade": "fleetgen's releases replace CRDs (CreateReplace) and retry as "
    "HelmChart(upgrade_retries) says: set what else matters by hand",
    "valuesFrom": "copy the values into values= (a ConfigMap's) or keep secret ones in the "
    "chart's existingSecret settings",
    "postRenderers": "set images= / patches= on the app (post-rendered on Flux)",
    "kubeConfig": _REMOTE,
    "driftDetection": "fleetgen's HelmReleases use Flux's default drift detection",
}


# Flux objects import does not map, and what to do instead.
_FLUX_KINDS = {
    "ArtifactGenerator": "fleetgen reads the repository's folders as they are: point the apps "
    "at the folders it packs (their paths in fleet.py)",
    "ExternalArtifact": "point the apps at the folders it holds",
    "Bucket": "fleetgen reads Git and OCI sources: move the manifests there",
    "ImageRepository": _AUTOMATION,
    "ImagePolicy": _AUTOMATION,
    "ImageUpdateAutomation": _AUTOMATION,
    "Alert": _NOTIFICATIONS,
    "Provider": _NOTIFICATIONS,
    "Receiver": _NOTIFICATIONS,
}


def _loose(doc: Doc) -> Finding:
    """The finding of an object a cluster folder applies that import does not follow."""
    if doc.group.endswith("toolkit.fluxcd.io") or doc.group.endswith("extensions.fluxcd.io"):
        todo = _FLUX_KINDS.get(doc.kind, "add it by hand, or keep it in an app's folder")
        return doc.finding(f"Flux {doc.kind} {doc.name!r} not mapped", todo)
    return doc.finding(
        f"{doc.kind} {doc.name!r} applied from the cluster folder itself",
        "fleetgen applies apps, not loose objects: move it into a folder of its own and add "
        "that folder as an app",
    )


def added_fields(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The kustomization fields a Kustomization adds to its folder (kustomize-controller puts
    ``targetNamespace``, ``patches`` and ``images`` into its kustomization.yaml)."""
    added = {"namespace": spec.get("targetNamespace")}
    added |= {key: spec.get(key) for key in ("patches", "images")}
    return {key: value for key, value in added.items() if value}


def ks_sync(spec: Mapping[str, Any]) -> dict[str, Any]:
    """SyncPolicy fields of a Kustomization's spec (Flux's defaults where it says nothing:
    no prune, no wait)."""
    sync: dict[str, Any] = {"automated": not spec.get("suspend", False)}
    sync["prune"] = bool(spec.get("prune", False))
    sync["wait"] = bool(spec.get("wait", False))
    for key, name in (
        ("interval", "interval"),
        ("timeout", "timeout"),
        ("retryInterval", "retry_interval"),
    ):
        if spec.get(key):
            sync[name] = str(spec[key])
    return sync


def release_sync(spec: Mapping[str, Any]) -> dict[str, Any]:
    """SyncPolicy fields of a HelmRelease's spec."""
    sync: dict[str, Any] = {"automated": not spec.get("suspend", False)}
    install = mapping(spec.get("install"))
    sync["wait"] = not install.get("disableWait", False)
    for key in ("interval", "timeout"):
        if spec.get(key):
            sync[key] = str(spec[key])
    return sync


def _chart_options(spec: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """HelmChart fields of a HelmRelease: remediation retries and Helm tests."""
    options: list[tuple[str, Any]] = []
    for section, key in (("install", "install_retries"), ("upgrade", "upgrade_retries")):
        retries = at(spec, section, "remediation", "retries")
        if isinstance(retries, int):
            options.append((key, retries))
    if at(spec, "test", "enable") is True:
        options.append(("test", True))
    return tuple(options)


def _release_name(doc: Doc, app: str) -> str | None:
    """The release name when Flux's (``releaseName``, else ``[targetNamespace-]name``) is not
    the app's name, which fleetgen uses by default."""
    spec = doc.spec
    target = spec.get("targetNamespace")
    name = str(spec.get("releaseName") or (f"{target}-{doc.name}" if target else doc.name))
    return None if name == app else name


def _release_chart(
    doc: Doc, sources: Mapping[tuple[str, str], Doc], repo: Repo
) -> tuple[ChartRef, str | None] | str:
    """(the chart, its version) a HelmRelease installs, or why it cannot be said."""
    spec = doc.spec
    chart_ref = spec.get("chartRef")
    if isinstance(chart_ref, Mapping):
        found = _find(sources, repo, str(chart_ref.get("kind")), str(chart_ref.get("name")))
        if found is None or not found.is_(SOURCE, "OCIRepository"):
            return f"chartRef {chart_ref.get('kind')} {chart_ref.get('name')!r} not found"
        url, _, chart = str(found.spec.get("url", "")).rpartition("/")
        if carries_credentials(url):
            return "its OCIRepository's url carries credentials"
        tag = at(found.spec, "ref", "tag")
        return (ChartRef(url, chart), str(tag)) if tag else "its OCIRepository names no tag"
    template = at(spec, "chart", "spec")
    if not isinstance(template, Mapping):
        return "no spec.chart.spec or spec.chartRef"
    ref = mapping(template.get("sourceRef"))
    chart, version = str(template.get("chart", "")), template.get("version")
    if ref.get("kind") == "GitRepository" and ref.get("name") == ROOT:
        path = relative_path(chart)
        return (ChartRef(path=path), None) if path else "its chart path leaves the repository"
    found = _find(sources, repo, str(ref.get("kind")), str(ref.get("name")))
    if found is None or not found.is_(SOURCE, "HelmRepository"):
        return f"sourceRef {ref.get('kind')} {ref.get('name')!r} not found"
    url = str(found.spec.get("url", "")).rstrip("/")
    if carries_credentials(url):
        return "its HelmRepository's url carries credentials"
    if found.spec.get("type") == "oci" and not url.startswith("oci://"):
        url = f"oci://{url}"
    return ChartRef(url, chart), str(version) if version else None


def _find(sources: Mapping[tuple[str, str], Doc], repo: Repo, kind: str, name: str) -> Doc | None:
    return sources.get((kind, name)) or next(
        (d for d in repo.docs if d.is_(SOURCE, kind) and d.name == name), None
    )


def _only_flux(docs: list[Doc]) -> bool:
    """Whether a folder holds only what import follows (Flux objects, the ConfigMaps of their
    values, a tenant's accounts) and at least one Kustomization or HelmRelease."""
    values = {ref for doc in docs if doc.is_(HELM, "HelmRelease") for ref in _values_maps(doc)}
    followed = (
        _flux(doc)
        or any(doc.is_(SOURCE, kind) for kind in _SOURCES)
        or _tenancy_kind(doc)
        or (doc.group, doc.kind, doc.namespace, doc.name) in values
        for doc in docs
    )
    return all(followed) and any(_flux(doc) and doc.name != ROOT for doc in docs)


def _values_maps(release: Doc) -> list[tuple[str, str, str, str]]:
    """(group, kind, namespace, name) of each ConfigMap a HelmRelease reads values from."""
    return [
        ("", "ConfigMap", release.namespace, str(ref.get("name")))
        for ref in mappings(release.spec.get("valuesFrom"))
        if ref.get("kind") == "ConfigMap"
    ]


def _tenancy_kind(doc: Doc) -> bool:
    return any(doc.group == group and doc.kind == kind for group, kind in _TENANCY)


def _binds(doc: Doc, accounts: set[Any]) -> bool:
    return any(
        s.get("kind") == "ServiceAccount" and s.get("name") in accounts
        for s in mappings(doc.obj.get("subjects"))
    )


def _names(items: Any) -> list[str]:
    """The ``name`` of each ``dependsOn`` entry."""
    return [str(item["name"]) for item in mappings(items) if item.get("name")]


def _namespaces(docs: Iterable[Doc]) -> set[str]:
    """The namespaces objects are put in, and the Namespaces among them."""
    found = {doc.namespace for doc in docs if doc.namespace}
    return found | {doc.name for doc in docs if doc.kind == "Namespace" and doc.group == ""}


def _patch(item: Any) -> Call | None:
    """``Patch(target=..., patch=...)`` of a Kustomization's patch, None without a target kind."""
    if not isinstance(item, Mapping) or not isinstance(item.get("target"), Mapping):
        return None
    target = {str(k): str(v) for k, v in item["target"].items()}
    if "kind" not in target:
        return None
    body = load_all(str(item.get("patch", "")))
    patch = body[0] if body else {}
    return Call("Patch", {"target": target, "patch": patch})


def _image(item: Mapping[str, Any]) -> Call:
    keys = (("name", "name"), ("newName", "new_name"), ("newTag", "tag"), ("digest", "digest"))
    return Call("Image", {name: str(item[key]) for key, name in keys if item.get(key)})
