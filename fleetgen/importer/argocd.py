"""Argo CD: cluster Secrets are clusters (their labels kept, their credentials never read), and
AppProjects projects; each Application, and each Application an ApplicationSet generates (its
list, cluster, git-directory, matrix and merge generators evaluated as the controller does
against the repository's clusters and folders), is an app instance on the cluster it points at. An
Application of Applications (a folder holding only Argo CD objects) is followed into them."""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from fleetgen.errors import UsageError
from fleetgen.importer.draft import (
    DEFAULT_PROJECT,
    ChartRef,
    ClusterDraft,
    Draft,
    Instance,
    env_name,
)
from fleetgen.importer.findings import BY_HAND, unmapped
from fleetgen.importer.repo import Doc, Repo, at, mapping, mappings, relative_path, strings
from fleetgen.importer.sources import PIN, carries_credentials, pinned
from fleetgen.manifests.k8s import image_name, selector_matches
from fleetgen.manifests.yamlio import load_all
from fleetgen.model.clusters import IN_CLUSTER
from fleetgen.model.fields import ca_bundle, to_dns_label
from fleetgen.scaffold.snippets import credentials_call
from fleetgen.util.templating import Call

ARGO = "argoproj.io"
SECRET_TYPE = "argocd.argoproj.io/secret-type"
FINALIZER = "resources-finalizer.argocd.argoproj.io"
BUILT_IN = "default"  # Argo CD's own AppProject
STORE = "cluster-secrets"  # the store default_credentials names, for the user to fill in
_ARGO_KINDS = ("Application", "ApplicationSet", "AppProject")
_EXPR = re.compile(r"\{\{-?\s*(?:index\s+\.([\w.]+)\s+\"([^\"]+)\"|\.?([\w.\[\]-]+))\s*-?\}\}")
# The Application fields import maps (and below them, the parts it reads).
_APPLICATION_MAPPED = {
    "project": (),
    "source": ("repoURL", "path", "targetRevision", "chart", "helm", "kustomize", "directory"),
    "sources": (),
    "destination": ("server", "name", "namespace"),
    "syncPolicy": ("automated", "syncOptions", "retry"),
    "ignoreDifferences": (),
}
_SET_MAPPED: dict[str, tuple[str, ...]] = {
    "generators": (),
    "template": (),
    "goTemplate": (),
    "goTemplateOptions": (),
}
_SET_TODO = {
    "strategy": "roll changes through clusters with Environment(rollout=Rollout(steps=...))",
    "syncPolicy": "fleetgen's ApplicationSets keep their Applications' resources as "
    "Fleet(cascade_delete=...) says",
}
_PROJECT_MAPPED: dict[str, tuple[str, ...]] = {
    "description": (),
    "sourceRepos": (),
    "destinations": (),
    "clusterResourceWhitelist": (),
    "namespaceResourceBlacklist": (),
    "roles": (),
    "syncWindows": (),
}
_PROJECT_TODO: dict[str, str] = {}
# Annotations of a cluster Secret not kept: Argo CD's and kubectl's own.
_NOT_COPIED = ("argocd.argoproj.io/", "kubectl.kubernetes.io/")
_KEY = "clusters/{cluster}"  # ... and the key of each cluster's config in it
_CLUSTER_PARAMS = ("name", "nameNormalized", "server", "project")


def recognise(repo: Repo) -> Draft | None:
    """The fleet of an Argo CD repository, None when it has none of Argo CD's objects."""
    secrets = [doc for doc in repo.docs if _cluster_secret(doc)]
    apps = [doc for doc in repo.docs if doc.is_(ARGO, "Application")]
    sets = [doc for doc in repo.docs if doc.is_(ARGO, "ApplicationSet")]
    if not (secrets or apps or sets):
        return None
    argo = _Argo(repo, Draft("argocd"))
    for doc in secrets:
        argo.cluster(doc)
    for doc in repo.docs:
        if doc.is_(ARGO, "AppProject"):
            argo.project(doc)
    for doc in apps:
        if not argo.parent(doc):
            argo.application(doc, doc.obj)
    for doc in sets:
        argo.application_set(doc)
    argo.finish()
    return argo.draft


