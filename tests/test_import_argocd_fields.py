"""``fleetgen import`` of the Argo CD fields beyond an app's source that the field walk
(``tests.test_import_fields``) found lost: the template syntax a set declares, the revision and
URL of this repository its sources name, what an AppProject permits, an Application's labels and
annotations, a set's own metadata and the keys of its generators. Each repository is written for
the test; each case names the Argo CD function whose behaviour it models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fleetgen
from fleetgen.importer import ImportRequest, import_repo
from fleetgen.manifests.yamlio import dump
from fleetgen.model import App, Fleet

ARGO = "argoproj.io/v1alpha1"
HERE = "https://github.com/acme/fleet.git"
WEB = {"repoURL": HERE, "targetRevision": "HEAD", "path": "apps/web"}
TOKEN = "ghp_" + "Zq8xWv3Lm9Tb2Nc7Rk4Yp1Hd6Gf5Js0Ae3Uo"  # secret material, as the rules find it


def _repo(root: Path, files: dict[str, Any]) -> Path:
    """A repository of ``files`` (objects, written as YAML), the clusters ``dev`` and ``prod``
    and the kustomize folder ``apps/web``."""
    files = {"clusters.yaml": [_secret("dev"), _secret("prod")], **files}
    web = root / "apps" / "web"
    web.mkdir(parents=True)
    (web / "kustomization.yaml").write_text("resources: [config.yaml]\n")
    (web / "config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")
    for name, content in files.items():
        docs = content if isinstance(content, list) else [content]
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("---\n".join(dump(doc) for doc in docs))
    return root


def _secret(name: str) -> dict[str, Any]:
    """The cluster Secret of ``name``, server ``https://NAME.example.com``, label env=NAME."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster", "env": name},
        },
        "stringData": {"name": name, "server": f"https://{name}.example.com"},
    }


def _application(name: str, source: dict[str, Any], **meta: Any) -> dict[str, Any]:
    """An Application of ``source`` on ``prod``, in its namespace ``name``."""
    return {
        "apiVersion": ARGO,
        "kind": "Application",
        "metadata": {"name": name, "namespace": "argocd", **meta},
        "spec": {
            "project": "default",
            "source": source,
            "destination": {"server": "https://prod.example.com", "namespace": name},
        },
    }


