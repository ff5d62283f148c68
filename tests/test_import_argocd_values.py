"""``fleetgen import`` of Argo CD Helm value files, ``$ref/...`` ones of multi-source Applications
above all (the golden case ``argocd-values-refs`` shows the whole mapping): which source is
deployed, which repository and revision a file is read from, what is left out and said. Each
repository is written for the test; the imported fleet.py is loaded with fleetgen's loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fleetgen
from fleetgen.importer import ImportRequest, argocd, faithful, import_repo
from fleetgen.importer.apps import fleet_sync, fold
from fleetgen.importer.layers import Layers, layered_files
from fleetgen.importer.repo import read_repo
from fleetgen.manifests.yamlio import dump
from fleetgen.model import App, Fleet

ARGO = "argoproj.io/v1alpha1"
HERE = "https://github.com/acme/fleet.git"  # this repository, as its Applications name it
CHART = {"repoURL": "https://charts.example.com", "chart": "web", "targetRevision": "1.2.3"}


def _repo(root: Path, files: dict[str, Any]) -> Path:
    """A repository of ``files``: objects written as YAML, text as it is."""
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content if isinstance(content, str) else dump(content))
    return root


def _secret(name: str, **labels: str) -> dict[str, Any]:
    """An Argo CD cluster Secret of ``name`` (server ``https://NAME.example.com``)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster", **labels},
        },
        "stringData": {"name": name, "server": f"https://{name}.example.com"},
    }


def _application(name: str, *sources: dict[str, Any], cluster: str = "prod") -> dict[str, Any]:
    """An Application of ``sources`` on ``cluster``."""
    return {
        "apiVersion": ARGO,
        "kind": "Application",
        "metadata": {"name": name, "namespace": "argocd"},
        "spec": {
            "project": "default",
            "sources": list(sources),
            "destination": {"server": f"https://{cluster}.example.com", "namespace": name},
        },
    }


def _chart(*files: str, **helm: Any) -> dict[str, Any]:
    """The chart ``web`` of a repository with ``files`` as its ``valueFiles``."""
    return {**CHART, "helm": {"valueFiles": list(files), **helm}}


def _ref(url: str = HERE, revision: str = "HEAD", name: str = "values") -> dict[str, Any]:
    """A source whose files value files name by ``$name``."""
    return {"repoURL": url, "targetRevision": revision, "ref": name}


def _imported(root: Path) -> tuple[Fleet, list[str]]:
    """The fleet import writes for ``root`` (loaded as build loads it) and its findings."""
    done = import_repo(ImportRequest(root))
    return fleetgen.load(done.spec).fleet, [finding.render() for finding in done.findings]


def _app(fleet: Fleet, name: str) -> App:
    return next(app for app in fleet.apps if app.name == name)


def test_a_ref_only_source_is_not_deployed(tmp_path: Path) -> None:
    """argo-cd reposerver ``Service.GenerateManifest`` skips a source with a ``ref`` and neither
    path nor chart ("ref only source"); a ref source with a path is deployed too. Before, the
    ref source was an app of the repository's root."""
    root = _repo(
        tmp_path,
        {
            "clusters/prod.yaml": _secret("prod", env="prod"),
            "apps/web.yaml": _application("web", _ref(), _chart("$values/web/prod.yaml")),
            "apps/only.yaml": _application("only", _ref()),
            "web/prod.yaml": "replicas: 3\n",
        },
    )
    fleet, findings = _imported(root)
    assert [app.name for app in fleet.apps] == ["web"]
    web = _app(fleet, "web")
    assert web.chart is not None and web.chart.values_files == ["web/prod.yaml"]
    assert not any("sources —" in finding for finding in findings)
    assert (
        "apps/only.yaml:9: only: its sources are only referenced (ref): it deploys nothing — "
        "nothing to add, unless it should deploy something"
    ) in findings


def test_value_files_resolve_as_the_repo_server_resolves_them(tmp_path: Path) -> None:
    """argo-cd reposerver ``getResolvedValueFiles``: ``$ref/PATH`` is PATH from the root of the
    ref source's repository (``getResolvedRefValueFile``), any other entry from the chart's
    folder, ``/PATH`` from the repository's root (util/io/path ``resolveFileOrDirectory``);
    a file named twice is read once, where it is first named; with ignoreMissingValueFiles a
    missing file is skipped. Without a folder source naming this repository's URL, the ref
    source whose files are here is this repository (and the fleet's ``repo``)."""
    local = {
        "repoURL": HERE,
        "targetRevision": "HEAD",
        "path": "charts/hello",
        "helm": {
            "ignoreMissingValueFiles": True,
            "valueFiles": [
                "values-prod.yaml",
                "../common/hello.yaml",
                "/values/hello.yaml",
                "$values/values/hello.yaml",
                "$values/values/missing.yaml",
            ],
        },
    }
    root = _repo(
        tmp_path,
        {
            "clusters/prod.yaml": _secret("prod", env="prod"),
            "apps/hello.yaml": _application("hello", local, _ref()),
            "apps/web.yaml": _application("web", _chart("$values/values/web.yaml"), _ref()),
            "charts/hello/Chart.yaml": "apiVersion: v2\nname: hello\nversion: 0.1.0\n",
            "charts/hello/values-prod.yaml": "replicas: 2\n",
            "charts/common/hello.yaml": "greeting: hi\n",
            "values/hello.yaml": "greeting: hello\n",
            "values/web.yaml": "replicas: 3\n",
        },
    )
    fleet, findings = _imported(root)
    hello = _app(fleet, "hello").chart
    assert hello is not None and hello.values_files == [
        "charts/hello/values-prod.yaml",
        "charts/common/hello.yaml",
        "values/hello.yaml",
    ]
    web = _app(fleet, "web").chart
    assert web is not None and web.values_files == ["values/web.yaml"]
    assert fleet.repo == HERE
    assert not any("values" in finding for finding in findings)