def _cluster_secret(doc: Doc) -> bool:
    labels = mapping(doc.meta.get("labels"))
    return doc.kind == "Secret" and doc.group == "" and labels.get(SECRET_TYPE) == "cluster"


@dataclass(slots=True)
class _Cluster:
    """A cluster as the cluster generator sees it: its Secret's name, server and metadata."""

    draft: ClusterDraft
    name: str  # as the Secret writes it (the generator's `name`)
    labels: Mapping[str, str]
    annotations: Mapping[str, str]

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


class _Unresolved(Exception):
    """A template expression import cannot evaluate."""


@dataclass(slots=True)
class _Argo:
    repo: Repo
    draft: Draft
    clusters: dict[str, _Cluster] = field(default_factory=dict)  # by server
    urls: Counter[str] = field(default_factory=Counter)  # this repository's URLs as sources say
    namespaces_created: list[bool] = field(default_factory=list)
    renamed: bool = False  # the built-in project was renamed (said once)

    # -- clusters and projects --------------------------------------------------------------

    def cluster(self, doc: Doc) -> None:
        """A cluster Secret: name, server and labels; its credentials a finding."""
        fields = {key: _secret_value(doc, key) for key in ("name", "server")}
        server, raw = fields["server"], fields["name"] or ""
        if not server:
            self.draft.findings.append(
                doc.finding("cluster Secret without a server", "add the cluster by hand")
            )
            return
        labels = {str(k): str(v) for k, v in mapping(doc.meta.get("labels")).items()}
        annotations = {str(k): str(v) for k, v in mapping(doc.meta.get("annotations")).items()}
        kept = {k: v for k, v in labels.items() if not k.startswith("argocd.argoproj.io/")}
        notes = {k: v for k, v in annotations.items() if not k.startswith(_NOT_COPIED)}
        name = to_dns_label(raw or doc.name, "cluster")
        env = to_dns_label(kept.get("env") or kept.get("environment") or env_name(name), name)
        credentials, ca_data = _identity(_secret_value(doc, "config"), name)
        cluster = ClusterDraft(
            name,
            env,
            server.rstrip("/"),
            doc,
            tuple(sorted(kept.items())),
            credentials,
            ca_data,
            tuple(sorted(notes.items())),
        )
        self.clusters[cluster.server] = _Cluster(cluster, raw or doc.name, labels, annotations)
        self.draft.clusters.append(cluster)
        if _secret_value(doc, "project"):
            self.draft.findings.append(
                doc.finding(
                    f"cluster Secret {doc.name!r}: scoped to a project",
                    "fleetgen registers clusters for every project: limit the project's "
                    "destinations instead (Project(destinations=...))",
                )
            )
        if server.rstrip("/") != IN_CLUSTER and credentials is None:
            self.draft.findings.append(
                doc.finding(
                    f"cluster Secret {doc.name!r}: its credentials are not copied",
                    f"put its connection config (Argo CD's cluster config JSON) in the store "
                    f"{STORE!r} under {_KEY.format(cluster=name)!r}, as "
                    "Fleet(default_credentials=...) says, or set Cluster(credentials=...)",
                )
            )

    def project(self, doc: Doc) -> None:
        """An AppProject: its namespaces (from destinations), repositories, cluster-scoped kinds,
        roles and sync windows."""
        spec = doc.spec
        fields: dict[str, Any] = {"name": self._project_name(doc, doc.name)}
        if spec.get("description"):
            fields["description"] = str(spec["description"])
        namespaces = sorted(
            {
                str(d.get("namespace"))
                for d in mappings(spec.get("destinations"))
                if d.get("namespace")
            }
        )
        if namespaces:
            fields["namespaces"] = namespaces
        repos = [r for r in strings(spec.get("sourceRepos")) if r != "*"]
        if repos:
            fields["source_repos"] = repos
        kinds = _kinds(spec.get("clusterResourceWhitelist"))
        if any("*" in group + kind for group, kind in kinds):
            self.draft.findings.append(
                doc.finding(
                    f"AppProject {doc.name!r}: any cluster-scoped kind ('*')",
                    "fleetgen derives the project's cluster-scoped kinds from its bases; list "
                    "a chart's in Project(cluster_resources=...)",
                    ("spec", "clusterResourceWhitelist"),
                )
            )
        elif kinds:
            fields["cluster_resources"] = kinds
        denied = _kinds(spec.get("namespaceResourceBlacklist"))
        if denied:
            fields["namespace_resources_deny"] = denied
        roles = [_call("Role", role, _ROLE_KEYS) for role in mappings(spec.get("roles"))]
        if roles:
            fields["roles"] = roles
        windows = [
            _call("SyncWindow", window, _WINDOW_KEYS)
            for window in mappings(spec.get("syncWindows"))
        ]
        if windows:
            fields["sync_windows"] = windows
        self.draft.findings += unmapped(doc, _PROJECT_MAPPED, _PROJECT_TODO)
        self.draft.projects[fields["name"]] = fields

    # -- Applications ------------------------------------------------------------------------

    def _project_name(self, where: Doc, name: str) -> str:
        """A project's name in fleet.py: Argo CD's built-in ``default`` (which fleetgen never
        writes) becomes ``apps``, said once."""
        if name != BUILT_IN:
            return to_dns_label(name, DEFAULT_PROJECT)
        if not self.renamed:
            self.renamed = True
            self.draft.findings.append(
                where.finding(
                    "AppProject 'default' (Argo CD's built-in project) is renamed 'apps'",
                    "fleetgen writes the AppProject of each project: its apps move to 'apps' "
                    "(rename it in fleet.py at will)",
                )
            )
        return DEFAULT_PROJECT

    def parent(self, doc: Doc) -> bool:
        """Whether an Application deploys only Argo CD objects of this repository (an app of
        apps): they are imported themselves."""
        source = mapping(doc.spec.get("source"))
        path = relative_path(str(source.get("path", ""))) if source.get("path") else None
        if path is None or not (self.repo.root / path).is_dir():
            return False
        inside = list(self.repo.under(path))
        return bool(inside) and all(
            d.group.startswith(ARGO) and d.kind in _ARGO_KINDS for d in inside
        )

    def application(self, origin: Doc, obj: Mapping[str, Any], name: str | None = None) -> None:
        """An Application (or one an ApplicationSet generated, located at ``origin``)."""
        spec = mapping(obj.get("spec"))
        meta = mapping(obj.get("metadata"))
        app = name or to_dns_label(str(meta.get("name", "")), "app")
        cluster = self._destination(origin, mapping(spec.get("destination")))
        sources = mappings(spec.get("sources")) or [mapping(spec.get("source"))]
        if len(sources) > 1:
            self.draft.findings.append(
                origin.finding(
                    f"{app}: {len(sources)} sources",
                    "fleetgen apps have one source: the first is imported; add the others as apps",
                    ("spec", "sources"),
                )
            )
        instance = Instance(
            app,
            cluster,
            origin,
            project=self._project_name(origin, str(spec.get("project") or BUILT_IN)),
        )
        namespace = at(spec, "destination", "namespace")
        instance.namespace = str(namespace) if namespace else None
        instance.uses = {instance.namespace} if instance.namespace else set()
        instance.sync = self._sync(mapping(spec.get("syncPolicy")))
        where = ("spec", "template", "spec") if origin.kind == "ApplicationSet" else ("spec",)
        self.draft.findings += unmapped(origin, _APPLICATION_MAPPED, {}, spec, where)
        if not self._source(origin, instance, sources[0]):
            return
        fields = []
        ignored = [
            _call("IgnoreDifference", item, _IGNORE_KEYS)
            for item in mappings(spec.get("ignoreDifferences"))
        ]
        if ignored:
            fields.append(("ignore_differences", ignored))
        instance.app_fields = (*instance.app_fields, *fields)
        instance.cascade = FINALIZER in strings(meta.get("finalizers"))
        wave = mapping(meta.get("annotations")).get("argocd.argoproj.io/sync-wave")
        if wave is not None:
            self.draft.findings.append(
                origin.finding(
                    f"{app}: sync wave {wave}",
                    "Argo CD orders Applications by wave "
                    "only under an app of apps: say the order with depends_on",
                )
            )
        self.draft.instances.append(instance)

    def _destination(self, origin: Doc, destination: Mapping[str, Any]) -> str:
        """The cluster a destination names (a cluster of its own when no Secret registers it)."""
        server = str(destination.get("server") or "").rstrip("/")
        name = str(destination.get("name") or "")
        for found in self.clusters.values():
            if found.draft.server == server or (name and found.name == name):
                return found.draft.name
        if not server and name != "in-cluster":
            server = f"https://{to_dns_label(name, 'cluster')}.invalid"
            self.draft.findings.append(
                origin.finding(
                    f"destination cluster {name!r} has no cluster Secret here",
                    "set its server in fleet.py",
                )
            )
        server = server or IN_CLUSTER
        cluster_name = (
            "in-cluster"
            if server == IN_CLUSTER
            else to_dns_label(
                server.removeprefix("https://").split(".")[0].split(":")[0], "cluster"
            )
        )
        made = ClusterDraft(cluster_name, env_name(cluster_name), server, origin)
        self.clusters[server] = _Cluster(made, name or cluster_name, {}, {})
        self.draft.clusters.append(made)
        return made.name

    def _source(self, origin: Doc, instance: Instance, source: Mapping[str, Any]) -> bool:
        """The instance's source: a chart, a folder of this repository (kustomize, plain or a
        chart) or another Git repository; False (a finding) when it cannot be one."""
        url = str(source.get("repoURL", ""))
        helm = mapping(source.get("helm"))
        if carries_credentials(url):
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: its source URL carries credentials",
                    "not copied: give the engines the credentials, not the URL",
                )
            )
            return False
        path = relative_path(str(source.get("path") or "."))
        if source.get("chart") and not pinned(str(source.get("targetRevision") or "")):
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: chart version {source.get('targetRevision')!r} is not "
                    "pinned",
                    PIN,
                )
            )
            return False
        if source.get("chart"):
            repo = url if "://" in url else f"oci://{url}"
            release = _release(helm, instance.name)
            instance.chart = ChartRef(repo.rstrip("/"), str(source["chart"]), release_name=release)
            instance.chart_version = str(source.get("targetRevision") or "") or None
            self._values(origin, instance, helm)
        elif path is not None and (self.repo.root / path).is_dir():
            self.urls[url] += 1
            self._local(origin, instance, source, path)
        elif url.startswith("https://"):
            instance.source, instance.path = _git(url, source.get("targetRevision")), path
            instance.namespace = None
        else:
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: source {url!r} not mapped",
                    "add it by hand (fleetgen reads other sources over https://)",
                )
            )
            return False
        return True

    def _local(self, origin: Doc, instance: Instance, source: Mapping[str, Any], path: str) -> None:
        """A folder of this repository: a chart kept here, else a kustomize or plain folder."""
        helm = mapping(source.get("helm"))
        if (self.repo.root / path / "Chart.yaml").is_file():
            files = [f"{path}/{name}" for name in strings(helm.get("valueFiles"))]
            options = (("values_files", tuple(files)),) if files else ()
            release = _release(helm, instance.name)
            instance.chart = ChartRef(path=path, release_name=release, options=options)
            self._values(origin, instance, helm)
        else:
            instance.path = path
            self._kustomize(origin, instance, source)

    def _kustomize(self, origin: Doc, instance: Instance, source: Mapping[str, Any]) -> None:
        """A folder's kustomize options (images mapped, the rest findings); a plain folder
        read without ``recurse`` while it has folders with manifests (fleetgen reads them)."""
        kustomize = mapping(source.get("kustomize"))
        images = [_image(image) for image in strings(kustomize.get("images"))]
        if images:
            instance.app_fields = (("images", images),)
        for key in sorted(set(kustomize) - {"images"}):
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: source.kustomize.{key} not mapped",
                    "put it in the folder's kustomization.yaml",
                )
            )
        directory = mapping(source.get("directory"))
        path = str(instance.path)
        prefix = "" if path == "." else f"{path}/"
        nested = [d for d in self.repo.under(path) if "/" in d.file[len(prefix) :]]
        if not self.repo.has_kustomization(path) and nested and not directory.get("recurse"):
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: a plain folder read without directory.recurse",
                    f"fleetgen reads its subfolders too ({nested[0].file}): move them out, or "
                    "check they belong to the app",
                )
            )
        for key in sorted(set(directory) - {"recurse"}):
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: source.directory.{key} not mapped",
                    "fleetgen reads every manifest of a plain folder: move the others out",
                )
            )

    def _values(self, origin: Doc, instance: Instance, helm: Mapping[str, Any]) -> None:
        """A chart's values: ``valuesObject``, else the ``values`` text."""
        values = helm.get("valuesObject")
        if values is None and isinstance(helm.get("values"), str):
            docs = load_all(helm["values"])
            values = docs[0] if docs else {}
        instance.values = dict(mapping(values))
        for key in sorted(set(helm) - {"valuesObject", "values", "valueFiles", "releaseName"}):
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: helm.{key} not mapped",
                    "write them into values=" if "arameters" in key else BY_HAND,
                )
            )
        if helm.get("valueFiles") and instance.chart is not None and instance.chart.path is None:
            self.draft.findings.append(
                origin.finding(
                    f"{instance.name}: helm.valueFiles of a chart repository",
                    "copy them into values=",
                )
            )

    def _sync(self, policy: Mapping[str, Any]) -> dict[str, Any]:
        """SyncPolicy fields of an Application's ``syncPolicy`` (CreateNamespace apart: a
        Fleet setting)."""
        sync: dict[str, Any] = {}
        automated = policy.get("automated")
        if isinstance(automated, Mapping):
            sync["automated"] = automated.get("enabled", True) is not False
            for key, name in (
                ("prune", "prune"),
                ("selfHeal", "self_heal"),
                ("allowEmpty", "allow_empty"),
            ):
                if automated.get(key):
                    sync[name] = True
        options = strings(policy.get("syncOptions"))
        self.namespaces_created.append("CreateNamespace=true" in options)
        options = [o for o in options if not o.startswith("CreateNamespace=")]
        if options:
            sync["sync_options"] = options
        retry = mapping(policy.get("retry"))
        if retry:
            backoff = mapping(retry.get("backoff"))
            fields = {
                "limit": retry.get("limit"),
                "backoff_duration": backoff.get("duration"),
                "backoff_factor": backoff.get("factor"),
                "backoff_max_duration": backoff.get("maxDuration"),
            }
            sync["retry"] = Call("Retry", {k: v for k, v in fields.items() if v is not None})
        return sync

    # -- ApplicationSets ---------------------------------------------------------------------

    def application_set(self, doc: Doc) -> None:
        """Each Application the set's generators make, named as the set names it with the
        cluster's part left out (one app across clusters)."""
        spec = doc.spec
        template = mapping(spec.get("template"))
        self.draft.findings += unmapped(doc, _SET_MAPPED, _SET_TODO)
        try:
            made = [p for g in mappings(spec.get("generators")) for p in self._selected(doc, g)]
            rendered = [(params, _render(template, params)) for params in made]
        except _Unresolved as error:
            self.draft.findings.append(
                doc.finding(f"ApplicationSet {doc.name!r}: {error}", "add its apps by hand")
            )
            return
        for params, app in rendered:
            name = self._app_name(doc, template, params)
            self.application(doc, app, name)

    def _app_name(self, doc: Doc, template: Mapping[str, Any], params: Mapping[str, str]) -> str:
        clusterish = {
            key
            for key, value in params.items()
            if key in _CLUSTER_PARAMS
            or key.startswith(("metadata.", "values."))
            or value in {c.name for c in self.clusters.values()}
            or value in {c.draft.name for c in self.clusters.values()}
            or value.rstrip("/") in self.clusters
        }
        masked = {key: "" if key in clusterish else value for key, value in params.items()}
        name = str(_render(at(template, "metadata", "name") or "", masked))
        return to_dns_label(re.sub(r"-+", "-", name), to_dns_label(doc.name, "app"))

    def _selected(self, doc: Doc, generator: Mapping[str, Any]) -> list[dict[str, str]]:
        """A generator's parameter sets its ``selector`` keeps (matched against the sets)."""
        if any(mapping(value).get("template") for value in generator.values()):
            raise _Unresolved("a generator's own template is not mapped")
        selector = mapping(generator.get("selector"))
        return [p for p in self._generate(doc, generator) if selector_matches(selector, p)]

    def _generate(self, doc: Doc, generator: Mapping[str, Any]) -> list[dict[str, str]]:
        """The parameter sets a generator makes, flat as fasttemplate names them."""
        if "list" in generator:
            return [_flat(mapping(e)) for e in mappings(at(generator, "list", "elements"))]
        if "clusters" in generator:
            selector = mapping(at(generator, "clusters", "selector"))
            values = mapping(at(generator, "clusters", "values"))
            chosen = [c for c in self.clusters.values() if selector_matches(selector, c.labels)]
            made = []
            for cluster in chosen:
                params = cluster.params()
                params |= {f"values.{k}": str(_render(str(v), params)) for k, v in values.items()}
                made.append(params)
            return made
        if "git" in generator:
            return self._directories(mapping(generator["git"]))
        if "matrix" in generator:
            children = mappings(at(generator, "matrix", "generators"))
            if len(children) != 2:
                raise _Unresolved("a matrix generator without exactly two generators")
            first, second = (self._selected(doc, child) for child in children)
            return [{**b, **a} for a, b in itertools.product(first, second)]
        if "merge" in generator:
            return self._merged(doc, mapping(generator["merge"]))
        raise _Unresolved(f"its {next(iter(generator), 'empty')!r} generator is not mapped")

    def _merged(self, doc: Doc, merge: Mapping[str, Any]) -> list[dict[str, str]]:
        """A merge generator's parameter sets as the controller makes them (applicationset
        generators/merge.go ``GenerateParams``): the first generator's sets, each overridden by
        the set of every later generator with the same values of ``mergeKeys``; two sets of one
        generator with the same values are an error there, and here."""
        keys = strings(merge.get("mergeKeys"))
        children = mappings(merge.get("generators"))
        if not keys or len(children) < 2:
            raise _Unresolved("a merge generator without mergeKeys or two generators")
        base, *others = (self._by_merge_key(doc, child, keys) for child in children)
        for other in others:
            for key, params in base.items():
                params.update(other.get(key, {}))
        return list(base.values())

    def _by_merge_key(
        self, doc: Doc, generator: Mapping[str, Any], keys: list[str]
    ) -> dict[tuple[str | None, ...], dict[str, str]]:
        """A merge generator's child's parameter sets by the values of ``keys``
        (``getParamSetsByMergeKey``)."""
        found: dict[tuple[str | None, ...], dict[str, str]] = {}
        for params in self._selected(doc, generator):
            key = tuple(params.get(name) for name in keys)
            if key in found:
                raise _Unresolved(
                    f"a merge generator whose generators make two parameter sets with the same "
                    f"{', '.join(keys)} (Argo CD refuses it too)"
                )
            found[key] = dict(params)
        return found

    def _directories(self, git: Mapping[str, Any]) -> list[dict[str, str]]:
        """The git generator's parameters of each folder of this repository its directories
        select."""
        if git.get("files"):
            raise _Unresolved("a git files generator is not mapped")
        rules = [
            (str(d.get("path", "")), bool(d.get("exclude")))
            for d in mappings(git.get("directories"))
        ]
        folders = sorted(
            p.relative_to(self.repo.root).as_posix()
            for p in self.repo.root.rglob("*")
            if p.is_dir() and ".git" not in p.relative_to(self.repo.root).parts
        )
        chosen = [
            f
            for f in folders
            if any(_glob(f, p) for p, ex in rules if not ex)
            and not any(_glob(f, p) for p, ex in rules if ex)
        ]
        self.urls[str(git.get("repoURL", ""))] += 1
        return [_path_params(folder) for folder in chosen]

    def finish(self) -> None:
        """The fleet-wide settings what was found implies: this repository's URL, namespace
        creation, where credentials come from."""
        if self.urls:
            self.draft.repo = self.urls.most_common(1)[0][0]
        self.draft.create_namespaces = any(self.namespaces_created)
        drafts = [c.draft for c in self.clusters.values()]
        if any(d.server != IN_CLUSTER and d.credentials is None for d in drafts):
            self.draft.default_credentials = Call(
                "ExternalSecretRef", {"store": STORE, "key": _KEY}
            )