def _set(name: str, template: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """An ApplicationSet with a clusters generator (both clusters) and ``template``."""
    return {
        "apiVersion": ARGO,
        "kind": "ApplicationSet",
        "metadata": {"name": name, "namespace": "argocd"},
        "spec": {"generators": [{"clusters": {}}], "template": template, **spec},
    }


def _template(name: str, server: str, **meta: Any) -> dict[str, Any]:
    """An Application template deploying ``apps/web`` on ``server``."""
    return {
        "metadata": {"name": name, **meta},
        "spec": {
            "project": "default",
            "source": WEB,
            "destination": {"server": server, "namespace": "web"},
        },
    }


def _imported(root: Path) -> tuple[Fleet, list[str]]:
    """The fleet import writes for ``root`` (loaded as build loads it) and its findings."""
    done = import_repo(ImportRequest(root))
    return fleetgen.load(done.spec).fleet, [finding.render() for finding in done.findings]


def _app(fleet: Fleet, name: str) -> App:
    return next(app for app in fleet.apps if app.name == name)


def test_a_set_is_rendered_in_the_syntax_it_declares(tmp_path: Path) -> None:
    """applicationset utils ``Render.Replace``: without goTemplate, fasttemplate replaces a
    ``{{ key }}`` that is a flat parameter and leaves any other tag as written (``{{.name}}``
    included); with it, Go's text/template reads ``{{ .name }}``, and an option it does not
    know makes ``Template.Option`` panic; goTemplateOptions of a fasttemplate set are ignored."""
    go = _template("web-{{ .name }}", "{{ .server }}")
    fast = _template("web-{{ name }}", "{{server}}")
    root = _repo(
        tmp_path,
        {
            "go.yaml": _set("go", go, goTemplate=True, goTemplateOptions=["missingkey=error"]),
            "fast.yaml": _set("fast", fast, goTemplateOptions=["missingkey=error"]),
            "mixed.yaml": _set("mixed", go),
            "typo.yaml": _set("typo", go, goTemplate=True, goTemplateOptions=["missingkey=err"]),
        },
    )
    fleet, findings = _imported(root)
    assert {app.name for app in fleet.apps} == {"web"}  # go and fast alike, one app
    assert "fast.yaml:22: ApplicationSet 'fast': spec.goTemplateOptions apply to Go templates " in (
        "\n".join(findings)
    )
    assert (
        "mixed.yaml:1: ApplicationSet 'mixed': template value '{{ .name }}' is no parameter of its "
        "generators (Go's syntax, and the set has no goTemplate: true): Argo CD leaves it as "
        "written — add its apps by hand" in findings
    )
    assert (
        "typo.yaml:23: ApplicationSet 'typo': spec.goTemplateOptions 'missingkey=err' is no option "
        "of Go's text/template, which panics on it: Argo CD renders none of its Applications — "
        "fix the option (missingkey=error), rerun import" in findings
    )


def test_a_key_no_parameter_set_has_is_said_as_the_option_renders_it(tmp_path: Path) -> None:
    """text/template's ``missingkey=error`` fails the execution on a missing map key (the
    default renders ``<no value>``); a directories generator's path is ``path`` in
    fasttemplate, ``path.path`` in Go (applicationset generators/git.go
    ``generateParamsFromApps``)."""
    directories = {"git": {"repoURL": HERE, "directories": [{"path": "apps/*"}]}}
    go = _template("{{ .path.basename }}", "https://prod.example.com")
    go["spec"]["source"] = {**WEB, "path": "{{ .path.path }}"}
    strict = {**go, "metadata": {"name": "{{ .path.missing }}"}}
    fast = _template("{{ path.basename }}", "https://prod.example.com")
    fast["spec"]["source"] = {**WEB, "path": "{{ path }}"}
    root = _repo(
        tmp_path,
        {
            "go.yaml": _set("go", go, goTemplate=True, generators=[directories]),
            "fast.yaml": _set("fast", fast, generators=[directories]),
            "strict.yaml": _set(
                "strict",
                strict,
                goTemplate=True,
                goTemplateOptions=["missingkey=error"],
                generators=[directories],
            ),
        },
    )
    fleet, findings = _imported(root)
    assert _app(fleet, "web").path == "apps/web"
    assert (
        "strict.yaml:1: ApplicationSet 'strict': template value '{{ .path.missing }}' is no "
        "parameter of its generators: Argo CD fails (missingkey=error) there — add its apps by "
        "hand" in findings
    )


def test_this_repository_is_read_at_one_revision_and_url(tmp_path: Path) -> None:
    """fleetgen's Applications read one revision of one repository; Argo CD's repo-server reads
    each source at its own ``targetRevision`` (``GenerateManifest``): the revision most sources
    name is ``Fleet(revision=...)``, another one or another URL read from the files here a
    finding at its field."""
    prod = {**WEB, "targetRevision": "prod"}
    root = _repo(
        tmp_path,
        {
            "a.yaml": _application("a", prod),
            "b.yaml": _application("b", prod),
            "c.yaml": _application("c", WEB),
            "d.yaml": _application("d", {**prod, "repoURL": "https://github.com/acme/mirror.git"}),
        },
    )
    fleet, findings = _imported(root)
    assert (fleet.revision, fleet.repo) == ("prod", HERE)
    assert (
        "c.yaml:10: c: its source reads this repository at revision 'HEAD', the fleet at 'prod': "
        "imported from the files here — fleetgen reads one revision of its repository "
        "(Fleet(revision=...)): check that revision holds these files, or add it by hand"
    ) in findings
    assert any(
        f.startswith(
            "d.yaml:9: d: its source names https://github.com/acme/mirror.git, not the fleet's "
            f"repository ({HERE}), and is read from the files here"
        )
        for f in findings
    )


def test_what_an_appproject_permits_is_compared_with_fleetgens(tmp_path: Path) -> None:
    """``AppProject.isDestinationMatched`` and ``IsSourcePermitted``: an Application its
    AppProject does not permit is refused by Argo CD (fleetgen's AppProject permits where its
    apps are placed, and refuses a source its source_repos do not list); servers its
    destinations permit beyond the apps' clusters are not kept."""
    project = {
        "apiVersion": ARGO,
        "kind": "AppProject",
        "metadata": {"name": "team", "namespace": "argocd"},
        "spec": {
            "sourceRepos": [HERE],
            "destinations": [
                {"server": "https://prod.example.com", "namespace": "a"},
                {"server": "https://*.example.com", "namespace": "b"},
            ],
        },
    }
    remote = {"repoURL": "https://github.com/acme/web.git", "path": "deploy"}
    apps = {"a.yaml": _application("a", WEB), "c.yaml": _application("c", remote)}
    for app in apps.values():
        app["spec"]["project"] = "team"
    fleet, findings = _imported(_repo(tmp_path, {"project.yaml": project, **apps}))
    assert _app(fleet, "c").project == "team"
    assert [f for f in findings if "does not permit" in f] == [
        "c.yaml:9: c: AppProject 'team' does not permit its source "
        "https://github.com/acme/web.git: Argo CD refuses to sync it — fleetgen refuses it too "
        "(Project(source_repos=...)): add the repository there, or move the app to another "
        "project",
        "c.yaml:12: c: AppProject 'team' does not permit its destination (cluster 'prod', "
        "namespace 'c'): Argo CD refuses to sync it — fleetgen's AppProject permits each app's "
        "namespaces on the clusters it is placed on: check the app belongs to the project",
    ]
    assert any(
        f.startswith(
            "project.yaml:10: AppProject 'team': spec.destinations permit servers fleetgen's "
            "AppProject does not ('https://*.example.com')"
        )
        for f in findings
    )


def test_labels_and_annotations_are_the_apps_where_its_clusters_agree(tmp_path: Path) -> None:
    """An Application's labels and annotations land on fleetgen's Application
    (``App(labels=..., annotations=...)``) where every cluster has them alike, its
    notification subscriptions on ``App(notify=...)``; Argo CD's own
    annotations, a set's own metadata, and a template's namespace (applicationset template
    ``GenerateApplications`` puts every Application in the set's namespace) are findings;
    secret material in an annotation is left out."""
    template = _template(
        "web-{{name}}",
        "{{server}}",
        namespace="apps",
        labels={"team": "shop", "cluster": "{{name}}"},
        annotations={
            "notifications.argoproj.io/subscribe.on-sync-failed.slack": "shop",
            "argocd.argoproj.io/compare-options": "IgnoreExtraneous",
            "acme.io/token": TOKEN,
        },
    )
    appset = _set("web", template)
    appset["metadata"]["labels"] = {"owner": "platform"}
    fleet, findings = _imported(_repo(tmp_path, {"web.yaml": appset}))
    web = _app(fleet, "web")
    assert web.labels == {"team": "shop"}
    assert web.annotations == {}  # the subscription is the app's Notify (subscriptions.py)
    assert [(n.on, [c.recipient for c in n.to]) for n in web.notify] == [
        (["sync_failed"], ["shop"])
    ]
    text = "\n".join(findings)
    assert "web.yaml:1: web: label 'cluster' differs between its clusters ('dev' on 'dev', " in text
    assert "web: annotation 'argocd.argoproj.io/compare-options' not mapped — " in text
    assert "ApplicationSet 'web': metadata.labels not mapped (owner)" in text
    assert "web.yaml:1: web: annotation 'acme.io/token' looks like secret material" in text
    assert TOKEN not in text
    assert (
        "ApplicationSet 'web': spec.template.metadata.namespace 'apps' is not read: Argo CD puts "
        "its Applications in the set's namespace 'argocd'" in text
    )


def test_generator_keys_import_does_not_read_are_named(tmp_path: Path) -> None:
    """A git generator's ``requeueAfterSeconds`` (generators/git.go ``GetRequeueAfter``: how
    often it reads Git again), any key a generator has not, and a generator that makes nothing
    beside others that do (a files generator matching no file)."""
    template = _template("web", "https://prod.example.com")
    generators = [
        {"git": {"repoURL": HERE, "directories": [{"path": "apps/*"}], "requeueAfterSeconds": 20}},
        {"git": {"repoURL": HERE, "files": [{"path": "apps/**/none.json"}]}},
        {"list": {"elements": [], "elementsYaml": "[]"}},
    ]
    _, findings = _imported(
        _repo(tmp_path, {"web.yaml": _set("web", template, generators=generators)})
    )
    text = "\n".join(findings)
    assert "ApplicationSet 'web': spec.generators[0].git.requeueAfterSeconds not mapped" in text
    assert "ApplicationSet 'web': spec.generators[1] makes no Application from what" in text
    assert "ApplicationSet 'web': spec.generators[2].list.elementsYaml not mapped" in text


def test_automated_enabled_false_imports_as_manual(tmp_path: Path) -> None:
    """``automated: {enabled: false}`` (what fleetgen writes for a manual environment) is manual
    sync: ``SyncPolicy.IsAutomatedSyncEnabled`` is false when ``Enabled`` is set false, and the
    controller's ``autoSync`` then returns before syncing; ``automated`` without ``enabled`` is
    on."""
    manual, auto = _application("web", WEB), _application("web", WEB)
    manual["spec"]["syncPolicy"] = {"automated": {"enabled": False, "prune": True}}
    auto["spec"]["syncPolicy"] = {"automated": {"prune": True}}
    fleet, _ = _imported(_repo(tmp_path / "manual", {"web.yaml": manual}))
    assert (fleet.sync.automated, fleet.sync.prune) == (False, True)
    fleet, _ = _imported(_repo(tmp_path / "auto", {"web.yaml": auto}))
    assert (fleet.sync.automated, fleet.sync.prune) == (True, True)