def test_what_cannot_be_read_here_is_said_where_it_is_written(tmp_path: Path) -> None:
    """A ref of another repository, or of another revision of this one (argo-cd reposerver
    ``resolveReferencedSources`` reads it at its own ``targetRevision``), a ``$ref`` no source
    has (an error there), a path out of the repository, a missing file without
    ignoreMissingValueFiles (Helm's error), a file of a repository's chart, secret material:
    each a finding at its entry; the app keeps what it can read."""
    web = _chart(
        "$values/web/base.yaml",
        "$other/web.yaml",
        "$pinned/web.yaml",
        "$nothing/web.yaml",
        "$values/../web.yaml",
        "$values/web/missing.yaml",
        "$values/web/token.yaml",
        "values-prod.yaml",
    )
    folder = {"repoURL": HERE, "targetRevision": "HEAD", "path": "guestbook"}
    token = "ghp_" + "Zq8xWv3Lm9Tb2Nc7Rk4Yp1Hd6Gf5Js0Ae3Uo"
    root = _repo(
        tmp_path,
        {
            "clusters/prod.yaml": _secret("prod", env="prod"),
            "apps/guestbook.yaml": _application("guestbook", folder),
            "apps/web.yaml": _application(
                "web",
                web,
                _ref(),
                _ref("https://github.com/acme/settings.git", "main", "other"),
                _ref(HERE, "v1.0.0", "pinned"),
            ),
            "guestbook/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gb}\n",
            "web/base.yaml": "replicas: 2\n",
            "web/token.yaml": f"auth:\n  token: {token}\n",
        },
    )
    fleet, findings = _imported(root)
    chart = _app(fleet, "web").chart
    assert chart is not None and chart.values_files == ["web/base.yaml"]
    about = [f.split(": ", 2)[2] for f in findings if f.startswith("apps/web.yaml")]
    assert about == [
        "helm.valueFiles[1] is 'web.yaml' of another repository "
        "(https://github.com/acme/settings.git, revision 'main'): not mapped — copy its values "
        "into values= (or the file into this repository, values_files=)",
        "helm.valueFiles[2] is 'web.yaml' of this repository at revision 'v1.0.0', not the "
        "fleet's: not mapped — copy its values into values= (or the file into this repository, "
        "values_files=)",
        "helm.valueFiles[3] names '$nothing', which no source's ref is: Argo CD cannot render "
        "the app — fix the Application, then add the file to values_files= by hand",
        "helm.valueFiles[4] leaves the repository: not mapped — copy its values into values= "
        "(or the file into this repository, values_files=)",
        "values file 'web/missing.yaml' is not in the repository: Argo CD cannot render the app "
        "— imported without it: add the file, then put it in values_files=",
        "values file 'web/token.yaml' looks like it holds secret material — not mapped: keep it "
        "in a Secret the chart reads (existingSecret), and the rest of the file in values_files=",
        "helm.valueFiles[7] is a file of the chart repository's chart: not mapped — copy its "
        "values into values= (or the file into this repository, values_files=)",
    ]
    assert token not in "\n".join(findings) + (root / "fleet.py").read_text()