def _identity(config: str | None, cluster: str) -> tuple[Call | None, str | None]:
    """(The credentials, the CA) of a cluster config that holds no secret: an IAM role
    (``awsAuthConfig``) or a GCP/Azure workload identity (``execProviderConfig`` running
    ``argocd-k8s-auth``), as ``add cluster --credentials`` takes them. None for any other, or
    one those do not take: its material is never read further."""
    try:
        parsed = json.loads(config or "")
    except ValueError:
        return None, None
    aws, run = (
        mapping(mapping(parsed).get("awsAuthConfig")),
        mapping(parsed.get("execProviderConfig")),
    )
    tls = mapping(parsed.get("tlsClientConfig"))
    material = {"bearerToken", "password", "username"} & set(parsed) or {
        "certData",
        "keyData",
    } & set(tls)
    credentials = None
    if aws.get("roleARN") and not material:
        credentials = f"aws:{aws['roleARN']}:{aws.get('clusterName') or cluster}"
    elif run.get("command") == "argocd-k8s-auth" and run.get("args") in (["gcp"], ["azure"]):
        credentials = None if material or run.get("env") else f"exec:{run['args'][0]}"
    ca = tls.get("caData")
    if credentials is None or not ca:  # fleetgen needs the CA with these (Argo CD verifies)
        return None, None
    try:
        return credentials_call(credentials, cluster), ca_bundle(str(ca))
    except (UsageError, ValueError):
        return None, None


def _secret_value(doc: Doc, key: str) -> str | None:
    """A cluster Secret's ``name``, ``server`` or ``config`` (`_identity` reads only what holds
    no secret in it)."""
    text = mapping(doc.obj.get("stringData")).get(key)
    if text is not None:
        return str(text)
    data = mapping(doc.obj.get("data")).get(key)
    try:
        return base64.b64decode(str(data), validate=True).decode() if data else None
    except (binascii.Error, UnicodeDecodeError):
        return None


def _render(value: Any, params: Mapping[str, str]) -> Any:
    """``value`` with every ``{{...}}`` replaced from ``params``."""
    if isinstance(value, Mapping):
        return {_render(k, params): _render(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_render(item, params) for item in value]
    if not isinstance(value, str) or "{{" not in value:
        return value

    def one(match: re.Match[str]) -> str:
        key = f"{match[1]}.{match[2]}" if match[1] else str(match[3])
        if key not in params:
            raise _Unresolved(f"template value {match[0]!r} not known here")
        return params[key]

    done = _EXPR.sub(one, value)
    if "{{" in done:
        raise _Unresolved(f"template expression in {value!r} not evaluated")
    return done


def _glob(folder: str, pattern: str) -> bool:
    """Go's path.Match of a whole path: ``*`` within one segment."""
    parts, wanted = folder.split("/"), pattern.strip("/").split("/")
    return len(parts) == len(wanted) and all(
        fnmatchcase(p, w) for p, w in zip(parts, wanted, strict=True)
    )


def _path_params(folder: str) -> dict[str, str]:
    base = folder.rsplit("/", 1)[-1]
    params = {"path": folder, "path.path": folder, "path.basename": base}
    params["path.basenameNormalized"] = re.sub(r"[^-a-z0-9.]", "-", base.lower())
    params |= {f"path[{i}]": part for i, part in enumerate(folder.split("/"))}
    return params


def _flat(element: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    for key, value in element.items():
        if isinstance(value, Mapping):
            found |= _flat(value, f"{prefix}{key}.")
        else:
            found[f"{prefix}{key}"] = str(value)
    return found


def _git(url: str, revision: Any) -> Call:
    """``GitSource(...)`` of a repository at ``targetRevision``: a tag or commit pinned, any
    other name a branch."""
    fields: dict[str, Any] = {"url": url}
    text = str(revision or "")
    if re.fullmatch(r"[0-9a-f]{40}|v?\d+(\.\d+)+\S*", text):
        fields["revision"] = text
    elif text not in ("", "HEAD", "main"):
        fields["branch"] = text
    return Call("GitSource", fields)


def _kinds(value: Any) -> list[tuple[str, str]]:
    """(group, kind) of each entry of an AppProject's resource list."""
    return [(str(k.get("group", "")), str(k.get("kind"))) for k in mappings(value)]


def _release(helm: Mapping[str, Any], app: str) -> str | None:
    name = helm.get("releaseName")
    return str(name) if name and name != app else None


def _image(text: str) -> Call:
    """``Image(...)`` of an Argo CD kustomize image override: ``name=new[:tag][@digest]`` or
    ``name[:tag][@digest]``."""
    name, _, new = text.partition("=")
    target = new or name
    fields = {"name": image_name(name)}
    if new and image_name(target) != fields["name"]:
        fields["new_name"] = image_name(target)
    rest = target[len(image_name(target)) :]
    tag, _, digest = rest.removeprefix(":").partition("@")
    fields |= {key: value for key, value in (("tag", tag), ("digest", digest)) if value}
    return Call("Image", fields)


# The fields of an Argo CD list entry a spec class carries: (its key, the class's field).
_IGNORE_KEYS = (
    ("group", "group"),
    ("kind", "kind"),
    ("name", "name"),
    ("namespace", "namespace"),
    ("jsonPointers", "json_pointers"),
    ("jqPathExpressions", "jq_path_expressions"),
    ("managedFieldsManagers", "managed_fields_managers"),
)
_ROLE_KEYS = (
    ("name", "name"),
    ("description", "description"),
    ("policies", "policies"),
    ("groups", "groups"),
)
_WINDOW_KEYS = (
    ("kind", "kind"),
    ("schedule", "schedule"),
    ("duration", "duration"),
    ("applications", "applications"),
    ("clusters", "clusters"),
    ("namespaces", "namespaces"),
    ("manualSync", "manual_sync"),
    ("timeZone", "time_zone"),
)


def _call(kind: str, item: Mapping[str, Any], keys: tuple[tuple[str, str], ...]) -> Call:
    """``kind(...)`` of the fields ``item`` sets, named as ``keys`` say."""
    return Call(kind, {name: item[key] for key, name in keys if item.get(key)})