def test_clusters_selected_at_run_time(tmp_path: Path) -> None:
    """On clusters another tool registers, the ref source's URL and revision read from their
    annotations (the control-plane pattern: gitops-bridge's addons_repo_url, _revision and
    _basepath) are taken as this repository at the fleet's revision, an annotation a path starts
    with as its root, with a finding; a value file whose path reads the clusters otherwise is a
    finding, one that does not (its environment label is fixed by the selector) is mapped."""
    appset = {
        "apiVersion": ARGO,
        "kind": "ApplicationSet",
        "metadata": {"name": "addons", "namespace": "argocd"},
        "spec": {
            "generators": [{"clusters": {"selector": {"matchLabels": {"env": "prod"}}}}],
            "template": {
                "metadata": {"name": "{{name}}-web"},
                "spec": {
                    "project": "default",
                    "sources": [
                        {
                            "repoURL": "{{metadata.annotations.addons_repo_url}}",
                            "targetRevision": "{{metadata.annotations.addons_repo_revision}}",
                            "ref": "values",
                        },
                        _chart(
                            "$values/{{metadata.annotations.base}}envs/{{metadata.labels.env}}/web.yaml",
                            "$values/clusters/{{name}}/web.yaml",
                            ignoreMissingValueFiles=True,
                        ),
                    ],
                    "destination": {"name": "{{name}}", "namespace": "web"},
                },
            },
        },
    }
    root = _repo(tmp_path, {"sets/addons.yaml": appset, "envs/prod/web.yaml": "replicas: 3\n"})
    fleet, findings = _imported(root)
    web = _app(fleet, "web")
    assert web.targets.runtime and web.chart is not None
    assert web.chart.values_files == ["envs/prod/web.yaml"]
    assert (
        "sets/addons.yaml:18: web: its value files' repository, revision (and base path) are "
        "annotations of the clusters selected at run time: read as this repository's root at "
        "the fleet's revision — "
        "check their annotations name this repository; else copy the values into values="
    ) in findings
    assert (
        "sets/addons.yaml:27: web: helm.valueFiles[1] read the clusters selected at run time: "
        "not mapped — fleetgen's values files are the same for the clusters of a layer: add "
        "them by hand (per_env Overrides(values_files=...) for what differs by environment)"
    ) in findings


def test_files_fold_into_the_shallowest_layer_that_keeps_their_order() -> None:
    """Argo CD passes an instance's files in order, then its values (reposerver ``helmTemplate``:
    ``templateOpts.Values``, then ``ExtraValues``); fleetgen chains HelmChart's files, then
    per_env's, then per_cluster's: what every cluster starts with is the chart's, what an
    environment's clusters go on with is theirs, the rest per cluster."""
    env_of = {"dev-1": "dev", "prod-eu": "prod", "prod-us": "prod"}
    found = layered_files(
        {
            "dev-1": ["common.yaml", "dev.yaml"],
            "prod-eu": ["common.yaml", "prod.yaml", "eu.yaml"],
            "prod-us": ["common.yaml", "prod.yaml"],
        },
        env_of,
        "files",
    )
    assert found == Layers(
        {"files": ["common.yaml"]},
        {"dev": {"files": ["dev.yaml"]}, "prod": {"files": ["prod.yaml"]}},
        per_cluster={"prod-eu": {"files": ["eu.yaml"]}},
    )
    # a cluster's own file before a shared one: only per cluster keeps the order
    apart = layered_files(
        {"a": ["a.yaml", "x.yaml"], "b": ["b.yaml", "x.yaml"]}, {"a": "e", "b": "e"}, "f"
    )
    assert apart == Layers(
        {}, {}, per_cluster={"a": {"f": ["a.yaml", "x.yaml"]}, "b": {"f": ["b.yaml", "x.yaml"]}}
    )


def test_the_faithfulness_check_compares_the_values_of_the_files(tmp_path: Path) -> None:
    """faithful ``_chart`` merges each instance's files as Argo CD reads them and compares them
    with the placement's values, which hold the files fleet.py names: a file left out of
    fleet.py is a difference at the values it set."""
    set_ = {
        "apiVersion": ARGO,
        "kind": "ApplicationSet",
        "metadata": {"name": "web", "namespace": "argocd"},
        "spec": {
            "generators": [{"clusters": {"selector": {"matchLabels": {"env": "prod"}}}}],
            "template": {
                "metadata": {"name": "{{name}}-web"},
                "spec": {
                    "project": "default",
                    "sources": [_chart("$values/web/{{name}}.yaml"), _ref()],
                    "destination": {"server": "{{server}}", "namespace": "web"},
                },
            },
        },
    }
    root = _repo(
        tmp_path,
        {
            "clusters/prod-eu.yaml": _secret("prod-eu", env="prod"),
            "clusters/prod-us.yaml": _secret("prod-us", env="prod"),
            "sets/web.yaml": set_,
            "web/prod-eu.yaml": "region: eu\n",
            "web/prod-us.yaml": "region: us\n",
        },
    )
    text = import_repo(ImportRequest(root, dry_run=True)).text
    assert (
        'per_cluster={\n                "prod-eu": Overrides(values_files=["web/prod-eu.yaml"]),'
        in text
    )
    draft = argocd.recognise(read_repo(root))
    assert draft is not None
    draft.in_order()
    apps = fold(draft, fleet_sync(draft.instances))
    assert faithful.check(root, text, apps, "argocd") == []
    edited = text.replace('Overrides(values_files=["web/prod-us.yaml"])', "Overrides()")
    found = [f.render() for f in faithful.check(root, edited, apps, "argocd")]
    assert found == [
        "sets/web.yaml:1: web on 'prod-us': the values differ at region — check the app's "
        "settings in fleet.py against the original"
    ]
